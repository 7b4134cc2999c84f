//! Cannon chess's dense numbering of a tier, symmetry-reduced.
//!
//! A tier {a, b} (see `tiers`) holds every placement with the mover
//! having a pieces and the other b and, if a ≠ b, every placement with
//! the mover having b and the other a: two *halves*, the one with the
//! larger count moving first. The rules are invariant under the board's
//! symmetries: the mirrors of the files and of the ranks and the 180°
//! rotation (4 symmetries), and on a square board the transposes and
//! quarter turns as well (8). Nothing has a direction: steps and slides go
//! both ways along ranks and files, a cannon-shot reads a line in either
//! direction (own own enemy or enemy own own) and is checked on the rank
//! and on the file alike, and a lone piece takes a pair on its rank or on
//! its file. The numbering stores one position per symmetry class. Index
//! of a position with mover set M (m pieces) and other set T (o pieces):
//!
//! ```text
//! half offset + class(M) · C(n−m, o) + rank(compress(σ(T), σ(M)))
//! ```
//!
//! where n = W·H and `rank` is the colex rank of a subset
//! ([`crate::numbering::colex`]). `class(M)` numbers the
//! orbits of m-point sets under the symmetries, in colex order of each
//! orbit's smallest member, its representative. σ ranges over the
//! symmetries mapping M onto the representative (usually just one; more
//! when the representative has a non-trivial stabiliser), and the one giving
//! the smallest rank is used. `compress(T, M)` deletes the points of M from
//! the board and renumbers the rest (pext of T over the points not in M).
//! The half offset is 0 for (m, o) = (a, b) and classes(a)·C(n−a, b) for
//! (m, o) = (b, a). `unrank` returns the stored representative with X to
//! move; a position, its symmetric images and their colour swaps share a
//! rank. A slot whose other set is not the smallest under the
//! representative's stabiliser is unused (`rank(unrank(i)) < i` there).
//! Un-moves are not canonicalised: they are real positions.
//!
//! The numbering itself is the shared layer
//! [`PairNumbering`](crate::numbering::PairNumbering) with A = mover set,
//! B = other set; this file lays the halves out and shares work between
//! the children (and the parents) of a position, which have one set in
//! common.

use std::ops::Range;

use super::{CannonChess, CcMove, CcPos};
use crate::game::{Rules, TierKey, Tiers};
use crate::numbering::GridSymmetry;

impl CannonChess {
    /// Number of board symmetries used by the numbering (8 on a square
    /// board, 4 otherwise).
    pub fn symmetry_count(&self) -> usize {
        self.num.symmetry().len()
    }

    /// The image of `p` under symmetry `s` (`s < symmetry_count()`; 0 is
    /// the identity), same side to move.
    pub fn symmetric(&self, s: usize, p: &CcPos) -> CcPos {
        let sym = self.num.symmetry();
        assert!(s < sym.len(), "symmetry {s} out of range");
        CcPos {
            me: sym.map(s, p.me),
            opp: sym.map(s, p.opp),
            x_to_move: p.x_to_move,
        }
    }

    /// The board's symmetry group (the point maps of `symmetric`).
    pub fn board_symmetry(&self) -> &GridSymmetry {
        self.num.symmetry()
    }

    /// Number of classes (orbits under the board symmetries) of point sets
    /// of `m` points, `m ≤ max_side()`.
    pub fn set_classes(&self, m: u32) -> u64 {
        self.num.classes(m)
    }

    /// Size of one half (mover a, other b) of a tier.
    #[inline]
    pub(super) fn half_size(&self, a: u32, b: u32) -> u64 {
        self.num.size(a, b)
    }

    /// Where the half with mover count m and other count o starts in its
    /// tier: the half with the larger count moving comes first.
    #[inline]
    pub(super) fn half_offset(&self, m: u32, o: u32) -> u64 {
        if m >= o {
            0
        } else {
            self.half_size(o, m)
        }
    }

    /// [`Tiers::rank`]: the half's offset, then the pair numbering's rank.
    #[inline]
    pub(super) fn rank_in_tier(&self, t: TierKey, p: &CcPos) -> u64 {
        debug_assert_eq!(t, self.tier_of(p));
        let (m, o) = (p.me.count_ones(), p.opp.count_ones());
        self.half_offset(m, o) + self.num.rank(p.me, p.opp)
    }

    /// [`Tiers::unrank`]: the stored representative, X to move.
    pub(super) fn unrank_in_tier(&self, t: TierKey, i: u64) -> CcPos {
        let (a, b) = (t / 16, t % 16);
        let hs = self.half_size(a, b);
        let (m, o, i) = if i >= hs { (b, a, i - hs) } else { (a, b, i) };
        let (me, opp) = self.num.unrank(m, o, i);
        CcPos {
            me,
            opp,
            x_to_move: true,
        }
    }

