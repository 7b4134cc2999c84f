//! The program's move choice at four difficulty levels, from exact values.
//!
//! Definitions (the README's "Difficulty levels" section says the same):
//!
//! * `perfect` — always a value-optimal move: the fastest win when winning,
//!   the longest resistance when losing, a drawing move when drawing. Among
//!   the optimal moves it prefers the one that leaves the opponent the most
//!   ways to go wrong: first the most opponent replies that worsen their
//!   outcome class (win → draw/loss, draw → loss), then the most opponent
//!   replies that are not optimal for them at all (e.g. a faster loss), then
//!   the first in notation order. Deterministic: no randomness.
//! * `hard` — 2 % chance per move of the *mildest* mistake, otherwise it
//!   keeps the result (below). Nearly perfect: it never throws a result
//!   away lightly, but over a long game it slips now and then, and a
//!   perfect player punishes the slip.
//! * `medium` — 10 % chance per move of a random mistake, otherwise it
//!   keeps the result.
//! * `easy` — 40 % chance per move of a random mistake, otherwise it keeps
//!   the result.
//!
//! *Keeping the result* is a random move that does not change the
//! game-theoretic result: when drawing, uniformly among the drawing moves;
//! when losing, uniformly among all moves (they all lose); when winning,
//! uniformly among the fastest wins (a slower winning move keeps the win
//! in theory, but in games with cycles such moves can wander forever
//! without winning, so the levels keep to the moves that make progress).
//!
//! A *mistake* is a move whose outcome class is worse than the position's
//! (win → draw or loss, draw → loss); if there is none, a move whose value
//! is worse than the best (a slower win or a faster loss); if every move is
//! equally good, there is no mistake to make and the level keeps the
//! result. A *random* mistake is uniform among those moves; the *mildest*
//! is one of those with the best value (a draw rather than a loss when
//! winning, the slowest loss when drawing), at random among equals.
//!
//! The rates are measured, not guessed: `qibase-dev levels` plays every
//! level against every other in every game, and with these settings each
//! level beats the one below it clearly in each game
//! (`reports/difficulty.md`).
//!
//! All randomness comes from [`Rng`] (the project's splitmix64,
//! [`crate::rng`]), seeded by `--seed`, so a game is reproducible.

use std::fmt;
use std::str::FromStr;

use crate::analysis::{analyse, Analysis, LookupError, MoveInfo, Oracle};
use crate::game::Game;
use crate::value::{Value, Wdl};

pub use crate::rng::Rng;

/// How well the program plays.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Difficulty {
    /// Always a value-optimal move, leaving the opponent the most ways to go wrong.
    Perfect,
    /// The mildest mistake 2 % of the time, otherwise a random
    /// result-keeping move.
    Hard,
    /// A random mistake 10 % of the time, otherwise a random result-keeping move.
    Medium,
    /// A random mistake 40 % of the time, otherwise a random result-keeping move.
    Easy,
}

impl Difficulty {
    /// Every level, strongest first.
    pub const ALL: [Difficulty; 4] = [
        Difficulty::Perfect,
        Difficulty::Hard,
        Difficulty::Medium,
        Difficulty::Easy,
    ];

    /// The level's name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Difficulty::Perfect => "perfect",
            Difficulty::Hard => "hard",
            Difficulty::Medium => "medium",
            Difficulty::Easy => "easy",
        }
    }

    /// Chance, in percent, of a deliberate mistake on each move.
    pub fn mistake_percent(self) -> u32 {
        self.policy().map_or(0, |p| p.percent)
    }

    /// The level's mistakes; `None` for `perfect`, which plays by its own
    /// rule ([`perfect_index`]).
    pub fn policy(self) -> Option<MistakePolicy> {
        let (percent, kind) = match self {
            Difficulty::Perfect => return None,
            Difficulty::Hard => (2, MistakeKind::Mildest),
            Difficulty::Medium => (10, MistakeKind::Random),
            Difficulty::Easy => (40, MistakeKind::Random),
        };
        Some(MistakePolicy { percent, kind })
    }

    /// One line for help texts.
    pub fn describe(self) -> &'static str {
        match self {
            Difficulty::Perfect => {
                "always a value-optimal move, the one leaving you the most ways to go wrong"
            }
            Difficulty::Hard => {
                "nearly perfect: a 2% chance per move of the mildest mistake, else keeps the result"
            }
            Difficulty::Medium => {
                "a 10% chance per move of a random mistake, else keeps the result"
            }
            Difficulty::Easy => "a 40% chance per move of a random mistake, else keeps the result",
        }
    }
}

impl fmt::Display for Difficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A difficulty name that is none of the levels.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownDifficulty {
    /// The name as given (trimmed).
    pub name: String,
}

impl fmt::Display for UnknownDifficulty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown difficulty '{}' (levels: perfect, hard, medium, easy)",
            self.name
        )
    }
}

impl std::error::Error for UnknownDifficulty {}

impl FromStr for Difficulty {
    type Err = UnknownDifficulty;
    fn from_str(s: &str) -> Result<Self, UnknownDifficulty> {
        let s = s.trim();
        Difficulty::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownDifficulty {
                name: s.to_string(),
            })
    }
}

/// How a level picks its mistakes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MistakeKind {
    /// The mildest mistake: among the moves that worsen the outcome class,
    /// those of the best value (a draw rather than a loss when winning, the
    /// slowest loss when drawing), at random among equals.
    Mildest,
    /// Uniformly among the moves that worsen the outcome class.
    Random,
}

impl MistakeKind {
    /// `mildest` or `random`.
    pub fn name(self) -> &'static str {
        match self {
            MistakeKind::Mildest => "mildest",
            MistakeKind::Random => "random",
        }
    }
}

