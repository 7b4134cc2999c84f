//! `qibase._qibase`: the Python extension module of the `qibase` package
//! (the pure-Python part, `python/qibase/`, re-exports it and defines the
//! exception classes). Everything goes through the `qibase` library; this
//! crate only converts: strings to positions, values to Python objects and
//! numpy arrays, library errors to the package's exceptions.
//!
//! Rules of the boundary:
//! * positions and moves are strings in the notation of `docs/rules.md`;
//! * long work (batch probes, whole tiers, solving, perft) runs with the
//!   GIL released, batch probes on the library's rayon threads;
//! * no Rust panic crosses into Python: every entry point catches panics
//!   and raises `qibase.InternalError`.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use rayon::prelude::*;

use qibase::analysis::{analyse, principal_variation, LookupError, MoveInfo, Oracle};
use qibase::solver::{solve_game, SolveError, SolveObserver, SolveOptions, TierReport};
use qibase::tablebase::{Tablebase as RsTablebase, TbError};
use qibase::{
    with_game, AnyGame, Difficulty, Game as RsGame, Notation, ParseError, Rng, Rules, Side,
    SpecError, TierKey, Tiers, Value as RsValue,
};

// ----- errors ---------------------------------------------------------------

/// A failure on the Rust side, converted to a Python exception once the GIL
/// is held again.
enum Failure {
    Parse(ParseError),
    Spec(SpecError),
    Tb(TbError),
    Lookup(LookupError),
    Solve(SolveError),
    /// A Python exception already made (e.g. raised by a callback).
    Py(PyErr),
    /// `qibase.Error` with a message.
    Other(String),
    /// A Rust panic.
    Panic(String),
}

impl From<ParseError> for Failure {
    fn from(e: ParseError) -> Self {
        Failure::Parse(e)
    }
}
impl From<SpecError> for Failure {
    fn from(e: SpecError) -> Self {
        Failure::Spec(e)
    }
}
impl From<TbError> for Failure {
    fn from(e: TbError) -> Self {
        Failure::Tb(e)
    }
}
impl From<LookupError> for Failure {
    fn from(e: LookupError) -> Self {
        Failure::Lookup(e)
    }
}
impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}

/// An instance of the exception class `name` of `qibase._errors`, made
/// with `(message, path)`.
fn exception(name: &str, message: String, path: Option<PathBuf>) -> PyErr {
    Python::attach(|py| {
        let class = match py.import("qibase._errors").and_then(|m| m.getattr(name)) {
            Ok(c) => c,
            Err(e) => return e,
        };
        let path = path.map(|p| p.display().to_string());
        match class.call1((message, path)) {
            Ok(obj) => PyErr::from_value(obj),
            Err(e) => e,
        }
    })
}

fn tb_exception(e: &TbError) -> PyErr {
    let path = Some(e.path().to_path_buf());
    match e {
        TbError::NotSolved { .. } => exception("MissingTableError", e.to_string(), path),
        TbError::Corrupt { .. } | TbError::Foreign { .. } | TbError::Version { .. } => {
            exception("CorruptTableError", e.to_string(), path)
        }
        TbError::Io { .. } => exception("TablebaseIOError", e.to_string(), path),
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Parse(e) => match e {
                ParseError::IllegalPosition { .. } => {
                    exception("IllegalPosition", e.to_string(), None)
                }
                _ => exception("ParseError", e.to_string(), None),
            },
            Failure::Spec(e) => exception("UnknownGame", e.to_string(), None),
            Failure::Tb(e) => tb_exception(&e),
            Failure::Lookup(LookupError::Tablebase(e)) => tb_exception(&e),
            Failure::Lookup(e @ LookupError::OutsideSubset(_)) => {
                exception("MissingTableError", e.to_string(), None)
            }
            Failure::Lookup(e) => exception("Error", e.to_string(), None),
            Failure::Solve(SolveError::Tablebase(e)) => tb_exception(&e),
            Failure::Solve(e) => exception("Error", e.to_string(), None),
            Failure::Py(e) => e,
            Failure::Other(s) => exception("Error", s, None),
            Failure::Panic(s) => exception("InternalError", format!("internal error: {s}"), None),
        }
    }
}

type Res<T> = Result<T, Failure>;

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a Rust panic".to_string()
    }
}

/// Run `f`, turning a panic into [`Failure::Panic`].
fn guarded<T>(f: impl FnOnce() -> Res<T>) -> Res<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(Failure::Panic(panic_message(p))))
}

/// Run `f` without the GIL, panics caught; the failure becomes a Python
/// exception once the GIL is back.
fn released<T: Send>(py: Python<'_>, f: impl FnOnce() -> Res<T> + Send) -> PyResult<T> {
    py.detach(|| guarded(f)).map_err(PyErr::from)
}

/// Run `f` with the GIL held, panics caught.
fn held<T>(f: impl FnOnce() -> Res<T>) -> PyResult<T> {
    guarded(f).map_err(PyErr::from)
}

// ----- games ----------------------------------------------------------------

/// Every game made once per variant string and kept for the process's
/// lifetime (a game is a few kilobytes of tables), so tablebases can
/// borrow it.
fn game_static(spec: &str) -> Res<&'static AnyGame> {
    static GAMES: OnceLock<Mutex<HashMap<String, &'static AnyGame>>> = OnceLock::new();
    let mut map = GAMES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(g) = map.get(spec) {
        return Ok(g);
    }
    let g: &'static AnyGame = Box::leak(Box::new(AnyGame::from_id(spec)?));
    map.insert(spec.to_string(), g);
    Ok(g)
}