    /// [`Tiers::used_slots`] without the rank round trip.
    pub(super) fn used_slots_in(&self, t: TierKey, range: Range<u64>, out: &mut Vec<(u64, CcPos)>) {
        // The halves (a, b) and, for a ≠ b, (b, a) one after the other, each
        // enumerated by the numbering without re-ranking.
        let (a, b) = (t / 16, t % 16);
        let hs = self.half_size(a, b);
        let halves: &[(u32, u32, u64)] = if a == b {
            &[(a, b, 0)]
        } else {
            &[(a, b, 0), (b, a, hs)]
        };
        for &(m, o, offset) in halves {
            let lo = range.start.max(offset) - offset;
            let hi = range.end.saturating_sub(offset);
            self.num.for_each_used(m, o, lo..hi, |i, me, opp| {
                out.push((
                    offset + i,
                    CcPos {
                        me,
                        opp,
                        x_to_move: true,
                    },
                ))
            });
        }
    }

    /// [`Tiers::child_ranks`] sharing the fixed mover set's class.
    // Always inlined: the solver calls it from its 32- and 64-bit slot
    // paths, and with two callers the compiler stopped inlining it (3-5 %
    // of a solve).
    #[inline(always)]
    pub(super) fn child_ranks_fast(
        &self,
        p: &CcPos,
        moves: &mut Vec<CcMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) {
        // After a move without capture the mover set is p's other set,
        // unchanged: its class and symmetry are found once for all such
        // children. A capture changes it: rank those children in full.
        let t = self.tier_of(p);
        let (m, o) = (p.opp.count_ones(), p.me.count_ones());
        let offset = self.half_offset(m, o);
        let fixed = self.num.fix_a(p.opp, o);
        moves.clear();
        self.moves(p, moves);
        for mv in moves.iter() {
            let c = self.apply(p, mv);
            if mv.captured == 0 {
                debug_assert_eq!(c.me, p.opp);
                out.push((t, offset + self.num.rank_fixed(&fixed, c.opp)));
            } else {
                let ct = self.tier_of(&c);
                out.push((ct, self.rank(ct, &c)));
            }
        }
    }

    /// [`Tiers::unmove_ranks`] sharing the fixed set's symmetry images.
    // Always inlined: the solver calls it from its 32- and 64-bit slot
    // paths, and with two callers the compiler stopped inlining it (3-5 %
    // of a solve).
    #[inline(always)]
    pub(super) fn unmove_ranks_fast(
        &self,
        _t: TierKey,
        p: &CcPos,
        parents: &mut Vec<CcPos>,
        out: &mut Vec<u64>,
    ) {
        // Every parent has p's mover set as its other set: its symmetry
        // images are mapped once for all of them.
        let fixed = self.num.fix_b(p.me);
        let offset = self.half_offset(p.opp.count_ones(), p.me.count_ones());
        parents.clear();
        self.unmoves(p, parents);
        out.extend(parents.iter().map(|q| {
            debug_assert_eq!(q.opp, p.me);
            offset + self.num.rank_fixed_b(&fixed, q.me)
        }));
    }

    /// [`Tiers::lower_child_ranks`]: captures ranked, the rest counted.
    pub(super) fn lower_child_ranks_fast(
        &self,
        p: &CcPos,
        moves: &mut Vec<CcMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) -> usize {
        moves.clear();
        self.moves(p, moves);
        let mut in_tier = 0;
        for mv in moves.iter() {
            if mv.captured == 0 {
                in_tier += 1;
            } else {
                let c = self.apply(p, mv);
                let ct = self.tier_of(&c);
                out.push((ct, self.rank(ct, &c)));
            }
        }
        in_tier
    }

    /// [`Tiers::in_tier_children_may_share_slots`], from the numbering.
    // Always inlined: the solver calls it from its 32- and 64-bit slot
    // paths, and with two callers the compiler stopped inlining it (3-5 %
    // of a solve).
    #[inline(always)]
    pub(super) fn children_may_share_slots(&self, p: &CcPos) -> bool {
        // A child without capture is (p.opp, p.me with one piece moved).
        self.num.moves_may_share_slots(p.opp, p.me)
    }

    /// [`Tiers::symmetry_images`]: board maps and the colour exchange.
    pub(super) fn symmetry_images_of(&self, p: &CcPos, out: &mut Vec<CcPos>) {
        // Each board image, and its colour exchange: the same mover and
        // other sets with the other colour to move.
        for s in 0..self.symmetry_count() {
            let q = self.symmetric(s, p);
            out.push(q);
            out.push(CcPos {
                x_to_move: !q.x_to_move,
                ..q
            });
        }
    }

    /// [`Tiers::orbit_size`], counted by the numbering.
    pub(super) fn orbit_size_of(&self, p: &CcPos) -> u64 {
        2 * self.num.orbit_size(p.me, p.opp)
    }
}
