//! Weiming's rules facts: one slot is one position.

use super::{Weiming, WeimingPos};
use crate::game::Side;
use crate::games::Describe;

impl Describe for Weiming {
    fn side_swapped(&self, p: &WeimingPos) -> WeimingPos {
        WeimingPos {
            side: p.side.other(),
            ..*p
        }
    }
    fn locked_twin(&self, p: &WeimingPos) -> Option<WeimingPos> {
        (!p.locked).then_some(WeimingPos { locked: true, ..*p })
    }
    fn piece_kinds(&self) -> Vec<&'static str> {
        vec!["side to move's pieces", "opponent's pieces", "shared piece"]
    }
    fn piece_bits(&self, p: &WeimingPos) -> [u64; 3] {
        let (me, opp) = match p.side {
            Side::First => (p.x, p.o),
            Side::Second => (p.o, p.x),
        };
        [me as u64, opp as u64, 1 << p.s]
    }
    fn rules_brief(&self) -> &'static str {
        RULES
    }
}

const RULES: &str = "\
- Board: 9 points (`tl tm tr` on top, `bl bm br` at the bottom, the shared piece's point `s` at \
the far left, the crossing `x` of the left diagonals, the midpoint `m` of tm–bm) joined by 13 \
lines: tl–tm, tm–tr, tr–br, br–bm, bm–bl, tm–m, m–bm, tl–x, x–bm, bl–x, x–tm, s–x, x–m.
- X (moves first) on tl tm tr, O on bl bm br, the shared piece S on s; x and m empty. Start \
`XXX/S../OOO X -`.
- A move takes one of your own pieces or the shared piece one step along a line to an empty \
adjacent point. No jumps, no captures.
- Lockout: if the previous move moved S, the side to move may not move it. \
**Interpretation**: the bar lasts for the opponent's immediate reply only, so one player may \
move S on several of their own turns in a row.
- A side with no legal move loses (its pieces stuck and S stuck or locked out).
- The lock flag is part of the position (`-` free, `!` locked for the side to move).";
