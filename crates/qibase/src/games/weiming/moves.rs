//! Weiming's moves: a side steps one of its pieces, or the shared piece
//! `S` unless it is locked (it moved on the previous move), along a line
//! to an adjacent empty point. Un-moves take a move back.

use super::{Weiming, WeimingMove, WeimingPos, START};
use crate::game::{GameEnd, Notation, Rules, Side};

impl Weiming {
    /// The un-moves of `p` ([`Tiers::unmoves`](crate::game::Tiers::unmoves)):
    /// the shared piece's move taken back if it is locked, else one of the
    /// previous mover's steps (with the shared piece free or locked then).
    // Always inlined: the solver calls it from its 32- and 64-bit slot
    // paths, and with two callers the compiler stopped inlining it (3-5 %
    // of a solve).
    #[inline(always)]
    pub(super) fn unmove_positions(&self, p: &WeimingPos, out: &mut Vec<WeimingPos>) {
        let prev = p.side.other();
        let empty = Self::empty(p);
        if p.locked {
            // The shared piece moved last, from an adjacent (now empty) point;
            // it was free then.
            let mut b = self.adj[p.s as usize] & empty;
            while b != 0 {
                let from = b.trailing_zeros() as u8;
                b &= b - 1;
                out.push(WeimingPos {
                    s: from,
                    side: prev,
                    locked: false,
                    ..*p
                });
            }
        } else {
            // The previous mover stepped one of its own pieces; the shared
            // piece may have been free or locked for it.
            let mut pieces = match prev {
                Side::First => p.x,
                Side::Second => p.o,
            };
            while pieces != 0 {
                let at = pieces.trailing_zeros() as u8;
                pieces &= pieces - 1;
                let mut b = self.adj[at as usize] & empty;
                while b != 0 {
                    let from = b.trailing_zeros() as u8;
                    b &= b - 1;
                    let flip = (1u16 << at) | (1u16 << from);
                    let mut q = WeimingPos {
                        side: prev,
                        locked: false,
                        ..*p
                    };
                    match prev {
                        Side::First => q.x ^= flip,
                        Side::Second => q.o ^= flip,
                    }
                    out.push(q);
                    q.locked = true;
                    out.push(q);
                }
            }
        }
    }
}

impl Rules for Weiming {
    type Pos = WeimingPos;

    type Move = WeimingMove;

    fn start(&self) -> WeimingPos {
        self.parse_pos(START).expect("start position parses")
    }

    fn side_to_move(&self, p: &WeimingPos) -> Side {
        p.side
    }

    fn rule_end(&self, _p: &WeimingPos) -> Option<GameEnd> {
        None
    }

    fn moves(&self, p: &WeimingPos, out: &mut Vec<WeimingMove>) {
        let empty = Self::empty(p);
        let mut own = Self::own(p);
        while own != 0 {
            let f = own.trailing_zeros() as u8;
            own &= own - 1;
            let mut t = self.adj[f as usize] & empty;
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                out.push(WeimingMove { from: f, to });
            }
        }
        if !p.locked {
            let mut t = self.adj[p.s as usize] & empty;
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                t &= t - 1;
                out.push(WeimingMove { from: p.s, to });
            }
        }
    }

    fn apply(&self, p: &WeimingPos, m: &WeimingMove) -> WeimingPos {
        let mut q = *p;
        if m.from == p.s {
            q.s = m.to;
            q.locked = true;
        } else {
            let flip = (1u16 << m.from) | (1u16 << m.to);
            match p.side {
                Side::First => q.x ^= flip,
                Side::Second => q.o ^= flip,
            }
            q.locked = false;
        }
        q.side = p.side.other();
        q
    }

    fn pass(&self, p: &WeimingPos) -> WeimingPos {
        // A pass is not a move of the shared piece: it frees it.
        WeimingPos {
            side: p.side.other(),
            locked: false,
            ..*p
        }
    }
}
