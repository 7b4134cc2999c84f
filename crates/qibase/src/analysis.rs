//! Analysis of one position with exact values: the position's value, every
//! legal move with its value from the mover's view (best first), and the
//! principal variation. Used by `play`, `bestmove`, `engine`, `query` and
//! the HTTP server.
//!
//! [`annotate`] reviews a whole game move by move.
//!
//! Values come from an [`Oracle`]: the one small adapter through which the
//! rest of this module (and [`crate::ai`]) touches solved data. There is one
//! oracle over tablebase files ([`Tablebase`] itself) and one over tiers
//! solved in memory ([`MemoryOracle`]); [`open_oracle`] picks one. Lookup
//! failures are typed ([`LookupError`]) so that only a *missing* table may
//! fall back to a solve in memory: a damaged table, or one made under other
//! rules, is reported with its path.

pub mod annotate;

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use crate::game::{Game, GameEnd, TierKey};
use crate::solver::solve_in_memory;
use crate::tablebase::{Tablebase, TbError};
use crate::value::{Packed, Value};

/// Why a value could not be looked up.
#[derive(Debug, Clone)]
pub enum LookupError {
    /// The tablebase layer failed: a tier not solved, a file of another game
    /// or rules version, a damaged file, an I/O failure (always with the file).
    Tablebase(TbError),
    /// A tier outside the subset that was solved in memory.
    OutsideSubset {
        /// The tier's name.
        tier: String,
    },
    /// Anything else (e.g. an oracle of the report generator).
    Other(String),
}

impl LookupError {
    /// The value is missing because a tier is not solved (as opposed to a
    /// damaged or foreign file, or an I/O failure).
    pub fn is_not_solved(&self) -> bool {
        match self {
            LookupError::Tablebase(e) => e.is_not_solved(),
            LookupError::OutsideSubset { .. } => true,
            LookupError::Other(_) => false,
        }
    }
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::Tablebase(e) => e.fmt(f),
            LookupError::OutsideSubset { tier } => {
                write!(f, "tier {tier} is outside the solved subset")
            }
            LookupError::Other(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for LookupError {}

impl From<TbError> for LookupError {
    fn from(e: TbError) -> Self {
        LookupError::Tablebase(e)
    }
}

/// Exact values of positions (side to move's view).
pub trait Oracle<G: Game> {
    /// The value of `p`; the error says what is missing or wrong.
    ///
    /// # Errors
    ///
    /// A [`LookupError`] when the value is not known: a tier not solved
    /// or outside the solved subset, a damaged or foreign file, an I/O
    /// failure.
    fn value(&self, p: &G::Pos) -> Result<Value, LookupError>;
}

/// Values read from tablebase files.
impl<G: Game> Oracle<G> for Tablebase<'_, G> {
    fn value(&self, p: &G::Pos) -> Result<Value, LookupError> {
        Ok(self.probe(p)?)
    }
}

/// Values of tiers solved in memory by [`solve_in_memory`].
pub struct MemoryOracle<'g, G: Game> {
    game: &'g G,
    tiers: HashMap<TierKey, Vec<Packed>>,
}

impl<'g, G: Game> MemoryOracle<'g, G> {
    /// Solve the game (or its closed subset of at most `max_pieces` pieces a
    /// side) in memory. Only for small games: weiming takes well under a second.
    pub fn solve(game: &'g G, max_pieces: Option<u32>) -> Self {
        MemoryOracle {
            game,
            tiers: solve_in_memory(game, max_pieces),
        }
    }

    /// Wrap tiers that are already solved.
    pub fn from_tiers(game: &'g G, tiers: HashMap<TierKey, Vec<Packed>>) -> Self {
        MemoryOracle { game, tiers }
    }
}

impl<G: Game> Oracle<G> for MemoryOracle<'_, G> {
    fn value(&self, p: &G::Pos) -> Result<Value, LookupError> {
        let t = self.game.tier_of(p);
        let table = self
            .tiers
            .get(&t)
            .ok_or_else(|| LookupError::OutsideSubset {
                tier: self.game.tier_name(t),
            })?;
        let i = self.game.rank(t, p) as usize;
        table
            .get(i)
            .copied()
            .and_then(Value::unpack)
            .ok_or_else(|| {
                LookupError::Other(format!(
                    "no value for slot {i} of tier {}",
                    self.game.tier_name(t)
                ))
            })
    }
}

/// Games with at most this many positions are solved on the fly when their
/// tablebase is missing.
pub const ON_THE_FLY_LIMIT: u64 = 1_000_000;

/// Total number of index slots of a game.
fn total_slots<G: Game>(g: &G) -> u64 {
    g.tiers(None).iter().map(|&t| g.tier_size(t)).sum()
}

/// An oracle that threads can share (both oracles here are).
pub type SharedOracle<'g, G> = Box<dyn Oracle<G> + Send + Sync + 'g>;

