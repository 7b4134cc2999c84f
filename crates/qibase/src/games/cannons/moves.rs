//! The cannon games' rules: every piece steps to an adjacent empty point;
//! a cannon may instead jump over an adjacent empty point onto a soldier
//! beyond it, capturing it. The soldier count and (by the `immobility`
//! switch) stuck cannons end the game. Un-moves take back a step.

use super::{Cannons, CannonsMove, CannonsPos, Immobility};
use crate::game::{EndReason, GameEnd, Rules, Side};
use crate::value::Value;

/// Precomputed move tables.
pub(super) struct Tables {
    /// Orthogonal neighbours of each point.
    pub(super) adj: [u64; 64],
    /// Points two steps away in a straight line (jump landings).
    pub(super) jump: [u64; 64],
}

impl Tables {
    /// The tables of a `w` × `h` board.
    pub(super) fn new(w: u32, h: u32) -> Tables {
        let pt = |x: i32, y: i32| -> Option<u32> {
            (x >= 0 && y >= 0 && x < w as i32 && y < h as i32).then(|| y as u32 * w + x as u32)
        };
        let mut adj = [0u64; 64];
        let mut jump = [0u64; 64];
        for p in 0..w * h {
            let (x, y) = ((p % w) as i32, (p / w) as i32);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                if let Some(q) = pt(x + dx, y + dy) {
                    adj[p as usize] |= 1 << q;
                }
                if let Some(q) = pt(x + 2 * dx, y + 2 * dy) {
                    jump[p as usize] |= 1 << q;
                }
            }
        }
        Tables { adj, jump }
    }
}

impl Cannons {
    /// True if no cannon can move. A jump needs an empty neighbour too, so
    /// this is: no cannon has an empty neighbour.
    #[inline]
    pub fn cannons_immobile(&self, p: &CannonsPos) -> bool {
        let empty = self.full & !(p.cannons | p.soldiers);
        let mut c = p.cannons;
        while c != 0 {
            let a = c.trailing_zeros();
            c &= c - 1;
            if self.t.adj[a as usize] & empty != 0 {
                return false;
            }
        }
        true
    }

    /// The points a piece on `a` can step to: the adjacent empty points.
    #[inline(always)]
    pub(super) fn steps(&self, a: u32, empty: u64) -> u64 {
        self.t.adj[a as usize] & empty
    }

    /// The points a cannon on `a` can jump to, capturing: a soldier two
    /// points away in a row or a column, with the point between empty.
    #[inline(always)]
    pub(super) fn jumps(&self, a: u32, soldiers: u64, empty: u64) -> u64 {
        let mut targets = 0;
        let mut j = self.t.jump[a as usize] & soldiers;
        while j != 0 {
            let b = j.trailing_zeros();
            j &= j - 1;
            // The jumped point lies halfway.
            if empty >> ((a + b) / 2) & 1 != 0 {
                targets |= 1 << b;
            }
        }
        targets
    }

    /// The un-moves of `p` ([`Tiers::unmoves`](crate::game::Tiers::unmoves)):
    /// the previous mover's step taken back (a jump captured, so it never
    /// stays in the tier).
    pub(super) fn unmove_positions(&self, p: &CannonsPos, out: &mut Vec<CannonsPos>) {
        // Predecessors have p's soldier count (un-moves never un-capture):
        // below the threshold every one of them has a rule end.
        if p.soldiers.count_ones() < self.rules.threshold {
            return;
        }
        // Under the static reading a predecessor with the soldiers to move
        // and immobile cannons has ended; it is not a predecessor.
        let drop_immobile = self.rules.immobility == Immobility::Static && p.side == Side::First;
        let empty = self.full & !(p.cannons | p.soldiers);
        // The previous mover is the side not to move in p; it stepped one
        // of its pieces from b to a (a non-capturing move), so step it back.
        let prev = p.side.other();
        let mut pieces = match prev {
            Side::First => p.cannons,
            Side::Second => p.soldiers,
        };
        while pieces != 0 {
            let a = pieces.trailing_zeros();
            pieces &= pieces - 1;
            let mut t = self.t.adj[a as usize] & empty;
            while t != 0 {
                let b = t.trailing_zeros();
                t &= t - 1;
                let flip = (1u64 << a) | (1u64 << b);
                let q = match prev {
                    Side::First => CannonsPos {
                        cannons: p.cannons ^ flip,
                        soldiers: p.soldiers,
                        side: prev,
                    },
                    Side::Second => CannonsPos {
                        cannons: p.cannons,
                        soldiers: p.soldiers ^ flip,
                        side: prev,
                    },
                };
                if drop_immobile && self.cannons_immobile(&q) {
                    continue;
                }
                out.push(q);
            }
        }
    }
}

impl Rules for Cannons {
    type Pos = CannonsPos;

    type Move = CannonsMove;

    fn start(&self) -> CannonsPos {
        self.start
    }

    fn side_to_move(&self, p: &CannonsPos) -> Side {
        p.side
    }

    fn rule_end(&self, p: &CannonsPos) -> Option<GameEnd> {
        // The soldier count is judged first, right after the capture.
        if p.soldiers.count_ones() < self.rules.threshold {
            return Some(GameEnd {
                value: match p.side {
                    Side::Second => Value::Loss(0),
                    Side::First => Value::Win(0),
                },
                reason: EndReason::TooFewPieces {
                    side: Side::Second,
                    threshold: self.rules.threshold,
                },
            });
        }
        // The static reading: immobile cannons have lost whoever is to move.
        // (With the cannons to move this is also the common rule.)
        if self.rules.immobility == Immobility::Static
            && p.side == Side::Second
            && self.cannons_immobile(p)
        {
            return Some(GameEnd {
                value: Value::Win(0),
                reason: EndReason::Immobile { side: Side::First },
            });
        }
        None
    }

    #[inline]
    fn moves(&self, p: &CannonsPos, out: &mut Vec<CannonsMove>) {
        let empty = self.full & !(p.cannons | p.soldiers);
        let mut pieces = match p.side {
            Side::First => p.cannons,
            Side::Second => p.soldiers,
        };
        let cannons = p.side == Side::First;
        while pieces != 0 {
            let a = pieces.trailing_zeros();
            pieces &= pieces - 1;
            // Steps first, then jumps (the order moves are listed in).
            let jumps = if cannons {
                self.jumps(a, p.soldiers, empty)
            } else {
                0
            };
            for mut targets in [self.steps(a, empty), jumps] {
                while targets != 0 {
                    let b = targets.trailing_zeros();
                    targets &= targets - 1;
                    out.push(CannonsMove {
                        from: a as u8,
                        to: b as u8,
                    });
                }
            }
        }
    }

    #[inline]
    fn apply(&self, p: &CannonsPos, m: &CannonsMove) -> CannonsPos {
        let from = 1u64 << m.from;
        let to = 1u64 << m.to;
        match p.side {
            Side::First => CannonsPos {
                cannons: p.cannons ^ from ^ to,
                soldiers: p.soldiers & !to,
                side: Side::Second,
            },
            Side::Second => CannonsPos {
                cannons: p.cannons,
                soldiers: p.soldiers ^ from ^ to,
                side: Side::First,
            },
        }
    }

    fn pass(&self, p: &CannonsPos) -> CannonsPos {
        CannonsPos {
            side: p.side.other(),
            ..*p
        }
    }
}
