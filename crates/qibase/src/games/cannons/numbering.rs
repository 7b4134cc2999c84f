//! The cannon games' dense numbering of a tier, symmetry-reduced.
//!
//! Tier = soldier count k. Inside a tier the index is
//! `((cannon_class · C(N − c, k) + soldier_rank) · 2 + side)` with N points,
//! c cannons, side 0 = cannons to move, 1 = soldiers to move.
//! `cannon_class` numbers the orbits of cannon placements under the board's
//! symmetries (8 on a square board, 4 otherwise), in order of the colex rank
//! of each orbit's smallest member, which is the orbit's representative.
//! `soldier_rank` is the colex rank of the soldier set, compressed to the
//! N − c points the representative leaves free. A position is stored under
//! the symmetry that maps its cannons onto the representative and, among
//! those (the representative's stabiliser), gives the smallest soldier rank.
//! Slots whose soldier set is not minimal under the stabiliser are unused:
//! `rank(unrank(i)) != i` for them. This is the shared layer
//! [`PairNumbering`](crate::numbering::PairNumbering) with A = cannons,
//! B = soldiers; this file adds the side to move and shares work between
//! the children (and the parents) of a position whose cannons stay put.

use std::ops::Range;

use super::{Cannons, CannonsMove, CannonsPos, Immobility};
use crate::game::{child_ranks_by_moves, unmove_ranks_by_unmoves, Rules, Side, TierKey, Tiers};
use crate::numbering::GridSymmetry;

impl Cannons {
    /// Number of orbits of cannon placements under the board symmetries.
    pub fn cannon_classes(&self) -> usize {
        self.num.classes(self.n_cannons) as usize
    }

    /// Number of board symmetries used for the numbering.
    pub fn symmetry_count(&self) -> usize {
        self.num.symmetry().len()
    }

    /// The board's symmetry group (the point maps of `symmetric`).
    pub fn board_symmetry(&self) -> &GridSymmetry {
        self.num.symmetry()
    }

    /// The image of `p` under symmetry `s` (`s < symmetry_count()`).
    pub fn symmetric(&self, s: usize, p: &CannonsPos) -> CannonsPos {
        let sym = self.num.symmetry();
        assert!(s < sym.len(), "symmetry {s} out of range");
        CannonsPos {
            cannons: sym.map(s, p.cannons),
            soldiers: sym.map(s, p.soldiers),
            side: p.side,
        }
    }

    #[inline]
    /// [`Tiers::rank`]: the pair's rank, then the side to move.
    pub(super) fn rank_in_tier(&self, t: TierKey, p: &CannonsPos) -> u64 {
        debug_assert_eq!(t, p.soldiers.count_ones());
        (self.num.rank(p.cannons, p.soldiers) << 1) | (p.side == Side::Second) as u64
    }

    #[inline]
    /// [`Tiers::unrank`]: the stored representative.
    pub(super) fn unrank_in_tier(&self, t: TierKey, i: u64) -> CannonsPos {
        let side = if i & 1 == 0 {
            Side::First
        } else {
            Side::Second
        };
        let (cannons, soldiers) = self.num.unrank(self.n_cannons, t, i >> 1);
        CannonsPos {
            cannons,
            soldiers,
            side,
        }
    }

    /// [`Tiers::used_slots`] without the rank round trip.
    pub(super) fn used_slots_in(
        &self,
        t: TierKey,
        range: Range<u64>,
        out: &mut Vec<(u64, CannonsPos)>,
    ) {
        // Slot 2j + side holds pair j with that side to move: enumerate the
        // used pairs the range touches, and keep the slots inside it.
        let pairs = range.start >> 1..range.end.div_ceil(2);
        self.num
            .for_each_used(self.n_cannons, t, pairs, |j, cannons, soldiers| {
                for (bit, side) in [(0, Side::First), (1, Side::Second)] {
                    let i = j << 1 | bit;
                    if range.contains(&i) {
                        out.push((
                            i,
                            CannonsPos {
                                cannons,
                                soldiers,
                                side,
                            },
                        ));
                    }
                }
            });
    }

    /// [`Tiers::child_ranks`] sharing the fixed cannons' class.
    // Always inlined: the solver calls it from its 32- and 64-bit slot
    // paths, and with two callers the compiler stopped inlining it (3-5 %
    // of a solve).
    #[inline(always)]
    pub(super) fn child_ranks_fast(
        &self,
        p: &CannonsPos,
        moves: &mut Vec<CannonsMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) {
        if p.side == Side::First {
            // Cannon moves change the cannon set: rank each child in full.
            return child_ranks_by_moves(self, p, moves, out);
        }
        // Soldier steps leave the cannons, and with them their class and
        // symmetry, where they are: found once for all the children.
        let k = p.soldiers.count_ones();
        let fixed = self.num.fix_a(p.cannons, k);
        moves.clear();
        self.moves(p, moves);
        for m in moves.iter() {
            let c = self.apply(p, m);
            debug_assert_eq!(c.cannons, p.cannons);
            out.push((k, self.num.rank_fixed(&fixed, c.soldiers) << 1));
        }
    }

    /// [`Tiers::lower_child_ranks`]: jumps ranked, steps counted.
    pub(super) fn lower_child_ranks_fast(
        &self,
        p: &CannonsPos,
        _moves: &mut Vec<CannonsMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) -> usize {
        // Steps stay in the tier: counted, not listed. Only the cannons'
        // jumps capture.
        let empty = self.full & !(p.cannons | p.soldiers);
        let mut in_tier = 0;
        let mut pieces = match p.side {
            Side::First => p.cannons,
            Side::Second => p.soldiers,
        };
        while pieces != 0 {
            let a = pieces.trailing_zeros();
            pieces &= pieces - 1;
            in_tier += self.steps(a, empty).count_ones() as usize;
            if p.side == Side::First {
                let mut jumps = self.jumps(a, p.soldiers, empty);
                while jumps != 0 {
                    let b = jumps.trailing_zeros();
                    jumps &= jumps - 1;
                    let m = CannonsMove {
                        from: a as u8,
                        to: b as u8,
                    };
                    let c = self.apply(p, &m);
                    let ct = self.tier_of(&c);
                    out.push((ct, self.rank(ct, &c)));
                }
            }
        }
        in_tier
    }

