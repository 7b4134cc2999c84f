//! [`Rules`]: what a game is, move by move.

use std::fmt::Debug;
use std::hash::Hash;

use super::{EndReason, GameEnd, Side};
use crate::value::Value;

/// A game's rules: the start, the legal moves and their effect, the ends
/// of the game and the time-out pass. What play, analysis and perft use;
/// the solver uses it through [`Tiers`](super::Tiers) (the end rules and,
/// in the default rank lists, move generation).
pub trait Rules: Send + Sync {
    /// A compact position (bitboards), including the side to move and any
    /// other state the rules need (the weiming lock flag).
    type Pos: Copy + Eq + Hash + Debug + Send + Sync + 'static;
    /// A compact move.
    type Move: Copy + Eq + Debug + Send + Sync + 'static;

    /// The start position (of the game's setup).
    fn start(&self) -> Self::Pos;

    /// Who is to move in `p`.
    fn side_to_move(&self, p: &Self::Pos) -> Side;

    /// The end by rule, if the game is over in `p` for a reason other than
    /// "no legal move" (which the caller sees as an empty move list).
    fn rule_end(&self, p: &Self::Pos) -> Option<GameEnd>;

    /// All legal moves, appended to `out` (which the caller clears and reuses,
    /// so move generation never allocates). Meaningless when `rule_end` is Some.
    fn moves(&self, p: &Self::Pos, out: &mut Vec<Self::Move>);

    /// The position after a legal move (captures applied, side switched).
    fn apply(&self, p: &Self::Pos, m: &Self::Move) -> Self::Pos;

    /// The position after the side to move lets its turn time run out
    /// (play mode only: the original games' turn timer): the same board with the
    /// other side to move, and whatever else the game's rules say a pass
    /// changes (in weiming it frees the shared piece).
    fn pass(&self, p: &Self::Pos) -> Self::Pos;

    /// Rule end or "no legal move"; `None` if the game goes on.
    fn game_end(&self, p: &Self::Pos) -> Option<GameEnd> {
        if let Some(e) = self.rule_end(p) {
            return Some(e);
        }
        let mut moves = Vec::new();
        self.moves(p, &mut moves);
        if moves.is_empty() {
            Some(GameEnd {
                value: Value::Loss(0),
                reason: EndReason::NoLegalMove,
            })
        } else {
            None
        }
    }
}
