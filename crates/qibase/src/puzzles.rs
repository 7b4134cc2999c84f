//! Puzzles picked from the tables: positions in which exactly one legal move
//! keeps the best result for the side to move, graded by difficulty.
//!
//! * **Positions.** Seeded random walks from one or more start positions
//!   (the game's start by default), so every puzzle is reachable by play.
//!   On each ply the walker plays, with [`WALK_RANDOM_PERCENT`] % chance,
//!   a uniformly random legal move, otherwise a random move that keeps the
//!   position's result class (win, draw or loss): the walks mostly stay in
//!   balanced or tense play, and the random moves carry them into won and
//!   lost positions. Positions equal by the numbering's symmetries count
//!   once (same tier and rank).
//! * **A puzzle** is a visited position, not a game end, whose value is a
//!   win or a draw, in which exactly one legal move keeps that result
//!   ([`Puzzle::best`]) and every other move worsens it (win → draw or
//!   loss, draw → loss): the *wrong* moves.
//! * **Difficulty** ([`Grading`]): the remoteness of a won puzzle (plies
//!   to the forced win); the *refutation depth*, the plies after the
//!   least evident wrong move until its consequence is on the board (a
//!   wrong move losing in `N` plies for the solver: `N - 1`; a wrong move
//!   that only draws a won puzzle: the puzzle's remoteness, since the
//!   difference shows only when the win is complete); and the *tempting*
//!   wrong moves: the captures (by the move's captured points,
//!   [`Notation::move_points`](crate::game::Notation::move_points)),
//!   and the moves whose consequence lies more than [`OBVIOUS_PLIES`]
//!   plies ahead by that measure (a draw instead of a win in 1 is
//!   obvious, instead of a win in 9 it is not). A
//!   score ([`Grading::score`]) adds these up; the grade 1–5 is the score's
//!   quintile among every candidate the walks found, so grade 1 holds the
//!   easiest fifth of the game's candidates and grade 5 the hardest.
//! * **Selection**: the same number of puzzles from every grade (as far as
//!   the candidates allow), drawn at random, then sorted by grade.
//!
//! Everything random comes from one [`Rng`] seeded by [`PuzzleOptions::seed`]:
//! the same seed, tables and options give the same puzzles.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::analysis::{analyse, principal_variation, Analysis, LookupError, Oracle};
use crate::game::{Game, TierKey};
use crate::rng::Rng;
use crate::value::{Value, Wdl};

/// The `format` field of a puzzle file.
pub const FORMAT: &str = "qibase-puzzles 1";

/// Chance in percent that a walk plays a uniformly random move.
pub const WALK_RANDOM_PERCENT: u32 = 25;

/// Longest walk, in plies (the walk also stops at the end of a game).
pub const WALK_MAX_PLIES: usize = 160;

/// A wrong move punished within this many plies is obvious, not tempting.
pub const OBVIOUS_PLIES: u32 = 4;

/// Moves of a refutation line at most (from the opponent's reply on).
pub const REFUTATION_PLIES: usize = 12;

/// Number of grades.
pub const GRADES: u8 = 5;

/// What to select.
#[derive(Clone, Debug)]
pub struct PuzzleOptions<P> {
    /// How many puzzles (at most; fewer if the walks find fewer).
    pub count: usize,
    /// Seed of the walks and of the selection.
    pub seed: u64,
    /// Where the walks start (the game's start position for a whole game;
    /// positions inside the solved subset for a partial table).
    pub starts: Vec<P>,
    /// Candidates to collect before grading (at least `count`); the walks
    /// stop earlier if they visit [`PuzzleOptions::max_visits`] positions.
    pub pool: usize,
    /// Positions to analyse at most.
    pub max_visits: usize,
}

impl<P> PuzzleOptions<P> {
    /// `count` puzzles from walks starting at `starts`, with a candidate
    /// pool of ten per puzzle (at least 200) and at most 200,000 visits.
    pub fn new(count: usize, seed: u64, starts: Vec<P>) -> Self {
        PuzzleOptions {
            count,
            seed,
            starts,
            pool: count.saturating_mul(10).max(200),
            max_visits: 200_000,
        }
    }
}

/// A puzzle file: the game, the seed and the puzzles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PuzzleSet {
    /// Always [`FORMAT`].
    pub format: String,
    /// The game id (a variant spec for a variant).
    pub game: String,
    /// The seed the set was selected with.
    pub seed: u64,
    /// The puzzles, easiest grade first.
    pub puzzles: Vec<Puzzle>,
}

/// One puzzle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Puzzle {
    /// `<game>-<n>`, numbered from 1 in file order.
    pub id: String,
    /// The position, in the game's notation.
    pub position: String,
    /// Its value for the side to move (`win N` or `draw`).
    pub value: String,
    /// The only move that keeps the value's result.
    pub best: String,
    /// How hard it is, and why.
    pub difficulty: Grading,
    /// Every other legal move, best first.
    pub wrong: Vec<WrongMove>,
}

