//! Game review: replay a game's moves with exact values and mark each move
//! that changed the result (a win thrown to a draw or a loss, a draw to a
//! loss), with the best move instead and the line that follows it.
//!
//! The one implementation behind `qibase annotate` and the HTTP
//! `annotate` endpoint, so that the command line and the page agree.

use std::fmt;

use super::{analyse, position_value, principal_variation, LookupError, MoveInfo, Oracle};
use crate::game::Game;
use crate::value::{Value, Wdl};
use crate::ParseError;

/// One ply of a reviewed game.
#[derive(Debug)]
pub struct AnnotatedPly<G: Game> {
    /// The ply's number, from 1.
    pub ply: usize,
    /// The position the move was played in.
    pub before: G::Pos,
    /// The value of `before` for the side to move there (the mover).
    pub before_value: Value,
    /// The move played, with its value for the mover.
    pub played: MoveInfo<G>,
    /// The best move of `before` (the first of [`analyse`]'s order).
    pub best: MoveInfo<G>,
    /// Set when the move changed the result: the best move's line.
    pub mistake: Option<Mistake<G>>,
}

/// What the mover should have played instead.
#[derive(Debug)]
pub struct Mistake<G: Game> {
    /// The principal variation after the best move (the best move itself
    /// not included).
    pub line: Vec<MoveInfo<G>>,
}

impl<G: Game> AnnotatedPly<G> {
    /// Whether the move changed the result for the worse.
    pub fn is_mistake(&self) -> bool {
        self.mistake.is_some()
    }
}

/// Why a game could not be reviewed; `ply` counts from 1.
#[derive(Debug, Clone)]
pub enum AnnotateError {
    /// A move is malformed or not legal in its position.
    BadMove {
        /// The ply of the move.
        ply: usize,
        /// The move as given.
        text: String,
        /// What is wrong with it.
        error: ParseError,
    },
    /// A move follows the end of the game.
    AfterEnd {
        /// The ply of the move.
        ply: usize,
        /// The move as given.
        text: String,
    },
    /// A value could not be looked up (a tier not solved, a damaged file…).
    Lookup {
        /// The ply whose position could not be valued.
        ply: usize,
        /// What is missing or wrong.
        error: LookupError,
    },
}

impl AnnotateError {
    /// The ply the error is about.
    pub fn ply(&self) -> usize {
        match self {
            AnnotateError::BadMove { ply, .. }
            | AnnotateError::AfterEnd { ply, .. }
            | AnnotateError::Lookup { ply, .. } => *ply,
        }
    }
}

impl fmt::Display for AnnotateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnnotateError::BadMove { ply, error, .. } => write!(f, "ply {ply}: {error}"),
            AnnotateError::AfterEnd { ply, text } => {
                write!(f, "ply {ply}: move '{text}' after the end of the game")
            }
            AnnotateError::Lookup { ply, error } => write!(f, "ply {ply}: {error}"),
        }
    }
}

impl std::error::Error for AnnotateError {}

/// Rank of a result for the mover: a move that lowers it changed the result.
fn rank(v: Value) -> u8 {
    match v.wdl() {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

/// Review `moves` (in the notation of docs/rules.md) played from `start`.
///
/// # Errors
///
/// [`AnnotateError`] naming the ply: a malformed or illegal move, a move
/// after the end, or a value that could not be looked up.
pub fn annotate<G: Game, S: AsRef<str>>(
    g: &G,
    oracle: &dyn Oracle<G>,
    start: &G::Pos,
    moves: &[S],
) -> Result<Vec<AnnotatedPly<G>>, AnnotateError> {
    let mut out = Vec::with_capacity(moves.len());
    let mut cur = *start;
    for (i, text) in moves.iter().enumerate() {
        let ply = i + 1;
        let text = text.as_ref();
        if g.game_end(&cur).is_some() {
            return Err(AnnotateError::AfterEnd {
                ply,
                text: text.to_string(),
            });
        }
        let mv = g
            .parse_move(&cur, text)
            .map_err(|error| AnnotateError::BadMove {
                ply,
                text: text.to_string(),
                error,
            })?;
        let lookup = |error| AnnotateError::Lookup { ply, error };
        let a = analyse(g, oracle, &cur).map_err(lookup)?;
        let after = g.apply(&cur, &mv);
        // The analysed list holds every legal move; building the entry
        // here covers a move generator that lists one move twice.
        let text_of = g.format_move(&mv);
        let played = match a.moves.iter().find(|m| m.text == text_of) {
            Some(m) => m.clone(),
            None => {
                let after_value = position_value(g, oracle, &after).map_err(lookup)?;
                MoveInfo {
                    mv,
                    text: text_of,
                    value: Value::of_move_to(after_value),
                    after,
                    after_value,
                }
            }
        };
        let best = a.moves.first().cloned().unwrap_or_else(|| played.clone());
        let mistake = if rank(played.value) < rank(a.value) {
            let line = principal_variation(g, oracle, &best.after).map_err(lookup)?;
            Some(Mistake { line })
        } else {
            None
        };
        out.push(AnnotatedPly {
            ply,
            before: cur,
            before_value: a.value,
            played,
            best,
            mistake,
        });
        cur = after;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::MemoryOracle;
    use crate::games::Weiming;
    use crate::Rules;

    /// Plays the worst move at every ply: whenever that changes the result
    /// the ply is marked, and never otherwise.
    #[test]
    fn marks_exactly_the_moves_that_change_the_result() {
        let g = Weiming::new();
        let o = MemoryOracle::solve(&g, None);
        let mut cur = g.start();
        let mut texts = Vec::new();
        let mut expect = Vec::new();
        for _ in 0..12 {
            if g.game_end(&cur).is_some() {
                break;
            }
            let a = analyse(&g, &o, &cur).unwrap();
            let worst = a.moves.last().unwrap().clone();
            expect.push(worst.value.wdl() != a.value.wdl());
            texts.push(worst.text.clone());
            cur = worst.after;
        }
        let Ok(review) = annotate(&g, &o, &g.start(), &texts) else {
            panic!("the worst moves are legal");
        };
        assert_eq!(review.len(), texts.len());
        let marked: Vec<bool> = review.iter().map(AnnotatedPly::is_mistake).collect();
        assert_eq!(marked, expect);
        assert!(marked.iter().any(|&m| m), "the worst moves throw something");
        for p in &review {
            assert_eq!(p.played.text, texts[p.ply - 1]);
            if let Some(m) = &p.mistake {
                assert!(rank(p.best.value) > rank(p.played.value));
                let n = p.best.after_value.remoteness().unwrap_or(40) as usize;
                assert!(m.line.len() <= n.max(crate::analysis::DRAW_PV_PLIES));
            }
        }
    }

    #[test]
    fn names_the_ply_of_a_bad_move() {
        let g = Weiming::new();
        let o = MemoryOracle::solve(&g, None);
        let a = analyse(&g, &o, &g.start()).unwrap();
        let first = a.moves[0].text.clone();
        let Err(e) = annotate(&g, &o, &g.start(), &[first.as_str(), "zz-zz"]) else {
            panic!("a malformed second move is refused");
        };
        assert_eq!(e.ply(), 2);
        assert!(matches!(e, AnnotateError::BadMove { .. }), "{e}");
    }
}