/// A game argument: a [`Game`] or a variant string.
fn game_arg(obj: &Bound<'_, PyAny>) -> PyResult<&'static AnyGame> {
    if let Ok(g) = obj.extract::<PyRef<'_, Game>>() {
        return Ok(g.game);
    }
    if let Ok(s) = obj.extract::<String>() {
        return held(|| game_static(&s));
    }
    Err(PyTypeError::new_err(format!(
        "game must be a qibase.Game or a variant string, not {}",
        obj.get_type().name()?
    )))
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::First => "first",
        Side::Second => "second",
    }
}

/// A game: its rules and notation. `Game("cannon-chess:board=4x4,tiao=any")`
/// takes any variant string (`qibase.games()` lists the presets).
/// Positions and moves are strings in the game's notation.
#[pyclass(frozen, module = "qibase")]
struct Game {
    game: &'static AnyGame,
}

fn parse<G: RsGame>(g: &G, pos: &str) -> Res<G::Pos> {
    Ok(g.parse_pos(pos)?)
}

#[pymethods]
impl Game {
    #[new]
    fn new(variant: &str) -> PyResult<Game> {
        Ok(Game {
            game: held(|| game_static(variant))?,
        })
    }

    /// The game's id (`cannon-chess`), the name of its tablebase directory.
    #[getter]
    fn id(&self) -> String {
        with_game!(self.game, |g| g.id().to_string())
    }

    /// The canonical variant string (keys sorted, defaults dropped).
    #[getter]
    fn variant(&self) -> String {
        with_game!(self.game, |g| g.variant_spec())
    }

    /// The game's title.
    #[getter]
    fn title(&self) -> String {
        with_game!(self.game, |g| g.title().to_string())
    }

    /// The start position.
    #[getter]
    fn start(&self) -> String {
        with_game!(self.game, |g| g.format_pos(&g.start()))
    }

    /// The position in canonical notation; raises `ParseError` (or
    /// `IllegalPosition`) if `pos` is not a position of this game.
    fn parse(&self, pos: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| Ok(g.format_pos(&parse(g, pos)?))))
    }

    /// The move `mv` in canonical notation; raises `ParseError` if it is
    /// malformed or not legal in `pos`.
    fn parse_move(&self, pos: &str, mv: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| {
            let p = parse(g, pos)?;
            Ok(g.format_move(&g.parse_move(&p, mv)?))
        }))
    }

    /// The side to move: `"first"` or `"second"`.
    fn side_to_move(&self, pos: &str) -> PyResult<&'static str> {
        with_game!(self.game, |g| held(|| Ok(side_name(
            g.side_to_move(&parse(g, pos)?)
        ))))
    }

    /// The legal moves of `pos` with their resulting positions, as
    /// `(move, position)` pairs in the move generator's order; empty when
    /// the game is over.
    fn moves(&self, pos: &str) -> PyResult<Vec<(String, String)>> {
        with_game!(self.game, |g| held(|| {
            let p = parse(g, pos)?;
            let mut out = Vec::new();
            if g.game_end(&p).is_none() {
                let mut ms = Vec::new();
                g.moves(&p, &mut ms);
                for m in ms {
                    out.push((g.format_move(&m), g.format_pos(&g.apply(&p, &m))));
                }
            }
            Ok(out)
        }))
    }

    /// The position after the move `mv`; raises `ParseError` if the move
    /// is malformed or illegal (or the game is over).
    fn apply(&self, pos: &str, mv: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| {
            let p = parse(g, pos)?;
            if g.game_end(&p).is_some() {
                return Err(ParseError::illegal_move(format!(
                    "illegal move '{mv}': the game is over"
                ))
                .into());
            }
            let m = g.parse_move(&p, mv)?;
            Ok(g.format_pos(&g.apply(&p, &m)))
        }))
    }

    /// The position after a time-out pass (same board, the other side to
    /// move; in weiming the shared piece is freed). Named `pass_turn`
    /// because `pass` is a Python keyword.
    fn pass_turn(&self, pos: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| Ok(
            g.format_pos(&g.pass(&parse(g, pos)?))
        )))
    }

    /// How the game ends in `pos` (a `GameEnd`: the value for the side to
    /// move and the reason), or `None` if it goes on.
    fn result(&self, pos: &str) -> PyResult<Option<GameEnd>> {
        with_game!(self.game, |g| held(|| {
            let p = parse(g, pos)?;
            Ok(g.game_end(&p).map(|e| GameEnd {
                value: Value::of(e.value),
                reason: g.describe_end(e.reason),
            }))
        }))
    }

    /// The number of move sequences of length `depth` from `pos` (a
    /// finished game is not expanded). Runs without the GIL.
    fn perft(&self, py: Python<'_>, pos: &str, depth: u32) -> PyResult<u64> {
        let game = self.game;
        let pos = pos.to_string();
        released(py, move || {
            with_game!(game, |g| {
                let p = parse(g, &pos)?;
                Ok(qibase::perft(g, &p, depth))
            })
        })
    }

    /// A text diagram of `pos` (as `qibase show`).
    fn diagram(&self, pos: &str) -> PyResult<String> {
        with_game!(self.game, |g| held(|| Ok(g.diagram(&parse(g, pos)?, None))))
    }

    /// The tier (material class) key of `pos`.
    fn tier_of(&self, pos: &str) -> PyResult<TierKey> {
        with_game!(self.game, |g| held(|| Ok(g.tier_of(&parse(g, pos)?))))
    }

    /// The tiers of the game, or of its closed subset with at most
    /// `max_pieces` pieces a side (soldiers, for the cannon games), in
    /// solving order, as `(key, name)` pairs.
    #[pyo3(signature = (max_pieces=None))]
    fn tier_names(&self, max_pieces: Option<u32>) -> Vec<(TierKey, String)> {
        with_game!(self.game, |g| g
            .tiers(max_pieces)
            .into_iter()
            .map(|t| (t, g.tier_name(t)))
            .collect())
    }

    fn __repr__(&self) -> String {
        format!("qibase.Game({:?})", self.variant())
    }

    fn __str__(&self) -> String {
        self.variant()
    }
}

