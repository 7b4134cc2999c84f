//! Weiming Shuang Cheng Chess III (`weiming`): 9 points, 13 lines, three
//! pieces a side and one shared piece `S` with a lockout rule.
//!
//! Points, in index order (the order of the position string):
//!
//! ```text
//!  tl ------ tm ------ tr        0 ------- 1 ------- 2
//!     \     / |         |
//!       \ /   |         |
//!  s --- x -- m         |        3 --- 4 -- 5
//!       / \   |         |
//!     /     \ |         |
//!  bl ------ bm ------ br        6 ------- 7 ------- 8
//! ```
//!
//! A position is the X, O bitboards (bit i = point i), the point of `S`,
//! the side to move and the lock flag (`true`: the previous move moved `S`,
//! so the side to move may not move it).
//!
//! Numbering: one tier (`all`) of 9 × C(8,3) × C(5,3) × 2 × 2 = 20,160
//! slots, every slot a position: index = (((s·56 + rank of X among the 8
//! points other than s)·10 + rank of O among the 5 points left)·2 + side)·2
//! + lock.
//!
//! # Files
//!
//! * this file — the board, the position, the move and the game value;
//! * `moves` — the moves, the lockout rule, the pass and the un-moves;
//! * `notation` — position and move strings, the diagram and the drawing;
//! * `tiers` — the single tier and its numbering.

mod describe;
mod moves;
mod notation;
mod tiers;

use crate::game::Side;

/// Point names in index order.
pub const POINT_NAMES: [&str; 9] = ["tl", "tm", "tr", "s", "x", "m", "bl", "bm", "br"];

const TL: u8 = 0;
const TM: u8 = 1;
const TR: u8 = 2;
const S: u8 = 3;
const X: u8 = 4;
const M: u8 = 5;
const BL: u8 = 6;
const BM: u8 = 7;
const BR: u8 = 8;

/// The 13 lines of the board (undirected).
pub const EDGES: [(u8, u8); 13] = [
    (TL, TM),
    (TM, TR),
    (TR, BR),
    (BR, BM),
    (BM, BL),
    (TM, M),
    (M, BM),
    (TL, X),
    (X, BM),
    (BL, X),
    (X, TM),
    (S, X),
    (X, M),
];

/// Pieces per side, and the shared piece.
pub const PIECES_PER_SIDE: u32 = 3;

/// The start position.
pub const START: &str = "XXX/S../OOO X -";

/// Bumped whenever the implemented rules change meaning.
const RULES_VERSION: u32 = 1;

const ALL: u16 = (1 << 9) - 1;

/// Size of the single tier: 9 · 56 · 10 · 2 · 2.
const TIER_SIZE: u64 = 9 * 56 * 10 * 2 * 2;

/// A weiming position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WeimingPos {
    /// X's pieces, bit i = point i.
    pub x: u16,
    /// O's pieces.
    pub o: u16,
    /// Point of the shared piece.
    pub s: u8,
    /// Who is to move (`First`: X).
    pub side: Side,
    /// The previous move moved the shared piece: the side to move may not.
    pub locked: bool,
}

/// A move: a piece (own or shared, as the position says) from one point to
/// an adjacent one.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WeimingMove {
    /// The point the piece leaves.
    pub from: u8,
    /// The point it arrives on.
    pub to: u8,
}

/// The game, with its adjacency table built from [`EDGES`].
pub struct Weiming {
    adj: [u16; 9],
}

impl Default for Weiming {
    fn default() -> Self {
        Self::new()
    }
}

impl Weiming {
    /// The game, its adjacency table built from [`EDGES`].
    pub fn new() -> Self {
        let mut adj = [0u16; 9];
        for &(a, b) in EDGES.iter() {
            adj[a as usize] |= 1 << b;
            adj[b as usize] |= 1 << a;
        }
        Weiming { adj }
    }

    /// Neighbours of point `i` as a bitboard.
    pub fn adjacent(&self, i: u8) -> u16 {
        self.adj[i as usize]
    }

    #[inline]
    pub(super) fn empty(p: &WeimingPos) -> u16 {
        !(p.x | p.o | (1 << p.s)) & ALL
    }

    #[inline]
    pub(super) fn own(p: &WeimingPos) -> u16 {
        match p.side {
            Side::First => p.x,
            Side::Second => p.o,
        }
    }

    pub(super) fn letter(side: Side) -> char {
        match side {
            Side::First => 'X',
            Side::Second => 'O',
        }
    }

    pub(super) fn char_at(p: &WeimingPos, i: u8) -> char {
        if p.s == i {
            'S'
        } else if p.x & (1 << i) != 0 {
            'X'
        } else if p.o & (1 << i) != 0 {
            'O'
        } else {
            '.'
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Notation, Rules};

    #[test]
    fn move_points_match_apply() {
        // Every move of every position (own pieces and the shared one).
        use crate::contract::check_move_points;
        let g = Weiming::new();
        let mut n = 0;
        for s in 0..9u8 {
            for x in 0..512u16 {
                for o in 0..512u16 {
                    if x.count_ones() != 3 || o.count_ones() != 3 || x & o != 0 {
                        continue;
                    }
                    if (x | o) >> s & 1 != 0 {
                        continue;
                    }
                    for side in [Side::First, Side::Second] {
                        for locked in [false, true] {
                            let p = WeimingPos {
                                x,
                                o,
                                s,
                                side,
                                locked,
                            };
                            let (k, caps) = check_move_points(&g, &p).unwrap();
                            assert_eq!(caps, 0);
                            n += k;
                        }
                    }
                }
            }
        }
        assert!(n > 20_000, "{n}");
        let p = g.start();
        let m = g.parse_move(&p, "s-x").unwrap();
        let mp = g.move_points(&p, &m);
        assert_eq!((mp.from, mp.to), (Some(3), Some(4)));
    }
}