/// A puzzle's difficulty and the figures it comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grading {
    /// 1 (easiest) to 5: the quintile of [`Grading::score`] among the
    /// candidates of the selection.
    pub grade: u8,
    /// Plies to the forced win (`null` for a draw puzzle).
    pub remoteness: Option<u16>,
    /// Wrong moves that look natural: captures, and moves whose
    /// consequence shows only after more than [`OBVIOUS_PLIES`] plies
    /// (for a draw instead of a win: the puzzle's remoteness).
    pub tempting: u32,
    /// Plies after the least evident wrong move until its consequence is
    /// on the board.
    pub refutation_depth: u32,
    /// Wrong moves that capture.
    pub captures: u32,
    /// `remoteness + refutation_depth + 3 × tempting + 2 × tempting captures`.
    pub score: u32,
}

/// A wrong move of a puzzle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrongMove {
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// What it leads to for the puzzle's solver (`draw`, `loss 6`).
    pub value: String,
    /// The opponent's best reply and the principal variation after it, at
    /// most [`REFUTATION_PLIES`] moves.
    pub refutation: Vec<String>,
    /// Whether the move captures.
    pub capture: bool,
}

/// Why no puzzle set could be made.
#[derive(Debug, Clone)]
pub enum PuzzleError {
    /// A value the oracle could not give (a tier not solved, a damaged file).
    Lookup(LookupError),
    /// Bad options (no start position, a start that is over, count 0).
    Options(String),
    /// The walks found no puzzle.
    NoneFound {
        /// Positions analysed.
        visited: usize,
    },
}

impl fmt::Display for PuzzleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PuzzleError::Lookup(e) => e.fmt(f),
            PuzzleError::Options(s) => f.write_str(s),
            PuzzleError::NoneFound { visited } => write!(
                f,
                "no position with exactly one result-keeping move among the {visited} positions visited"
            ),
        }
    }
}

impl std::error::Error for PuzzleError {}

impl From<LookupError> for PuzzleError {
    fn from(e: LookupError) -> Self {
        PuzzleError::Lookup(e)
    }
}

/// The result-keeping moves of an analysed position: those whose class is
/// the position's.
fn keepers<G: Game>(a: &Analysis<G>) -> usize {
    let class = a.value.wdl();
    a.moves.iter().filter(|m| m.value.wdl() == class).count()
}

/// Whether `a` is a puzzle position: not over, a win or a draw, exactly one
/// move of the position's result class and at least one other move.
pub fn is_puzzle<G: Game>(a: &Analysis<G>) -> bool {
    a.end.is_none() && a.value.wdl() != Wdl::Loss && a.moves.len() >= 2 && keepers(a) == 1
}

/// A candidate: the analysed position and its grading (grade not yet set).
struct Candidate<G: Game> {
    analysis: Analysis<G>,
    grading: Grading,
}

/// The grading of a puzzle position (grade 0: set later), and per wrong
/// move whether it captures.
fn grade_figures<G: Game>(g: &G, a: &Analysis<G>) -> (Grading, Vec<bool>) {
    let remoteness = match a.value {
        Value::Win(n) => Some(n),
        _ => None,
    };
    let mut tempting = 0;
    let mut captures = 0;
    let mut tempting_captures = 0;
    let mut depth = 0u32;
    let mut capture_flags = Vec::new();
    for m in &a.moves[1..] {
        let capture = !g.move_points(&a.pos, &m.mv).captured.is_empty();
        capture_flags.push(capture);
        // Plies after the move until its consequence is on the board.
        let d = match m.value {
            Value::Loss(n) => (n as u32).saturating_sub(1),
            _ => remoteness.unwrap_or(0) as u32,
        };
        depth = depth.max(d);
        let subtle = d > OBVIOUS_PLIES;
        if capture {
            captures += 1;
        }
        if capture || subtle {
            tempting += 1;
            if capture {
                tempting_captures += 1;
            }
        }
    }
    let score = remoteness.unwrap_or(0) as u32 + depth + 3 * tempting + 2 * tempting_captures;
    (
        Grading {
            grade: 0,
            remoteness,
            tempting,
            refutation_depth: depth,
            captures,
            score,
        },
        capture_flags,
    )
}