// ----- values ---------------------------------------------------------------

/// An exact value for the side to move: `wdl` is 1 (win), 0 (draw) or -1
/// (loss); `remoteness` the plies to the end with perfect play, `None` for
/// a draw. `str(v)` is `"win 7"`, `"draw"` or `"loss 12"`.
#[pyclass(frozen, module = "qibase")]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Value {
    v: RsValue,
}

impl Value {
    fn of(v: RsValue) -> Value {
        Value { v }
    }
}

fn wdl_int(v: RsValue) -> i8 {
    match v {
        RsValue::Win(_) => 1,
        RsValue::Draw => 0,
        RsValue::Loss(_) => -1,
    }
}

#[pymethods]
impl Value {
    /// The value from its text (`"win 7"`, `"draw"`, `"loss 0"`).
    #[new]
    fn new(text: &str) -> PyResult<Value> {
        text.parse::<RsValue>()
            .map(Value::of)
            .map_err(|e| exception("ParseError", e.to_string(), None))
    }

    /// 1 for a win, 0 for a draw, -1 for a loss.
    #[getter]
    fn wdl(&self) -> i8 {
        wdl_int(self.v)
    }

    /// Plies to the end with perfect play; `None` for a draw.
    #[getter]
    fn remoteness(&self) -> Option<u16> {
        self.v.remoteness()
    }

    /// `"win"`, `"draw"` or `"loss"`.
    #[getter]
    fn category(&self) -> &'static str {
        match self.v {
            RsValue::Win(_) => "win",
            RsValue::Draw => "draw",
            RsValue::Loss(_) => "loss",
        }
    }

    /// Values compare as outcomes for the side to move: a faster win is
    /// better than a slower one, a draw better than any loss, a slower loss
    /// better than a faster one.
    fn __richcmp__(&self, other: &Bound<'_, PyAny>, op: CompareOp) -> Py<PyAny> {
        let py = other.py();
        let Ok(other) = other.extract::<PyRef<'_, Value>>() else {
            return py.NotImplemented();
        };
        op.matches(self.v.cmp(&other.v))
            .into_pyobject(py)
            .map_or_else(|_| py.None(), |b| b.to_owned().into_any().unbind())
    }

    fn __hash__(&self) -> u64 {
        u64::from(self.v.pack().to_bits())
    }

    fn __str__(&self) -> String {
        self.v.to_string()
    }

    fn __repr__(&self) -> String {
        format!("qibase.Value({:?})", self.v.to_string())
    }
}

/// How a game ends: the value for the side to move and why.
#[pyclass(frozen, get_all, module = "qibase")]
#[derive(Clone)]
struct GameEnd {
    /// The value for the side to move.
    value: Value,
    /// Why the game is over, in words.
    reason: String,
}

#[pymethods]
impl GameEnd {
    fn __repr__(&self) -> String {
        format!(
            "qibase.GameEnd(value={}, reason={:?})",
            self.value.v, self.reason
        )
    }
}

/// One legal move with its exact value.
#[pyclass(frozen, get_all, module = "qibase")]
#[derive(Clone)]
struct MoveValue {
    /// The move in the game's notation.
    r#move: String,
    /// The position after the move.
    position: String,
    /// The move's value from the mover's view (counting the move itself).
    value: Value,
}

#[pymethods]
impl MoveValue {
    fn __repr__(&self) -> String {
        format!(
            "qibase.MoveValue(move={:?}, value={}, position={:?})",
            self.r#move, self.value.v, self.position
        )
    }
}

fn move_value<G: RsGame>(g: &G, m: &MoveInfo<G>) -> MoveValue {
    MoveValue {
        r#move: m.text.clone(),
        position: g.format_pos(&m.after),
        value: Value::of(m.value),
    }
}

/// One tier of a game in a tablebase directory.
#[pyclass(frozen, get_all, module = "qibase")]
#[derive(Clone)]
struct TierInfo {
    /// The tier's key (what `tier_values` and `position_of` take).
    key: TierKey,
    /// The tier's name, also its file name (`3v2`).
    name: String,
    /// Index slots (the length of `tier_values`' arrays).
    slots: u64,
    /// Used slots (positions up to symmetry) as the file's header says;
    /// `None` if the tier is not solved.
    used: Option<u64>,
    /// Whether the tier's file is there (and readable).
    solved: bool,
    /// The most pieces of one side in the tier (soldiers, for the cannon games).
    max_pieces: u32,
}