/// A fallible level's mistakes: how often and which.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MistakePolicy {
    /// Chance in percent, on each move, of a mistake.
    pub percent: u32,
    /// Which mistake.
    pub kind: MistakeKind,
}

/// A mistake in `a` under `policy`, if the dice say so and there is one:
/// a move whose outcome class is worse than the position's, else one whose
/// value is worse than the best (a slower win, a faster loss).
fn mistake_index<G: Game>(a: &Analysis<G>, policy: MistakePolicy, rng: &mut Rng) -> Option<usize> {
    if policy.percent == 0 || !rng.chance(policy.percent) {
        return None;
    }
    let best = a.moves[0].value;
    let class = wdl_rank(best.wdl());
    // `a.moves` is sorted best first, so both pools are in that order.
    let worse_class: Vec<usize> = (0..a.moves.len())
        .filter(|&i| wdl_rank(a.moves[i].value.wdl()) < class)
        .collect();
    let pool = if worse_class.is_empty() {
        (0..a.moves.len())
            .filter(|&i| a.moves[i].value < best)
            .collect()
    } else {
        worse_class
    };
    let first = *pool.first()?;
    let pool: Vec<usize> = match policy.kind {
        MistakeKind::Random => pool,
        MistakeKind::Mildest => pool
            .into_iter()
            .take_while(|&i| a.moves[i].value == a.moves[first].value)
            .collect(),
    };
    Some(pool[rng.below(pool.len())])
}

/// [`choose_index`] with the mistakes of `policy` (`None`: never a mistake,
/// random among the result-keeping moves), for measuring other settings
/// of the levels than the built-in ones. `perfect` is not a policy.
///
/// # Errors
///
/// None today (the analysis holds every value needed); a `Result` like
/// [`choose_index`]'s.
pub fn choose_index_with_policy<G: Game>(
    a: &Analysis<G>,
    policy: Option<MistakePolicy>,
    rng: &mut Rng,
) -> Result<Option<usize>, LookupError> {
    if a.moves.is_empty() {
        return Ok(None);
    }
    if let Some(p) = policy {
        if let Some(i) = mistake_index(a, p, rng) {
            return Ok(Some(i));
        }
    }
    Ok(Some(keep_result_index(a, rng)))
}

/// A random move keeping the result: when drawing, any drawing move; when
/// losing, any move; when winning, any of the fastest wins.
fn keep_result_index<G: Game>(a: &Analysis<G>, rng: &mut Rng) -> usize {
    let best = a.moves[0].value;
    let pool: Vec<usize> = (0..a.moves.len())
        .filter(|&i| match best {
            Value::Win(_) => a.moves[i].value == best,
            Value::Draw => a.moves[i].value == Value::Draw,
            Value::Loss(_) => true,
        })
        .collect();
    pool[rng.below(pool.len())]
}

/// Number of the opponent's replies after `m` that (a) worsen their
/// outcome class and (b) are not optimal for them.
fn opponent_mistakes<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    m: &MoveInfo<G>,
) -> Result<(usize, usize), LookupError> {
    let a = analyse(g, oracle, &m.after)?;
    let class = a.value.wdl();
    let worse_class = a
        .moves
        .iter()
        .filter(|r| wdl_rank(r.value.wdl()) < wdl_rank(class))
        .count();
    let suboptimal = a.moves.iter().filter(|r| r.value < a.value).count();
    Ok((worse_class, suboptimal))
}

fn wdl_rank(w: Wdl) -> u8 {
    match w {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

/// The `perfect` choice: index into `a.moves` (which must not be empty).
///
/// # Errors
///
/// The oracle's [`LookupError`] for a position after a move that it
/// cannot value (a tier not solved, a damaged file).
pub fn perfect_index<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    a: &Analysis<G>,
) -> Result<usize, LookupError> {
    let best = a.moves[0].value;
    let mut pick = 0;
    let mut pick_score = None;
    for (i, m) in a
        .moves
        .iter()
        .enumerate()
        .take_while(|(_, m)| m.value == best)
    {
        let score = opponent_mistakes(g, oracle, m)?;
        // Strictly greater only: among equal scores the earlier (notation
        // order) move stays.
        if pick_score.is_none_or(|s| score > s) {
            pick = i;
            pick_score = Some(score);
        }
    }
    Ok(pick)
}

/// The program's move in an analysed position at a difficulty, as an index
/// into `a.moves`; `None` if the game is over.
///
/// # Errors
///
/// The oracle's [`LookupError`] for a position it cannot value (the
/// `perfect` level looks one move further).
pub fn choose_index<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    a: &Analysis<G>,
    level: Difficulty,
    rng: &mut Rng,
) -> Result<Option<usize>, LookupError> {
    if a.moves.is_empty() {
        return Ok(None);
    }
    if level == Difficulty::Perfect {
        return perfect_index(g, oracle, a).map(Some);
    }
    choose_index_with_policy(a, level.policy(), rng)
}

/// Analyse `p` and choose the program's move: the analysis and the index
/// of the chosen move (`None` if the game is over).
///
/// # Errors
///
/// As [`analyse`] and [`choose_index`]: a position the oracle cannot value.
pub fn choose<G: Game>(
    g: &G,
    oracle: &dyn Oracle<G>,
    p: &G::Pos,
    level: Difficulty,
    rng: &mut Rng,
) -> Result<(Analysis<G>, Option<usize>), LookupError> {
    let a = analyse(g, oracle, p)?;
    let i = choose_index(g, oracle, &a, level, rng)?;
    Ok((a, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difficulty_names_round_trip() {
        for d in Difficulty::ALL {
            assert_eq!(d.name().parse::<Difficulty>().unwrap(), d);
        }
        assert!("insane".parse::<Difficulty>().is_err());
    }
}