    /// [`Tiers::in_tier_children_may_share_slots`], from the numbering.
    // Always inlined: the solver calls it from its 32- and 64-bit slot
    // paths, and with two callers the compiler stopped inlining it (3-5 %
    // of a solve).
    #[inline(always)]
    pub(super) fn children_may_share_slots(&self, p: &CannonsPos) -> bool {
        // A step moves one piece of the side to move; the other side's
        // pieces stay.
        match p.side {
            Side::First => self.num.moves_may_share_slots(p.soldiers, p.cannons),
            Side::Second => self.num.moves_may_share_slots(p.cannons, p.soldiers),
        }
    }

    /// [`Tiers::unmove_ranks`] sharing the fixed cannons' class.
    // Always inlined: the solver calls it from its 32- and 64-bit slot
    // paths, and with two callers the compiler stopped inlining it (3-5 %
    // of a solve).
    #[inline(always)]
    pub(super) fn unmove_ranks_fast(
        &self,
        t: TierKey,
        p: &CannonsPos,
        parents: &mut Vec<CannonsPos>,
        out: &mut Vec<u64>,
    ) {
        if p.side == Side::Second {
            // The cannons moved last: each parent has other cannons.
            return unmove_ranks_by_unmoves(self, t, p, parents, out);
        }
        // The soldiers moved last: every parent has p's cannons.
        let fixed = self.num.fix_a(p.cannons, t);
        parents.clear();
        self.unmoves(p, parents);
        out.extend(
            parents
                .iter()
                .map(|q| self.num.rank_fixed(&fixed, q.soldiers) << 1 | 1),
        );
    }

    /// [`Tiers::slot_unmove_ranks`]: with the cannons to move, the
    /// soldiers moved last, and where the cannons' representative has no
    /// symmetry each parent's index is slot `i`'s plus a colex delta (no
    /// position built, no rank computed) and no two parents share a slot.
    // Always inlined: the backward pass calls it for every position it
    // decides.
    #[inline(always)]
    pub(super) fn slot_unmove_ranks_fast(
        &self,
        t: TierKey,
        i: u64,
        parents: &mut Vec<CannonsPos>,
        out: &mut Vec<u64>,
    ) -> bool {
        let slot = self.num.unrank_slot(self.n_cannons, t, i >> 1);
        let p = CannonsPos {
            cannons: slot.a,
            soldiers: slot.b,
            side: if i & 1 == 0 {
                Side::First
            } else {
                Side::Second
            },
        };
        if p.side == Side::Second || !slot.b_moves_are_incremental() {
            self.unmove_ranks_fast(t, &p, parents, out);
            return true;
        }
        // The rules of `unmove_positions` for a soldier's step, in a loop
        // of their own: one walker shared with it (a closure per un-move)
        // measured 1-12 % slower on three-cannons. The contract checker
        // compares the two under every rule switch.
        // Predecessors have p's soldier count: below the threshold every
        // one of them has a rule end.
        if t < self.rules.threshold {
            return false;
        }
        // Under the static reading a predecessor (soldiers to move) whose
        // cannons cannot move has ended: not a predecessor.
        let drop_immobile = self.rules.immobility == Immobility::Static;
        let empty = self.full & !(slot.a | slot.b);
        let mut soldiers = slot.b;
        while soldiers != 0 {
            let at = soldiers.trailing_zeros();
            soldiers &= soldiers - 1;
            // The soldier stepped from an empty neighbour onto `at`.
            let mut origins = self.t.adj[at as usize] & empty;
            while origins != 0 {
                let from = origins.trailing_zeros();
                origins &= origins - 1;
                if drop_immobile {
                    let q = CannonsPos {
                        soldiers: slot.b ^ (1 << at) ^ (1 << from),
                        ..p
                    };
                    if self.cannons_immobile(&q) {
                        continue;
                    }
                }
                out.push(self.num.b_move_rank(&slot, at, from) << 1 | 1);
            }
        }
        false
    }

    /// [`Tiers::symmetry_images`]: the board maps.
    pub(super) fn symmetry_images_of(&self, p: &CannonsPos, out: &mut Vec<CannonsPos>) {
        for s in 0..self.symmetry_count() {
            out.push(self.symmetric(s, p));
        }
    }

    /// [`Tiers::orbit_size`], counted by the numbering.
    pub(super) fn orbit_size_of(&self, p: &CannonsPos) -> u64 {
        self.num.orbit_size(p.cannons, p.soldiers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbit_counts() {
        assert_eq!(Cannons::two_cannons().cannon_classes(), 49);
        assert_eq!(Cannons::three_cannons().cannon_classes(), 319);
    }

    #[test]
    fn symmetries_are_distinct_and_map_the_board() {
        let g = Cannons::two_cannons();
        let p = |c: u64| CannonsPos {
            cannons: c,
            soldiers: 0,
            side: Side::First,
        };
        for s in 0..8 {
            assert_eq!(g.symmetric(s, &p(g.full)), p(g.full));
        }
        let imgs: std::collections::HashSet<u64> =
            (0..8).map(|s| g.symmetric(s, &p(0b110)).cannons).collect();
        assert_eq!(imgs.len(), 8);
    }
}