#[pymethods]
impl TierInfo {
    fn __repr__(&self) -> String {
        format!(
            "qibase.TierInfo(key={}, name={:?}, slots={}, used={}, solved={})",
            self.key,
            self.name,
            self.slots,
            self.used.map_or("None".to_string(), |u| u.to_string()),
            if self.solved { "True" } else { "False" }
        )
    }
}

// ----- tablebases -----------------------------------------------------------

/// A prober of one game, borrowing its game for the process's lifetime.
enum AnyTb {
    CannonChess(RsTablebase<'static, qibase::CannonChess>),
    Weiming(RsTablebase<'static, qibase::Weiming>),
    Cannons(RsTablebase<'static, qibase::Cannons>),
}

macro_rules! with_tb {
    ($any:expr, |$g:ident, $tb:ident| $body:expr) => {
        match $any {
            AnyTb::CannonChess(ref $tb) => {
                let $g = $tb.game();
                $body
            }
            AnyTb::Weiming(ref $tb) => {
                let $g = $tb.game();
                $body
            }
            AnyTb::Cannons(ref $tb) => {
                let $g = $tb.game();
                $body
            }
        }
    };
}

impl AnyTb {
    fn open(game: &'static AnyGame, dir: &Path) -> AnyTb {
        match game {
            AnyGame::CannonChess(g) => AnyTb::CannonChess(RsTablebase::open(g, dir)),
            AnyGame::Weiming(g) => AnyTb::Weiming(RsTablebase::open(g, dir)),
            AnyGame::Cannons(g) => AnyTb::Cannons(RsTablebase::open(g, dir)),
        }
    }
}

/// The library's analysis reads values through an oracle: this one probes
/// the tablebase.
struct Probe<'a, G: RsGame + 'static>(&'a RsTablebase<'static, G>);

impl<G: RsGame> Oracle<G> for Probe<'_, G> {
    fn value(&self, p: &G::Pos) -> Result<RsValue, LookupError> {
        Ok(self.0.probe(p)?)
    }
}

/// A tier key argument: the key (int) or the tier's name (str).
fn tier_key<G: RsGame>(g: &G, key: &TierKeyArg) -> PyResult<TierKey> {
    let tiers = g.tiers(None);
    match key {
        TierKeyArg::Key(k) if tiers.contains(k) => Ok(*k),
        TierKeyArg::Name(n) => tiers
            .iter()
            .copied()
            .find(|&t| g.tier_name(t) == *n)
            .ok_or_else(|| PyValueError::new_err(format!("{} has no tier named {n:?}", g.id()))),
        TierKeyArg::Key(k) => Err(PyValueError::new_err(format!(
            "{} has no tier with key {k}",
            g.id()
        ))),
    }
}

#[derive(FromPyObject)]
enum TierKeyArg {
    #[pyo3(transparent, annotation = "int")]
    Key(TierKey),
    #[pyo3(transparent, annotation = "str")]
    Name(String),
}

/// The texts of a batch of positions, copied into one buffer: one
/// allocation for the whole batch instead of a `String` per position,
/// since a batch probe is about as cheap per position as the copy.
struct PositionTexts {
    text: String,
    ends: Vec<usize>,
}

impl PositionTexts {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

/// Positions as a sequence of strings (a lone string is refused: it would
/// be read as a sequence of characters). Each string's UTF-8 is borrowed
/// from Python and copied once into the batch's buffer.
fn positions_arg(obj: &Bound<'_, PyAny>) -> PyResult<PositionTexts> {
    if obj.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "positions must be a sequence of strings, not one string",
        ));
    }
    let n = obj.len().unwrap_or(0);
    let mut texts = PositionTexts {
        // Positions of today's games are 20-40 bytes.
        text: String::with_capacity(n * 32),
        ends: Vec::with_capacity(n),
    };
    let mut push = |item: &Bound<'_, PyAny>| -> PyResult<()> {
        let s = item.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "positions must be strings, got {}",
                item.get_type()
                    .name()
                    .map_or_else(|_| "an object".to_string(), |n| n.to_string())
            ))
        })?;
        texts.text.push_str(s.to_str()?);
        texts.ends.push(texts.text.len());
        Ok(())
    };
    // Lists (the common case) are read by index, other sequences and
    // iterables through the iterator protocol.
    if let Ok(list) = obj.cast::<PyList>() {
        for item in list.iter() {
            push(&item)?;
        }
    } else {
        for item in obj.try_iter()? {
            push(&item?)?;
        }
    }
    Ok(texts)
}

/// Parse every position (in parallel); the first bad one is the error,
/// naming its index.
fn parse_all<G: RsGame>(g: &G, positions: &PositionTexts) -> Res<Vec<G::Pos>> {
    (0..positions.len())
        .into_par_iter()
        .map(|i| {
            let s = positions.get(i);
            g.parse_pos(s).map_err(|e| {
                Failure::Parse(match e {
                    ParseError::IllegalPosition { message } => {
                        ParseError::illegal_position(format!("position {i} ({s:?}): {message}"))
                    }
                    e => ParseError::malformed_position(format!("position {i} ({s:?}): {e}")),
                })
            })
        })
        .collect()
}

