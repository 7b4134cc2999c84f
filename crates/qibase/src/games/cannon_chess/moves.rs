//! Cannon chess's move generation and its inverse: a piece steps to an
//! adjacent empty point, a lone piece slides (or steps, by the `lone`
//! switch); arriving, a piece captures by cannon-shot (three in a row on a
//! line, own own enemy) and by 挑 (stopping between two enemies: a lone
//! piece, or any piece by the `tiao` switch). Un-moves take back a
//! non-capturing move.

use super::{CannonChess, CcMove, CcPos, Tiao};
use crate::game::{EndReason, GameEnd, Rules, Side};
use crate::value::Value;

/// "No neighbour" in the direction tables.
pub(super) const NONE: u8 = u8::MAX;

/// Per-point lookup tables of a board.
pub(super) struct Tables {
    /// Orthogonal neighbours of each point.
    pub(super) neigh: [u64; 64],
    /// Neighbour in direction 0 = left, 1 = right, 2 = down, 3 = up.
    pub(super) nb: [[u8; 64]; 4],
    /// All points of the rank through each point.
    pub(super) rank_line: [u64; 64],
    /// All points of the file through each point.
    pub(super) file_line: [u64; 64],
    /// For each point, the two-point masks {left, right} and {down, up} of its
    /// neighbours along its rank and file (0 when one of them is off the
    /// board): a lone piece arriving there captures a pair that is all enemy.
    pub(super) pairs: [[u64; 2]; 64],
}

impl Tables {
    /// The tables of a `w` × `h` board.
    pub(super) fn new(w: u32, h: u32) -> Tables {
        let mut tab = Tables {
            neigh: [0; 64],
            nb: [[NONE; 64]; 4],
            rank_line: [0; 64],
            file_line: [0; 64],
            pairs: [[0; 2]; 64],
        };
        let n = w * h;
        for p in 0..n {
            let (f, r) = (p % w, p / w);
            let pi = p as usize;
            if f > 0 {
                tab.nb[0][pi] = (p - 1) as u8;
            }
            if f + 1 < w {
                tab.nb[1][pi] = (p + 1) as u8;
            }
            if r > 0 {
                tab.nb[2][pi] = (p - w) as u8;
            }
            if r + 1 < h {
                tab.nb[3][pi] = (p + w) as u8;
            }
            for d in 0..4 {
                if tab.nb[d][pi] != NONE {
                    tab.neigh[pi] |= 1 << tab.nb[d][pi];
                }
            }
            for q in 0..n {
                if q / w == r {
                    tab.rank_line[pi] |= 1 << q;
                }
                if q % w == f {
                    tab.file_line[pi] |= 1 << q;
                }
            }
            for k in 0..2 {
                let (a, b) = (tab.nb[2 * k][pi], tab.nb[2 * k + 1][pi]);
                if a != NONE && b != NONE {
                    tab.pairs[pi][k] = 1 << a | 1 << b;
                }
            }
        }
        tab
    }
}

impl CannonChess {
    /// The enemy piece captured by a cannon-shot along `line` (0 if none):
    /// `me` are the mover's pieces after the move, `opp` the enemy's;
    /// `pat3` is three contiguous points of the line starting at bit 0 and
    /// `step` the distance of neighbours on it.
    #[inline(always)]
    fn shot(me: u64, opp: u64, line: u64, pat3: u64, step: u32) -> u64 {
        // (No popcount here: the baseline x86-64 target has no POPCNT.)
        let occ = (me | opp) & line;
        if occ == 0 {
            return 0;
        }
        let low = occ.trailing_zeros();
        // Exactly three pieces on the line, on adjacent points. (Shifting
        // the pieces down, not the pattern up: a pattern shifted past the
        // top bit would drop its far end and take two pieces for three.)
        if occ >> low != pat3 {
            return 0;
        }
        // It captures iff the middle one is own and exactly one end is
        // enemy (then the other end is own: own own enemy / enemy own own).
        let enemy = opp & line;
        if me & (1 << (low + step)) != 0 && enemy & enemy.wrapping_sub(1) == 0 {
            enemy
        } else {
            0
        }
    }

    /// Enemy pieces captured by a cannon-shot of the piece that arrived on
    /// `t` (own pieces `me` after the move).
    #[inline(always)]
    fn shots(&self, me: u64, opp: u64, t: usize) -> u64 {
        Self::shot(me, opp, self.tab.rank_line[t], 0b111, 1)
            | Self::shot(me, opp, self.tab.file_line[t], self.file3, self.w)
    }

    /// Enemy pieces captured by a lone piece stopping on `t`.
    #[inline(always)]
    fn lone_captures(&self, opp: u64, t: usize) -> u64 {
        let [a, b] = self.tab.pairs[t];
        let mut c = 0;
        if a != 0 && opp & a == a {
            c |= a;
        }
        if b != 0 && opp & b == b {
            c |= b;
        }
        c
    }

    /// Piece counts (mover, other) at which the game has ended by rule.
    pub(super) fn is_terminal_counts(&self, m: u32, o: u32) -> bool {
        m == 0 || o == 0 || (self.rules.one_v_one_draw && m == 1 && o == 1)
    }

