//! The cannon games' rules facts: a slot is an orbit of positions under
//! the board's symmetries.

use super::{Cannons, CannonsPos, PARAMS};
use crate::games::variant::ParamDoc;
use crate::games::Describe;

impl Describe for Cannons {
    fn side_swapped(&self, p: &CannonsPos) -> CannonsPos {
        CannonsPos {
            side: p.side.other(),
            ..*p
        }
    }
    fn piece_kinds(&self) -> Vec<&'static str> {
        vec!["cannons", "soldiers"]
    }
    fn piece_bits(&self, p: &CannonsPos) -> [u64; 3] {
        [p.cannons, p.soldiers, 0]
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
- Board: 5 × 5 points, orthogonal lines. two-cannons: 2 cannons `C` and 12 soldiers `S`; \
three-cannons: 3 cannons and 15 soldiers. The cannons move first.
- Setup of two-cannons (**Interpretation**; the original rules' \"12 soldiers fill the top two rows\" \
cannot hold on a 5-wide board): soldiers on ranks 4 and 5 and on a3, e3, cannons on b1 and d1 \
(`SSSSS/SSSSS/S...S/...../.C.C. C`), i.e. three-cannons minus the middle cannon and the middle \
three soldiers of rank 3. Other setups are compared below.
- Every piece steps one point orthogonally to an empty adjacent point. A cannon may instead jump \
over one adjacent empty point onto a soldier directly beyond it and capture it (optional, one \
capture per move). Soldiers never capture; cannons are never captured.
- The cannons win as soon as fewer than 4 soldiers remain. A side with no legal move on its \
turn loses, so the soldiers win by immobilising the cannons on the cannons' turn. \
**Interpretation**: a stuck side loses only on its own turn (if the cannons are walled in with \
the soldiers to move, the soldiers must still move).";