/// The solved tables of games under one directory, opened with
/// `qibase.open_tablebase(dir)` (a context manager). Every method takes
/// the game as a `Game` or a variant string. Lookups of a tier that is
/// not solved raise `MissingTableError` (a `KeyError`); the `get…`
/// methods return `None` instead.
#[pyclass(frozen, module = "qibase")]
struct Tablebase {
    dir: PathBuf,
    open: Mutex<HashMap<usize, Arc<AnyTb>>>,
    closed: AtomicBool,
}

impl Tablebase {
    fn tb(&self, game: &Bound<'_, PyAny>) -> PyResult<Arc<AnyTb>> {
        let g = game_arg(game)?;
        if self.closed.load(Ordering::Acquire) {
            return Err(PyValueError::new_err("the tablebase is closed"));
        }
        let mut map = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let key = g as *const AnyGame as usize;
        Ok(map
            .entry(key)
            .or_insert_with(|| Arc::new(AnyTb::open(g, &self.dir)))
            .clone())
    }
}

fn missing_to_none<T>(r: PyResult<T>, py: Python<'_>) -> PyResult<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) => {
            let missing = py.import("qibase._errors")?.getattr("MissingTableError")?;
            if e.is_instance(py, &missing) {
                Ok(None)
            } else {
                Err(e)
            }
        }
    }
}

#[pymethods]
impl Tablebase {
    /// The tablebase directory.
    #[getter]
    fn directory(&self) -> String {
        self.dir.display().to_string()
    }

