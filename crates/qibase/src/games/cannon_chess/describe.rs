//! Cannon chess's rules facts: a slot is a placement and stands for two
//! positions, X to move and its colour swap with O to move.

use super::{CannonChess, CcPos, PARAMS};
use crate::games::variant::ParamDoc;
use crate::games::Describe;

impl Describe for CannonChess {
    fn variants(&self) -> u32 {
        2
    }
    fn with_variant(&self, p: &CcPos, v: u32) -> CcPos {
        CcPos {
            x_to_move: v == 0,
            ..*p
        }
    }
    fn variant(&self, p: &CcPos) -> u32 {
        u32::from(!p.x_to_move)
    }
    fn child_variant(&self, v: u32) -> u32 {
        // Every move passes the turn to the other colour.
        1 - v
    }
    fn side_swapped(&self, p: &CcPos) -> CcPos {
        // Same board, other colour to move: the mover's and the other set swap.
        CcPos {
            me: p.opp,
            opp: p.me,
            x_to_move: !p.x_to_move,
        }
    }
    fn piece_kinds(&self) -> Vec<&'static str> {
        vec!["side to move's pieces", "opponent's pieces"]
    }
    fn piece_bits(&self, p: &CcPos) -> [u64; 3] {
        [p.me, p.opp, 0]
    }
    fn point_maps(&self) -> Vec<Vec<u32>> {
        self.board_symmetry().point_maps()
    }
    fn rules_brief(&self) -> &'static str {
        RULES
    }
    fn param_docs(&self) -> &'static [ParamDoc] {
        PARAMS
    }
}

const RULES: &str = "\
- Board: 4 files × 5 ranks (`cannon-chess`) or the 4 × 4 board of 六子冲 \
(`cannon-chess-4x4`), orthogonal lines only. X (moves first) on a1 b1 c1 d1 a2 d2, O on the top \
rank and the two end points of the rank below it.
- A move takes one piece one step orthogonally to an empty adjacent point.
- Cannon-shot: after the move, each of the two lines (rank and file) through the destination \
captures if it holds exactly three pieces, two of the mover's and one enemy, adjacent, with the \
enemy at one end (`own own enemy`); capture is automatic and both lines can fire. \
**Interpretation** (\"a *new* formation\"): only the piece that moved can fire; a formation made \
by a piece leaving a line, or one the enemy walks into, captures nothing. Any fourth piece on \
the line blocks the shot.
- Lone piece: a side with one piece left slides it any distance in a straight line through empty \
points; stopping between two enemy pieces on a line captures both. It has no cannon-shot.
- End, for the side to move: no pieces → lost; opponent has no pieces → won (only by \
placement); both sides down to one piece → draw; no legal move → lost.
- The rules treat X and O alike (nobody has a forward direction), so a position with X to move \
has the same value as the one with the colours of all pieces exchanged and O to move; the two \
share one slot of the table.";
