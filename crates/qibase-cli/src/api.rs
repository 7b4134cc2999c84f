//! The one JSON vocabulary of qibase: the answers of `query --json`,
//! `query -`, `moves --json`, `bestmove --json`, the `engine` and the HTTP
//! API are built here from the same serde types, so a field means the same
//! thing everywhere (documented in `docs/http-api.md` and
//! `docs/engine-protocol.md`).
//!
//! * a value is always three fields side by side: `value` (`"win 7"`,
//!   `"loss 3"`, `"draw"`), `category` (`win`/`draw`/`loss`) and
//!   `remoteness` (plies, `null` for a draw);
//! * `end` is `null` or why the game is over in a position;
//! * a move is `{move, position, value…, end}`, the same in every list;
//! * `pass` is the position after a time-out pass (play mode).

pub mod annotate;

use serde::{Deserialize, Serialize};

use qibase::ai::{choose, Difficulty, Rng, UnknownDifficulty};
use qibase::analysis::{analyse, principal_variation, LookupError, MoveInfo, Oracle};
use qibase::games::SpecError;
use qibase::{Game, GameEnd, InputKind, ParseError};
use qibase::{Value, Wdl};

/// Win, draw or loss.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Win,
    Draw,
    Loss,
}

/// A value as three JSON fields (flattened into the object holding it).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ValueJson {
    /// `win N`, `loss N` or `draw`.
    pub value: String,
    pub category: Category,
    /// Plies to the end with perfect play; `None` (null) for a draw.
    pub remoteness: Option<u16>,
}

impl From<Value> for ValueJson {
    fn from(v: Value) -> Self {
        ValueJson {
            value: v.to_string(),
            category: match v.wdl() {
                Wdl::Win => Category::Win,
                Wdl::Draw => Category::Draw,
                Wdl::Loss => Category::Loss,
            },
            remoteness: v.remoteness(),
        }
    }
}

/// Why the game is over in a position. The value is that position's,
/// from the view of its side to move (so always `loss 0`, `win 0` or `draw`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct EndJson {
    pub reason: String,
    #[serde(flatten)]
    pub value: ValueJson,
}

impl EndJson {
    /// The end `e` of a position of `g`, in the game's words.
    pub fn of<G: Game>(g: &G, e: GameEnd) -> Self {
        EndJson {
            reason: g.describe_end(e.reason),
            value: e.value.into(),
        }
    }
}

/// One legal move.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct MoveJson {
    /// In the notation of docs/rules.md, always `from-to` today.
    #[serde(rename = "move")]
    pub mv: String,
    /// The point the moving piece leaves (a point name of the notation;
    /// null for a move without one, a drop or a pass: no game has one today).
    pub from: Option<String>,
    /// The point it arrives on (null for a pass).
    pub to: Option<String>,
    /// The points whose pieces the move captures; absent when it captures
    /// nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub captured: Vec<String>,
    /// The position after the move.
    pub position: String,
    /// The pieces after the move: one character per point, in the order of
    /// the game's points (`/api/v1/games/{game}`), `.` for empty.
    pub board: String,
    /// The move's value from the mover's view, counting the move. Absent in
    /// `moves` answers (which need no tablebase) unless the move ends the game.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub value: Option<ValueJson>,
    /// Why the game is over after the move, if it is.
    pub end: Option<EndJson>,
}

/// The `from`, `to` and `captured` point names of the move `m` of `p`.
fn move_points<G: Game>(
    g: &G,
    p: &G::Pos,
    m: &G::Move,
) -> (Option<String>, Option<String>, Vec<String>) {
    let names = g.point_names();
    let name = |i: usize| names.get(i).cloned().unwrap_or_default();
    let mp = g.move_points(p, m);
    (
        mp.from.map(name),
        mp.to.map(name),
        mp.captured.into_iter().map(name).collect(),
    )
}

impl MoveJson {
    /// The move `m` played from `before`.
    fn of<G: Game>(g: &G, before: &G::Pos, m: &MoveInfo<G>) -> MoveJson {
        let (from, to, captured) = move_points(g, before, &m.mv);
        MoveJson {
            mv: m.text.clone(),
            from,
            to,
            captured,
            position: g.format_pos(&m.after),
            board: board_of(g, &m.after),
            value: Some(m.value.into()),
            end: g.game_end(&m.after).map(|e| EndJson::of(g, e)),
        }
    }
}

/// The answer of `query`: the value, every move's value best first, the
/// principal variation.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct QueryJson {
    pub game: String,
    pub position: String,
    /// Letter of the side to move.
    /// One character per point, in the game's point order.
    pub board: String,
    pub side_to_move: String,
    /// The position's value, from the side to move's view.
    #[serde(flatten)]
    pub value: ValueJson,
    pub end: Option<EndJson>,
    /// The first of `moves` (null if the game is over).
    pub best: Option<String>,
    /// Every legal move, best first: by value (fastest win, draw, longest
    /// loss), equal values in notation order.
    pub moves: Vec<MoveJson>,
    /// Both sides playing the first move of that order until the game ends
    /// (at most 40 plies for a draw); starts with `best`. Absent in `query -`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pv: Option<Vec<MoveJson>>,
    /// The position after a time-out pass (null if the game is over).
    pub pass: Option<String>,
}