    /// The exact value of `pos` for the side to move.
    fn probe(&self, game: &Bound<'_, PyAny>, pos: &str) -> PyResult<Value> {
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, tb| held(|| Ok(Value::of(
            tb.probe(&parse(g, pos)?)?
        ))))
    }

    /// Win (1), draw (0) or loss (-1) of `pos` for the side to move (reads
    /// only the WDL stream: faster than `probe`).
    fn probe_wdl(&self, game: &Bound<'_, PyAny>, pos: &str) -> PyResult<i8> {
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, tb| held(|| {
            let w = tb.probe_wdl(&parse(g, pos)?)?;
            Ok(wdl_int(match w {
                qibase::Wdl::Win => RsValue::Win(0),
                qibase::Wdl::Draw => RsValue::Draw,
                qibase::Wdl::Loss => RsValue::Loss(0),
            }))
        }))
    }

    /// `probe`, but `None` where the tier is not solved (where `probe`
    /// raises `MissingTableError`), as python-chess's `get_wdl`.
    fn get(&self, py: Python<'_>, game: &Bound<'_, PyAny>, pos: &str) -> PyResult<Option<Value>> {
        missing_to_none(self.probe(game, pos), py)
    }

    /// `probe_wdl`, but `None` where the tier is not solved.
    fn get_wdl(&self, py: Python<'_>, game: &Bound<'_, PyAny>, pos: &str) -> PyResult<Option<i8>> {
        missing_to_none(self.probe_wdl(game, pos), py)
    }

    /// Every legal move of `pos` with its value for the mover, best first
    /// (fastest win, then draws, then the longest loss; equal values in
    /// notation order), as `MoveValue`s. Empty when the game is over.
    fn moves(&self, game: &Bound<'_, PyAny>, pos: &str) -> PyResult<Vec<MoveValue>> {
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, tb| held(|| {
            let a = analyse(g, &Probe(tb), &parse(g, pos)?)?;
            Ok(a.moves.iter().map(|m| move_value(g, m)).collect())
        }))
    }

    /// The program's move in `pos` at a difficulty (`"perfect"`, `"hard"`,
    /// `"medium"`, `"easy"`; see the README), or `None` if the game is
    /// over. `seed` makes the random levels reproducible.
    #[pyo3(signature = (game, pos, difficulty="perfect", seed=None))]
    fn best_move(
        &self,
        game: &Bound<'_, PyAny>,
        pos: &str,
        difficulty: &str,
        seed: Option<u64>,
    ) -> PyResult<Option<String>> {
        let level: Difficulty = difficulty
            .parse()
            .map_err(|e: qibase::ai::UnknownDifficulty| PyValueError::new_err(e.to_string()))?;
        let seed = seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        });
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, tb| held(|| {
            let mut rng = Rng::new(seed);
            let (a, i) = qibase::ai::choose(g, &Probe(tb), &parse(g, pos)?, level, &mut rng)?;
            Ok(i.map(|i| a.moves[i].text.clone()))
        }))
    }

    /// The principal variation from `pos`: the line of best moves, as
    /// `MoveValue`s (for a draw, its first plies, as the CLI's `query`).
    fn pv(&self, game: &Bound<'_, PyAny>, pos: &str) -> PyResult<Vec<MoveValue>> {
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, tb| held(|| {
            let line = principal_variation(g, &Probe(tb), &parse(g, pos)?)?;
            Ok(line.iter().map(|m| move_value(g, m)).collect())
        }))
    }

    /// `probe` of many positions in one call, as a list of `Value`s: runs
    /// without the GIL on the library's threads. The first failure (a bad
    /// position, naming its index, or a missing tier) is raised.
    fn probe_many(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Value>> {
        let tb = self.tb(game)?;
        let positions = positions_arg(positions)?;
        released(py, move || {
            with_tb!(*tb, |g, tb| {
                let ps = parse_all(g, &positions)?;
                ps.par_iter()
                    .map(|p| Ok(Value::of(tb.probe(p)?)))
                    .collect::<Res<Vec<_>>>()
            })
        })
    }

    /// `probe` of many positions into numpy arrays `(wdl, remoteness)`:
    /// int8 (1 win, 0 draw, -1 loss) and int16 (plies; -1 for a draw).
    /// Runs without the GIL on the library's threads.
    fn probe_array<'py>(
        &self,
        py: Python<'py>,
        game: &Bound<'py, PyAny>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<ValueArrays<'py>> {
        let tb = self.tb(game)?;
        let positions = positions_arg(positions)?;
        let (w, r) = released(py, move || {
            with_tb!(*tb, |g, tb| {
                let ps = parse_all(g, &positions)?;
                let vals = ps
                    .par_iter()
                    .map(|p| tb.probe(p).map_err(Failure::from))
                    .collect::<Res<Vec<_>>>()?;
                Ok(split(&vals))
            })
        })?;
        Ok((w.into_pyarray(py), r.into_pyarray(py)))
    }

    /// `probe_wdl` of many positions into an int8 numpy array. Runs
    /// without the GIL on the library's threads.
    fn probe_wdl_array<'py>(
        &self,
        py: Python<'py>,
        game: &Bound<'py, PyAny>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i8>>> {
        let tb = self.tb(game)?;
        let positions = positions_arg(positions)?;
        let w = released(py, move || {
            with_tb!(*tb, |g, tb| {
                let ps = parse_all(g, &positions)?;
                ps.par_iter()
                    .map(|p| {
                        Ok(match tb.probe_wdl(p)? {
                            qibase::Wdl::Win => 1i8,
                            qibase::Wdl::Draw => 0,
                            qibase::Wdl::Loss => -1,
                        })
                    })
                    .collect::<Res<Vec<_>>>()
            })
        })?;
        Ok(w.into_pyarray(py))
    }

    /// The values of many slots of one tier (a uint64 numpy array of slot
    /// indices, as `tier_values` numbers them) into numpy arrays `(wdl,
    /// remoteness)` as `probe_array`: the lookup without parsing. An
    /// unused slot reads as a draw. Runs without the GIL.
    fn probe_slots<'py>(
        &self,
        py: Python<'py>,
        game: &Bound<'py, PyAny>,
        key: TierKeyArg,
        slots: PyReadonlyArray1<'py, u64>,
    ) -> PyResult<ValueArrays<'py>> {
        let tb = self.tb(game)?;
        let t = with_tb!(*tb, |g, _tb| tier_key(g, &key))?;
        let slots: Vec<u64> = slots.as_slice()?.to_vec();
        let (w, r) = released(py, move || {
            with_tb!(*tb, |g, tb| {
                let n = g.tier_size(t);
                if let Some(bad) = slots.iter().find(|&&s| s >= n) {
                    return Err(Failure::Py(PyIndexError::new_err(format!(
                        "slot {bad} out of range: tier {} has {n} slots",
                        g.tier_name(t)
                    ))));
                }
                let f = tb.tier_file(t)?;
                let vals = slots
                    .par_iter()
                    .map(|&s| Ok(f.get(s)?.value().unwrap_or(RsValue::Draw)))
                    .collect::<Res<Vec<_>>>()?;
                Ok(split(&vals))
            })
        })?;
        Ok((w.into_pyarray(py), r.into_pyarray(py)))
    }

    /// The tiers of the game with what the directory holds of each, in
    /// solving order, as `TierInfo`s. A damaged tier file raises
    /// `CorruptTableError`.
    fn tiers(&self, game: &Bound<'_, PyAny>) -> PyResult<Vec<TierInfo>> {
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, tb| held(|| {
            let mut out = Vec::new();
            for t in g.tiers(None) {
                let used = if tb.store().has_file(t) {
                    let f = tb.tier_file(t)?;
                    let m = f.meta();
                    Some(m.positions - m.stats.unused)
                } else {
                    None
                };
                out.push(TierInfo {
                    key: t,
                    name: g.tier_name(t),
                    slots: g.tier_size(t),
                    used,
                    solved: used.is_some(),
                    max_pieces: g.tier_max_pieces(t),
                });
            }
            Ok(out)
        }))
    }

    /// A whole tier as numpy arrays `(wdl, remoteness, used)`: int8 WDL (1
    /// win, 0 draw, -1 loss; 0 for unused slots), int16 remoteness (plies;
    /// -1 for draws and unused slots) and a bool mask of the used slots,
    /// indexed by slot (`position_of` gives the position of a slot). The
    /// file is decoded whole, on the library's threads, without the GIL.
    fn tier_values<'py>(
        &self,
        py: Python<'py>,
        game: &Bound<'py, PyAny>,
        key: TierKeyArg,
    ) -> PyResult<TierArrays<'py>> {
        let tb = self.tb(game)?;
        let t = with_tb!(*tb, |g, _tb| tier_key(g, &key))?;
        let (w, r, m) = released(py, move || {
            with_tb!(*tb, |g, tb| {
                let values = tb.store().load(t)?;
                const CHUNK: usize = 1 << 14;
                let mut mask = vec![false; values.len()];
                mask.par_chunks_mut(CHUNK).enumerate().for_each(|(c, m)| {
                    let lo = (c * CHUNK) as u64;
                    let mut used = Vec::new();
                    g.used_slots(t, lo..lo + m.len() as u64, &mut used);
                    for (i, _) in used {
                        m[(i - lo) as usize] = true;
                    }
                });
                let (w, r): (Vec<i8>, Vec<i16>) = values
                    .par_iter()
                    .zip(mask.par_iter())
                    .map(|(v, &used)| match v.value() {
                        Some(v) if used => (wdl_int(v), v.remoteness().map_or(-1, |r| r as i16)),
                        _ => (0, -1),
                    })
                    .unzip();
                Ok((w, r, mask))
            })
        })?;
        Ok((w.into_pyarray(py), r.into_pyarray(py), m.into_pyarray(py)))
    }

    /// The position in slot `slot` of tier `key` (its canonical
    /// representative under the game's symmetries), or `None` for an
    /// unused slot; `IndexError` outside the tier.
    fn position_of(
        &self,
        game: &Bound<'_, PyAny>,
        key: TierKeyArg,
        slot: u64,
    ) -> PyResult<Option<String>> {
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, _tb| {
            let t = tier_key(g, &key)?;
            let n = g.tier_size(t);
            if slot >= n {
                return Err(PyIndexError::new_err(format!(
                    "slot {slot} out of range: tier {} has {n} slots",
                    g.tier_name(t)
                )));
            }
            held(|| {
                let p = g.unrank(t, slot);
                Ok((g.rank(t, &p) == slot).then(|| g.format_pos(&p)))
            })
        })
    }

    /// `(tier key, slot)` of `pos`: where its value is in `tier_values`.
    /// Positions equal under the game's symmetries share a slot.
    fn slot_of(&self, game: &Bound<'_, PyAny>, pos: &str) -> PyResult<(TierKey, u64)> {
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, _tb| held(|| {
            let p = parse(g, pos)?;
            let t = g.tier_of(&p);
            Ok((t, g.rank(t, &p)))
        }))
    }

    /// Close the tablebase: later calls raise `ValueError`. The files are
    /// unmapped once no batch still uses them.
    fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.open.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        format!(
            "qibase.open_tablebase({:?})",
            self.dir.display().to_string()
        )
    }
}