/// Walk from the starts and collect the puzzle positions met (each class
/// of symmetric positions once); returns them and the number of positions
/// analysed.
fn collect<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    opts: &PuzzleOptions<G::Pos>,
    rng: &mut Rng,
) -> Result<(Vec<Candidate<G>>, usize), PuzzleError> {
    let mut seen: HashSet<(TierKey, u64)> = HashSet::new();
    let mut found = Vec::new();
    let mut visits = 0usize;
    let want = opts.pool.max(opts.count);
    // A walk that finds nothing new for this many walks in a row: the
    // reachable puzzles are exhausted (small games).
    let mut barren_walks = 0;
    while found.len() < want && visits < opts.max_visits && barren_walks < 2_000 {
        let mut p = opts.starts[rng.below(opts.starts.len())];
        let mut new_here = false;
        for _ in 0..WALK_MAX_PLIES {
            if visits >= opts.max_visits {
                break;
            }
            let a = analyse(g, oracle, &p)?;
            visits += 1;
            if a.moves.is_empty() {
                break;
            }
            let i = if rng.chance(WALK_RANDOM_PERCENT) {
                rng.below(a.moves.len())
            } else {
                // The moves of the position's class come first.
                rng.below(keepers(&a).max(1))
            };
            let next = a.moves[i].after;
            let t = g.tier_of(&p);
            if seen.insert((t, g.rank(t, &p))) {
                new_here = true;
                if is_puzzle(&a) {
                    let (grading, _) = grade_figures(g, &a);
                    found.push(Candidate {
                        analysis: a,
                        grading,
                    });
                }
            }
            p = next;
        }
        barren_walks = if new_here { 0 } else { barren_walks + 1 };
    }
    Ok((found, visits))
}

/// Select puzzles: walk, grade, pick a spread of grades, and write out
/// each pick's wrong moves with their refutations.
///
/// # Errors
///
/// [`PuzzleError::Options`] for a count of 0, no start or a start where
/// the game is over; [`PuzzleError::Lookup`] for a position the oracle
/// cannot value; [`PuzzleError::NoneFound`] if the walks meet no puzzle.
pub fn select<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    opts: &PuzzleOptions<G::Pos>,
) -> Result<PuzzleSet, PuzzleError> {
    if opts.count == 0 {
        return Err(PuzzleError::Options("the count must be at least 1".into()));
    }
    if opts.starts.is_empty() {
        return Err(PuzzleError::Options("no start position".into()));
    }
    for s in &opts.starts {
        if g.game_end(s).is_some() {
            return Err(PuzzleError::Options(format!(
                "the game is over in the start position {}",
                g.format_pos(s)
            )));
        }
        oracle.value(s)?;
    }
    let mut rng = Rng::new(opts.seed);
    let (mut pool, visited) = collect(g, oracle, opts, &mut rng)?;
    if pool.is_empty() {
        return Err(PuzzleError::NoneFound { visited });
    }
    // Grades: quintiles of the score (ties broken by the position string,
    // so the order never depends on the walk order).
    let text: Vec<String> = pool.iter().map(|c| g.format_pos(&c.analysis.pos)).collect();
    let mut order: Vec<usize> = (0..pool.len()).collect();
    order.sort_by(|&i, &j| {
        pool[i]
            .grading
            .score
            .cmp(&pool[j].grading.score)
            .then_with(|| text[i].cmp(&text[j]))
    });
    let n = pool.len();
    let mut by_grade: Vec<Vec<usize>> = vec![Vec::new(); GRADES as usize];
    for (k, &i) in order.iter().enumerate() {
        let grade = (k * GRADES as usize / n) as u8 + 1;
        pool[i].grading.grade = grade;
        by_grade[grade as usize - 1].push(i);
    }
    // Round robin over the grades, each time a random remaining candidate.
    let mut picked = Vec::new();
    while picked.len() < opts.count && by_grade.iter().any(|b| !b.is_empty()) {
        for b in by_grade.iter_mut() {
            if picked.len() < opts.count && !b.is_empty() {
                let k = rng.below(b.len());
                picked.push(b.swap_remove(k));
            }
        }
    }
    picked.sort_by(|&i, &j| {
        pool[i]
            .grading
            .grade
            .cmp(&pool[j].grading.grade)
            .then_with(|| pool[i].grading.score.cmp(&pool[j].grading.score))
            .then_with(|| text[i].cmp(&text[j]))
    });
    let mut puzzles = Vec::with_capacity(picked.len());
    for (k, &i) in picked.iter().enumerate() {
        let c = &pool[i];
        let a = &c.analysis;
        let (_, captures) = grade_figures(g, a);
        let mut wrong = Vec::new();
        for (m, &capture) in a.moves[1..].iter().zip(&captures) {
            let mut line = principal_variation(g, oracle, &m.after)?;
            line.truncate(REFUTATION_PLIES);
            wrong.push(WrongMove {
                mv: m.text.clone(),
                value: m.value.to_string(),
                refutation: line.into_iter().map(|r| r.text).collect(),
                capture,
            });
        }
        puzzles.push(Puzzle {
            id: format!("{}-{}", g.variant_spec(), k + 1),
            position: text[i].clone(),
            value: a.value.to_string(),
            best: a.moves[0].text.clone(),
            difficulty: c.grading.clone(),
            wrong,
        });
    }
    Ok(PuzzleSet {
        format: FORMAT.to_string(),
        game: g.variant_spec(),
        seed: opts.seed,
        puzzles,
    })
}