    /// Enemy pieces taken by 挑 when a piece of a side with `own` pieces
    /// arrives on `t`: with the original rules only a lone piece does it.
    #[inline(always)]
    fn tiao_captures(&self, own: u64, opp: u64, t: usize) -> u64 {
        if own & (own - 1) == 0 || self.rules.tiao == Tiao::Any {
            self.lone_captures(opp, t)
        } else {
            0
        }
    }

    /// The un-moves of `p` ([`Tiers::unmoves`](crate::game::Tiers::unmoves)):
    /// every position of its tier with no rule end and a non-capturing
    /// move to `p`, i.e. the previous mover's step (or lone slide) taken
    /// back, unless arriving there would have captured.
    pub(super) fn unmove_positions(&self, p: &CcPos, out: &mut Vec<CcPos>) {
        // The previous mover is the side not to move in p; in q it is to move.
        let prev = p.opp;
        let stay = p.me;
        let pc = prev.count_ones();
        let sc = stay.count_ones();
        if self.is_terminal_counts(pc, sc) {
            // q would have the same counts (mover pc, other sc): a rule end.
            return;
        }
        let occ = prev | stay;
        let x_to_move = !p.x_to_move;
        if pc == 1 {
            let t = prev.trailing_zeros() as usize;
            // Arriving on t would capture: then the move does not lead to p.
            if self.lone_captures(stay, t) != 0 {
                return;
            }
            for d in 0..4 {
                let mut f = self.tab.nb[d][t];
                while f != NONE && occ >> f & 1 == 0 {
                    out.push(CcPos {
                        me: 1 << f,
                        opp: stay,
                        x_to_move,
                    });
                    if !self.rules.lone_slides {
                        break;
                    }
                    f = self.tab.nb[d][f as usize];
                }
            }
            return;
        }
        let empty = self.board & !occ;
        let mut pieces = prev;
        while pieces != 0 {
            let t = pieces.trailing_zeros();
            pieces &= pieces - 1;
            // The shot depends only on the position after the move and the
            // arrival point, not on where the piece came from.
            if self.shots(prev, stay, t as usize) != 0
                || self.tiao_captures(prev, stay, t as usize) != 0
            {
                continue;
            }
            let rest = prev & !(1 << t);
            let mut froms = self.tab.neigh[t as usize] & empty;
            while froms != 0 {
                let f = froms.trailing_zeros();
                froms &= froms - 1;
                out.push(CcPos {
                    me: rest | 1 << f,
                    opp: stay,
                    x_to_move,
                });
            }
        }
    }
}

impl Rules for CannonChess {
    type Pos = CcPos;

    type Move = CcMove;

    fn start(&self) -> CcPos {
        self.start
    }

    fn side_to_move(&self, p: &CcPos) -> Side {
        if p.x_to_move {
            Side::First
        } else {
            Side::Second
        }
    }

    fn rule_end(&self, p: &CcPos) -> Option<GameEnd> {
        let (me, opp) = (p.me, p.opp);
        if me == 0 {
            Some(GameEnd {
                value: Value::Loss(0),
                reason: EndReason::NoPiecesLeft,
            })
        } else if opp == 0 {
            Some(GameEnd {
                value: Value::Win(0),
                reason: EndReason::OpponentHasNoPieces,
            })
        } else if self.rules.one_v_one_draw && me & (me - 1) == 0 && opp & (opp - 1) == 0 {
            Some(GameEnd {
                value: Value::Draw,
                reason: EndReason::BothDownTo { pieces: 1 },
            })
        } else {
            None
        }
    }

    fn moves(&self, p: &CcPos, out: &mut Vec<CcMove>) {
        let me = p.me;
        let opp = p.opp;
        let occ = me | opp;
        if me != 0 && me & (me - 1) == 0 {
            let f = me.trailing_zeros() as usize;
            for d in 0..4 {
                let mut t = self.tab.nb[d][f];
                while t != NONE && occ >> t & 1 == 0 {
                    out.push(CcMove {
                        from: f as u8,
                        to: t,
                        captured: self.lone_captures(opp, t as usize),
                    });
                    if !self.rules.lone_slides {
                        break;
                    }
                    t = self.tab.nb[d][t as usize];
                }
            }
            return;
        }
        let tiao_any = self.rules.tiao == Tiao::Any;
        let empty = self.board & !occ;
        let mut pieces = me;
        while pieces != 0 {
            let f = pieces.trailing_zeros();
            pieces &= pieces - 1;
            let rest = me & !(1 << f);
            let mut targets = self.tab.neigh[f as usize] & empty;
            while targets != 0 {
                let t = targets.trailing_zeros();
                targets &= targets - 1;
                let mut captured = self.shots(rest | 1 << t, opp, t as usize);
                if tiao_any {
                    captured |= self.lone_captures(opp, t as usize);
                }
                out.push(CcMove {
                    from: f as u8,
                    to: t as u8,
                    captured,
                });
            }
        }
    }

    #[inline]
    fn apply(&self, p: &CcPos, m: &CcMove) -> CcPos {
        CcPos {
            me: p.opp & !m.captured,
            opp: p.me ^ (1 << m.from | 1 << m.to),
            x_to_move: !p.x_to_move,
        }
    }

    fn pass(&self, p: &CcPos) -> CcPos {
        // The same board, the other side to move: mover and other swap.
        CcPos {
            me: p.opp,
            opp: p.me,
            x_to_move: !p.x_to_move,
        }
    }
}