/// WDL (int8) and remoteness (int16) arrays.
type ValueArrays<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i16>>);
/// WDL, remoteness and used-slot mask of a whole tier.
type TierArrays<'py> = (
    Bound<'py, PyArray1<i8>>,
    Bound<'py, PyArray1<i16>>,
    Bound<'py, PyArray1<bool>>,
);

fn split(vals: &[RsValue]) -> (Vec<i8>, Vec<i16>) {
    vals.iter()
        .map(|&v| (wdl_int(v), v.remoteness().map_or(-1, |r| r as i16)))
        .unzip()
}

/// Open the tablebase directory `directory` (the CLI's `--dir`: it holds
/// one subdirectory per game). Raises `FileNotFoundError` (as
/// `qibase.TablebaseIOError`) if it does not exist. Use it as a context
/// manager: `with qibase.open_tablebase("tablebases") as tb: ...`.
#[pyfunction]
fn open_tablebase(directory: PathBuf) -> PyResult<Tablebase> {
    if !directory.is_dir() {
        return Err(exception(
            "TablebaseNotFound",
            format!("{}: no such tablebase directory", directory.display()),
            Some(directory),
        ));
    }
    Ok(Tablebase {
        dir: directory,
        open: Mutex::new(HashMap::new()),
        closed: AtomicBool::new(false),
    })
}

/// The ids of the preset games.
#[pyfunction]
fn games() -> Vec<&'static str> {
    qibase::GAME_IDS.to_vec()
}

// ----- solving --------------------------------------------------------------

/// Tells the Python callback about each tier, and stops the solve when
/// Python asks (Ctrl-C, or an exception raised by the callback).
struct PyObserver {
    progress: Option<Py<PyAny>>,
    tiers: usize,
    started: AtomicUsize,
    stop: AtomicBool,
    error: Mutex<Option<PyErr>>,
}

impl PyObserver {
    fn fail(&self, e: PyErr) {
        let mut slot = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        self.stop.store(true, Ordering::Release);
    }

    fn call(&self, make: impl FnOnce(Python<'_>) -> PyResult<Bound<'_, PyDict>>) {
        let Some(cb) = &self.progress else { return };
        if self.stop.load(Ordering::Acquire) {
            return;
        }
        Python::attach(|py| {
            if let Err(e) = make(py).and_then(|d| cb.call1(py, (d,))) {
                self.fail(e);
            }
        });
    }
}

impl SolveObserver for PyObserver {
    fn tier_started(&self, name: &str, slots: u64) {
        let index = self.started.fetch_add(1, Ordering::AcqRel);
        self.call(|py| {
            let d = PyDict::new(py);
            d.set_item("event", "started")?;
            d.set_item("tier", name)?;
            d.set_item("slots", slots)?;
            d.set_item("index", index)?;
            d.set_item("tiers", self.tiers)?;
            Ok(d)
        });
    }

