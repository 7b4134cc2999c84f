//! `qibase.Tablebase`: lookups, one by one or in batches, over the
//! library's erased prober ([`AnyTablebase`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use rayon::prelude::*;

use crate::errors::{exception, held, released, Failure, Res};
use crate::game::{game_arg, parse};
use crate::value::{move_value, wdl_int, MoveValue, TierInfo, Value};
use qibase::ai::Difficulty;
use qibase::analysis::{analyse, principal_variation};
use qibase::games::{AnyGame, AnyTablebase};
use qibase::{
    with_tb, Game as RsGame, Notation, ParseError, Rng, TierKey, Tiers, Value as RsValue,
};

/// A tier key argument: the key (int) or the tier's name (str).
pub(crate) fn tier_key<G: RsGame>(g: &G, key: &TierKeyArg) -> PyResult<TierKey> {
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
pub(crate) enum TierKeyArg {
    #[pyo3(transparent, annotation = "int")]
    Key(TierKey),
    #[pyo3(transparent, annotation = "str")]
    Name(String),
}

/// The texts of a batch of positions, copied into one buffer: one
/// allocation for the whole batch instead of a `String` per position,
/// since a batch probe is about as cheap per position as the copy.
pub(crate) struct PositionTexts {
    pub(crate) text: String,
    pub(crate) ends: Vec<usize>,
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
pub(crate) fn positions_arg(obj: &Bound<'_, PyAny>) -> PyResult<PositionTexts> {
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
pub(crate) fn parse_all<G: RsGame>(g: &G, positions: &PositionTexts) -> Res<Vec<G::Pos>> {
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
pub(crate) struct Tablebase {
    pub(crate) dir: PathBuf,
    pub(crate) open: Mutex<HashMap<usize, Arc<AnyTablebase<'static>>>>,
    pub(crate) closed: AtomicBool,
}

impl Tablebase {
    fn tb(&self, game: &Bound<'_, PyAny>) -> PyResult<Arc<AnyTablebase<'static>>> {
        let g = game_arg(game)?;
        if self.closed.load(Ordering::Acquire) {
            return Err(PyValueError::new_err("the tablebase is closed"));
        }
        let mut map = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let key = g as *const AnyGame as usize;
        Ok(map
            .entry(key)
            .or_insert_with(|| Arc::new(AnyTablebase::open(g, &self.dir)))
            .clone())
    }
}

pub(crate) fn missing_to_none<T>(r: PyResult<T>, py: Python<'_>) -> PyResult<Option<T>> {
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
            let a = analyse(g, tb, &parse(g, pos)?)?;
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
            let (a, i) = qibase::ai::choose(g, tb, &parse(g, pos)?, level, &mut rng)?;
            Ok(i.map(|i| a.moves[i].text.clone()))
        }))
    }

    /// The principal variation from `pos`: the line of best moves, as
    /// `MoveValue`s (for a draw, its first plies, as the CLI's `query`).
    fn pv(&self, game: &Bound<'_, PyAny>, pos: &str) -> PyResult<Vec<MoveValue>> {
        let tb = self.tb(game)?;
        with_tb!(*tb, |g, tb| held(|| {
            let line = principal_variation(g, tb, &parse(g, pos)?)?;
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
pub(crate) type ValueArrays<'py> = (Bound<'py, PyArray1<i8>>, Bound<'py, PyArray1<i16>>);
/// WDL, remoteness and used-slot mask of a whole tier.
pub(crate) type TierArrays<'py> = (
    Bound<'py, PyArray1<i8>>,
    Bound<'py, PyArray1<i16>>,
    Bound<'py, PyArray1<bool>>,
);

pub(crate) fn split(vals: &[RsValue]) -> (Vec<i8>, Vec<i16>) {
    vals.iter()
        .map(|&v| (wdl_int(v), v.remoteness().map_or(-1, |r| r as i16)))
        .unzip()
}

/// Open the tablebase directory `directory` (the CLI's `--dir`: it holds
/// one subdirectory per game). Raises `FileNotFoundError` (as
/// `qibase.TablebaseIOError`) if it does not exist. Use it as a context
/// manager: `with qibase.open_tablebase("tablebases") as tb: ...`.
#[pyfunction]
pub(crate) fn open_tablebase(directory: PathBuf) -> PyResult<Tablebase> {
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
pub(crate) fn games() -> Vec<&'static str> {
    qibase::games::GAME_IDS.to_vec()
}