/// The answer of `moves`: the rules only, no tablebase needed.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MovesJson {
    pub game: String,
    pub position: String,
    /// One character per point, in the game's point order.
    pub board: String,
    pub side_to_move: String,
    pub end: Option<EndJson>,
    /// Every legal move in move-generator order.
    pub moves: Vec<MoveJson>,
    pub pass: Option<String>,
}

/// The answer of `bestmove`: the program's move at a difficulty level.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct BestmoveJson {
    pub game: String,
    pub position: String,
    /// One character per point, in the game's point order.
    pub board: String,
    pub side_to_move: String,
    /// The position's value, from the side to move's view.
    #[serde(flatten)]
    pub value: ValueJson,
    pub end: Option<EndJson>,
    pub difficulty: String,
    /// The seed of this answer's random choices, if one was given.
    pub seed: Option<u64>,
    /// The chosen move (null if the game is over).
    #[serde(rename = "move")]
    pub mv: Option<MoveJson>,
    /// Whether the move keeps the position's exact value (null if no move).
    pub optimal: Option<bool>,
    pub pass: Option<String>,
}

/// Every error, everywhere: `{"error": "...", "code": "..."}`, plus the
/// offending input in `query -` and the command's `id` in the engine.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ErrorJson {
    pub error: String,
    pub code: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<String>,
}

/// Error codes: of bad input, of the server, and of the tablebase (those
/// follow the kinds of [`qibase::tablebase::TbError`], one per kind).
pub mod code {
    use qibase::analysis::LookupError;
    use qibase::tablebase::TbError;

    pub const BAD_POSITION: &str = "bad_position";
    pub const BAD_MOVE: &str = "bad_move";
    pub const BAD_DIFFICULTY: &str = "bad_difficulty";
    pub const BAD_SEED: &str = "bad_seed";
    pub const BAD_REQUEST: &str = "bad_request";
    pub const UNKNOWN_GAME: &str = "unknown_game";
    pub const NOT_FOUND: &str = "not_found";
    pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
    pub const TIMEOUT: &str = "timeout";
    pub const TOO_LARGE: &str = "too_large";
    pub const INTERNAL: &str = "internal";
    /// A tier is not solved ([`TbError::NotSolved`], or a tier outside
    /// a subset solved in memory).
    pub const NOT_SOLVED: &str = "not_solved";
    /// A damaged tier file ([`TbError::Corrupt`]).
    pub const CORRUPT_TABLEBASE: &str = "corrupt_tablebase";
    /// A tier file of another game, rules or format version
    /// ([`TbError::Foreign`], [`TbError::Version`]).
    pub const FOREIGN_TABLEBASE: &str = "foreign_tablebase";
    /// The operating system failed to read a tier file ([`TbError::Io`]).
    pub const IO_ERROR: &str = "io_error";

    /// The code of a tablebase error: one per kind.
    pub fn of_tablebase(e: &TbError) -> &'static str {
        match e {
            TbError::NotSolved { .. } => NOT_SOLVED,
            TbError::Io { .. } => IO_ERROR,
            TbError::Corrupt { .. } => CORRUPT_TABLEBASE,
            TbError::Foreign { .. } | TbError::Version { .. } => FOREIGN_TABLEBASE,
        }
    }

    /// The code of a failed lookup.
    pub fn of_lookup(e: &LookupError) -> &'static str {
        match e {
            LookupError::Tablebase(e) => of_tablebase(e),
            LookupError::OutsideSubset { .. } => NOT_SOLVED,
            LookupError::Other(_) => INTERNAL,
        }
    }
}