/// The oracle for `play`, `bestmove`, `engine` and `serve`, with one line
/// saying where its values come from.
///
/// * If any tier file of the game is in `dir`, the tablebase (a partial one,
///   made with `--max-pieces`, answers every position of its solved tiers;
///   others get a per-lookup "not solved" error naming the subset that makes it).
/// * A tier file that is damaged or made under other rules is an error
///   (with its path), never a reason to fall back.
/// * Only when no tier file is there at all: for a small game (at most
///   [`ON_THE_FLY_LIMIT`] positions, e.g. weiming) a solve in memory; else
///   the "not solved" error, which says what makes the table.
///
/// # Errors
///
/// [`LookupError::Tablebase`] for a tier file in `dir` that is damaged,
/// made under other rules or unreadable, and for a game with no tier file
/// that is too large to solve in memory (not solved, with the subset
/// that makes it); [`LookupError::Other`] for a game without tiers.
pub fn open_oracle<'g, G: Game>(
    g: &'g G,
    dir: &Path,
) -> Result<(SharedOracle<'g, G>, String), LookupError> {
    let tb = Tablebase::open(g, dir);
    let tiers = g.tiers(None);
    let mut present = 0usize;
    let mut missing: Option<TbError> = None;
    for &t in &tiers {
        match tb.open_tier(t) {
            Ok(()) => present += 1,
            Err(e) if e.is_not_solved() => missing = Some(e),
            Err(e) => return Err(e.into()),
        }
    }
    if present > 0 {
        let from = if present == tiers.len() {
            format!("tablebase in {}", dir.display())
        } else {
            format!(
                "partial tablebase in {} ({present} of {} tiers)",
                dir.display(),
                tiers.len()
            )
        };
        return Ok((Box::new(tb), from));
    }
    if total_slots(g) <= ON_THE_FLY_LIMIT {
        let t0 = std::time::Instant::now();
        let m = MemoryOracle::solve(g, None);
        let from = format!(
            "solved in memory in {:.2} s (no tablebase in {})",
            t0.elapsed().as_secs_f64(),
            dir.display()
        );
        return Ok((Box::new(m), from));
    }
    // `tiers` ends with the full game's top tier: its error names the
    // whole game as what makes it.
    Err(match missing {
        Some(e) => e.into(),
        None => LookupError::Other(format!("{} has no tiers", g.id())),
    })
}

/// The value of `p`: by rule if the game is over there, else from the oracle.
///
/// # Errors
///
/// The oracle's [`LookupError`] when the game goes on in `p` and the
/// oracle cannot value it.
pub fn position_value<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    p: &G::Pos,
) -> Result<Value, LookupError> {
    match g.game_end(p) {
        Some(e) => Ok(e.value),
        None => oracle.value(p),
    }
}

/// One legal move and what it leads to.
#[derive(Debug)]
pub struct MoveInfo<G: Game> {
    /// The move.
    pub mv: G::Move,
    /// The move in the notation of `docs/rules.md`.
    pub text: String,
    /// The move's value from the mover's view (counts the move itself).
    pub value: Value,
    /// The position after the move.
    pub after: G::Pos,
    /// The value of `after` for the opponent (now to move).
    pub after_value: Value,
}

// By hand: a derive would ask the game itself to be `Clone`.
impl<G: Game> Clone for MoveInfo<G> {
    fn clone(&self) -> Self {
        MoveInfo {
            mv: self.mv,
            text: self.text.clone(),
            value: self.value,
            after: self.after,
            after_value: self.after_value,
        }
    }
}

/// Everything about a position.
#[derive(Clone, Debug)]
pub struct Analysis<G: Game> {
    /// The position analysed.
    pub pos: G::Pos,
    /// The value of the position (side to move's view).
    pub value: Value,
    /// Why the game is over, if it is.
    pub end: Option<GameEnd>,
    /// Every legal move, best first: by value ([`Value`]'s order: fastest
    /// win, then draw, then longest loss); moves of equal value in
    /// ascending order of their notation (byte order of the text), so the
    /// order never depends on the move generator.
    pub moves: Vec<MoveInfo<G>>,
}

impl<G: Game> Analysis<G> {
    /// The best move (first of [`Analysis::moves`]); `None` if the game is over.
    pub fn best(&self) -> Option<&MoveInfo<G>> {
        self.moves.first()
    }
}

/// Analyse `p`: its value and every move's value, sorted best first.
///
/// # Errors
///
/// The oracle's [`LookupError`] for `p` or for a position after one of
/// its moves.
pub fn analyse<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    p: &G::Pos,
) -> Result<Analysis<G>, LookupError> {
    let end = g.game_end(p);
    let mut infos = Vec::new();
    if end.is_none() {
        let mut ms = Vec::new();
        g.moves(p, &mut ms);
        for mv in ms {
            let after = g.apply(p, &mv);
            let after_value = position_value(g, oracle, &after)?;
            infos.push(MoveInfo {
                mv,
                text: g.format_move(&mv),
                value: Value::of_move_to(after_value),
                after,
                after_value,
            });
        }
    }
    infos.sort_by(|a, b| b.value.cmp(&a.value).then_with(|| a.text.cmp(&b.text)));
    let value = match end {
        Some(e) => e.value,
        None => oracle.value(p)?,
    };
    Ok(Analysis {
        pos: *p,
        value,
        end,
        moves: infos,
    })
}

/// Plies shown for a drawn position's principal variation.
pub const DRAW_PV_PLIES: usize = 40;

/// The principal variation from `p`: both sides play the first move of
/// [`analyse`]'s order (a value-optimal move) until the game ends, at most
/// the remoteness for a won or lost position and [`DRAW_PV_PLIES`] plies
/// for a draw. Returns the moves and the final position.
///
/// # Errors
///
/// The oracle's [`LookupError`] for a position on the way.
pub fn principal_variation<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    p: &G::Pos,
) -> Result<Vec<MoveInfo<G>>, LookupError> {
    let start = position_value(g, oracle, p)?;
    let limit = match start {
        Value::Win(n) | Value::Loss(n) => n as usize,
        Value::Draw => DRAW_PV_PLIES,
    };
    let mut line = Vec::new();
    let mut cur = *p;
    while line.len() < limit {
        let a = analyse(g, oracle, &cur)?;
        let Some(best) = a.moves.into_iter().next() else {
            break;
        };
        cur = best.after;
        line.push(best);
    }
    Ok(line)
}