    fn tier_solved(&self, r: &TierReport) {
        let index = self.started.load(Ordering::Acquire).saturating_sub(1);
        self.call(|py| {
            let d = PyDict::new(py);
            d.set_item("event", "solved")?;
            d.set_item("tier", &r.name)?;
            d.set_item("slots", r.slots)?;
            d.set_item("index", index)?;
            d.set_item("tiers", self.tiers)?;
            d.set_item("seconds", r.stats.seconds)?;
            d.set_item("wins", r.stats.wins)?;
            d.set_item("losses", r.stats.losses)?;
            d.set_item("draws", r.stats.draws)?;
            Ok(d)
        });
    }

    fn should_stop(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}

fn report_dict<'py>(py: Python<'py>, r: &TierReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("tier", &r.name)?;
    d.set_item("key", r.tier)?;
    d.set_item("slots", r.slots)?;
    d.set_item("positions", r.positions)?;
    d.set_item("skipped", r.skipped)?;
    d.set_item("seconds", r.stats.seconds)?;
    d.set_item("wins", r.stats.wins)?;
    d.set_item("losses", r.stats.losses)?;
    d.set_item("draws", r.stats.draws)?;
    d.set_item("max_win", r.stats.max_win)?;
    d.set_item("max_loss", r.stats.max_loss)?;
    d.set_item("windows", r.windows)?;
    Ok(d)
}

fn solve_any(
    game: &'static AnyGame,
    opts: &SolveOptions,
    obs: &PyObserver,
) -> Res<Vec<TierReport>> {
    with_game!(game, |g| solve_game(g, opts, obs).map_err(Failure::Solve))
}

/// Solve `variant` into `directory` (as `qibase solve`): one file per
/// tier, finished tiers skipped, so an interrupted solve resumes. Runs
/// without the GIL (other Python threads go on). `max_pieces` solves the
/// closed subset with at most that many pieces a side; `threads` the
/// number of solver threads (default: all cores). `progress(event)` is
/// called with a dict per tier (`event` `"started"` or `"solved"`,
/// `tier`, `slots`, `index`, `tiers`, and for `"solved"` `seconds`,
/// `wins`, `losses`, `draws`). Ctrl-C (`KeyboardInterrupt`) or an
/// exception from the callback stops the solve within moments: the tier
/// being solved is given up, the finished ones stay on disk, and a later
/// solve resumes. `memory` bounds the bytes the solve holds: tiers that
/// do not fit are solved out of core, to the same tables. Returns one
/// dict per tier.
#[pyfunction]
#[pyo3(signature = (variant, directory, max_pieces=None, threads=None, progress=None, memory=None))]
fn solve<'py>(
    py: Python<'py>,
    variant: &Bound<'py, PyAny>,
    directory: PathBuf,
    max_pieces: Option<u32>,
    threads: Option<usize>,
    progress: Option<Py<PyAny>>,
    memory: Option<u64>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let game = game_arg(variant)?;
    if let Some(cb) = &progress {
        if !cb.bind(py).is_callable() {
            return Err(PyTypeError::new_err("progress must be callable"));
        }
    }
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    if memory == Some(0) {
        return Err(PyValueError::new_err("memory must be at least 1 byte"));
    }
    let tiers = with_game!(game, |g| g.tiers(max_pieces).len());
    let obs = PyObserver {
        progress,
        tiers,
        started: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        error: Mutex::new(None),
    };
    let opts = SolveOptions {
        dir: directory,
        max_pieces,
        memory,
    };
    let result = released(py, || {
        let pool = match threads {
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| Failure::Other(e.to_string()))?,
            ),
            None => None,
        };
        // The solve runs on its own thread; this one waits, checking for
        // Ctrl-C (Python runs signal handlers on the main thread only).
        std::thread::scope(|s| {
            let worker = s.spawn(|| {
                guarded(|| match &pool {
                    Some(p) => p.install(|| solve_any(game, &opts, &obs)),
                    None => solve_any(game, &opts, &obs),
                })
            });
            while !worker.is_finished() {
                std::thread::sleep(Duration::from_millis(20));
                if !obs.stop.load(Ordering::Acquire) {
                    if let Err(e) = Python::attach(|py| py.check_signals()) {
                        obs.fail(e);
                    }
                }
            }
            worker
                .join()
                .unwrap_or_else(|p| Err(Failure::Panic(panic_message(p))))
        })
    });
    // A callback's exception or Ctrl-C wins over the `Stopped` it caused.
    if let Some(e) = obs.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
        return Err(e);
    }
    let reports = result?;
    reports.iter().map(|r| report_dict(py, r)).collect()
}

/// Raises a Rust panic inside the library's boundary, for the tests of
/// panic handling (it must come out as `qibase.InternalError`).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, released_gil: bool) -> PyResult<()> {
    if released_gil {
        released(py, || -> Res<()> { panic!("a test panic without the GIL") })
    } else {
        held(|| -> Res<()> { panic!("a test panic") })
    }
}

/// The extension module.
#[pymodule]
fn _qibase(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(open_tablebase, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_class::<Game>()?;
    m.add_class::<Value>()?;
    m.add_class::<GameEnd>()?;
    m.add_class::<MoveValue>()?;
    m.add_class::<TierInfo>()?;
    m.add_class::<Tablebase>()?;
    Ok(())
}