/// An error with its code (see [`code`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
        }
    }

    pub fn json(&self) -> ErrorJson {
        ErrorJson {
            error: self.message.clone(),
            code: self.code.to_string(),
            position: None,
        }
    }

    /// Bad input (as opposed to a failure while working).
    pub fn is_input(&self) -> bool {
        self.code.starts_with("bad_") || self.code == code::UNKNOWN_GAME
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<ApiError> for String {
    fn from(e: ApiError) -> Self {
        e.message
    }
}

/// A failed lookup: its code, and its line as the command line says it
/// (with the command that solves a missing tier).
impl From<LookupError> for ApiError {
    fn from(e: LookupError) -> Self {
        ApiError::new(code::of_lookup(&e), crate::hint::lookup_hint(&e))
    }
}

/// A rejected position or move: `bad_position` or `bad_move`, by what the
/// error is about.
impl From<ParseError> for ApiError {
    fn from(e: ParseError) -> Self {
        match e.kind() {
            InputKind::Position => ApiError::new(code::BAD_POSITION, format!("bad position: {e}")),
            InputKind::Move => ApiError::new(code::BAD_MOVE, format!("bad move: {e}")),
        }
    }
}

/// A game id or variant that names no game: `unknown_game`.
impl From<SpecError> for ApiError {
    fn from(e: SpecError) -> Self {
        ApiError::new(code::UNKNOWN_GAME, e.to_string())
    }
}

/// Parse a position; the error is a `bad_position`.
pub fn parse_position<G: Game>(g: &G, text: &str) -> Result<G::Pos, ApiError> {
    Ok(g.parse_pos(text)?)
}

/// `p` after the move `mv` (notation), if one is given; a `bad_move` if it
/// is malformed or illegal.
pub fn after_move<G: Game>(g: &G, p: G::Pos, mv: Option<&str>) -> Result<G::Pos, ApiError> {
    let Some(text) = mv else { return Ok(p) };
    if g.game_end(&p).is_some() {
        return Err(ApiError::new(
            code::BAD_MOVE,
            format!("bad move '{text}': the game is over"),
        ));
    }
    let m = g.parse_move(&p, text)?;
    Ok(g.apply(&p, &m))
}

/// Parse a difficulty level; the error is a `bad_difficulty`.
pub fn parse_difficulty(text: &str) -> Result<Difficulty, ApiError> {
    text.parse()
        .map_err(|e: UnknownDifficulty| ApiError::new(code::BAD_DIFFICULTY, e.to_string()))
}

fn side_letter<G: Game>(g: &G, p: &G::Pos) -> String {
    g.side_letter(g.side_to_move(p)).to_string()
}

/// Where the pieces are: one character per point, in point order.
pub fn board_of<G: Game>(g: &G, p: &G::Pos) -> String {
    g.occupancy(p).into_iter().collect()
}

/// The position after a time-out pass; `None` when the game is over.
fn pass_of<G: Game>(g: &G, p: &G::Pos, end: &Option<GameEnd>) -> Option<String> {
    if end.is_some() {
        return None;
    }
    Some(g.format_pos(&g.pass(p)))
}

/// The `query` answer; with the principal variation if `with_pv`.
pub fn query<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    p: &G::Pos,
    with_pv: bool,
) -> Result<QueryJson, LookupError> {
    let a = analyse(g, oracle, p)?;
    let pv = if with_pv {
        let line = principal_variation(g, oracle, p)?;
        let mut before = *p;
        let mut list = Vec::with_capacity(line.len());
        for m in &line {
            list.push(MoveJson::of(g, &before, m));
            before = m.after;
        }
        Some(list)
    } else {
        None
    };
    Ok(QueryJson {
        game: g.id().to_string(),
        position: g.format_pos(p),
        board: board_of(g, p),
        side_to_move: side_letter(g, p),
        value: a.value.into(),
        end: a.end.map(|e| EndJson::of(g, e)),
        best: a.best().map(|m| m.text.clone()),
        moves: a.moves.iter().map(|m| MoveJson::of(g, p, m)).collect(),
        pv,
        pass: pass_of(g, p, &a.end),
    })
}

/// The `moves` answer: legal moves and where they lead, by the rules alone.
pub fn moves<G: Game>(g: &G, p: &G::Pos) -> MovesJson {
    let end = g.game_end(p);
    let mut ms = Vec::new();
    if end.is_none() {
        g.moves(p, &mut ms);
    }
    let list = ms
        .iter()
        .map(|m| {
            let q = g.apply(p, m);
            let e = g.game_end(&q);
            let (from, to, captured) = move_points(g, p, m);
            MoveJson {
                mv: g.format_move(m),
                from,
                to,
                captured,
                position: g.format_pos(&q),
                board: board_of(g, &q),
                value: e.map(|e| Value::of_move_to(e.value).into()),
                end: e.map(|e| EndJson::of(g, e)),
            }
        })
        .collect();
    MovesJson {
        game: g.id().to_string(),
        position: g.format_pos(p),
        board: board_of(g, p),
        side_to_move: side_letter(g, p),
        end: end.map(|e| EndJson::of(g, e)),
        moves: list,
        pass: pass_of(g, p, &end),
    }
}

/// The `bestmove` answer. With `seed`, a fresh generator with that seed
/// makes this answer's random choices; else `rng`.
pub fn bestmove<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    p: &G::Pos,
    level: Difficulty,
    seed: Option<u64>,
    rng: &mut Rng,
) -> Result<BestmoveJson, LookupError> {
    let mut own;
    let rng = match seed {
        Some(s) => {
            own = Rng::new(s);
            &mut own
        }
        None => rng,
    };
    let (a, pick) = choose(g, oracle, p, level, rng)?;
    let chosen = pick.map(|i| &a.moves[i]);
    Ok(BestmoveJson {
        game: g.id().to_string(),
        position: g.format_pos(p),
        board: board_of(g, p),
        side_to_move: side_letter(g, p),
        value: a.value.into(),
        end: a.end.map(|e| EndJson::of(g, e)),
        difficulty: level.name().to_string(),
        seed,
        mv: chosen.map(|m| MoveJson::of(g, p, m)),
        optimal: chosen.map(|m| m.value == a.value),
        pass: pass_of(g, p, &a.end),
    })
}

/// One JSON line (serialising these types cannot fail).
pub fn to_line<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("the JSON types serialise")
}
