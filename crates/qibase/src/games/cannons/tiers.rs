//! The cannon games' tiers: tier k holds the positions with k soldiers
//! (the cannons are never captured), so a step stays in its tier and a
//! jump leads to tier k − 1. How a tier's slots are numbered is
//! `numbering`'s business.

use std::ops::Range;

use super::{Cannons, CannonsMove, CannonsPos};
use crate::game::{TierKey, Tiers};
use crate::numbering::binom;

impl Tiers for Cannons {
    fn id(&self) -> &str {
        &self.id
    }

    fn rules_hash(&self) -> u64 {
        self.hash
    }

    fn tiers(&self, max_pieces: Option<u32>) -> Vec<TierKey> {
        let top = max_pieces.map_or(self.max_soldiers, |m| m.min(self.max_soldiers));
        (0..=top).collect()
    }

    fn tier_name(&self, t: TierKey) -> String {
        format!("k{t}")
    }

    #[inline]
    fn tier_of(&self, p: &CannonsPos) -> TierKey {
        p.soldiers.count_ones()
    }

    fn tier_max_pieces(&self, t: TierKey) -> u32 {
        t
    }

    fn tier_size(&self, t: TierKey) -> u64 {
        // Saturating: an estimate may ask for tiers past 2^64 slots.
        self.num.slots(self.n_cannons, t).saturating_mul(2)
    }

    fn tier_positions(&self, t: TierKey) -> u64 {
        binom(self.n, self.n_cannons)
            .saturating_mul(binom(self.n - self.n_cannons, t))
            .saturating_mul(2)
    }

    fn tier_deps(&self, t: TierKey) -> Vec<TierKey> {
        if t >= 1 {
            vec![t - 1]
        } else {
            Vec::new()
        }
    }

    #[inline]
    fn rank(&self, t: TierKey, p: &CannonsPos) -> u64 {
        self.rank_in_tier(t, p)
    }

    #[inline]
    fn unrank(&self, t: TierKey, i: u64) -> CannonsPos {
        self.unrank_in_tier(t, i)
    }

    #[inline]
    fn unmoves(&self, p: &CannonsPos, out: &mut Vec<CannonsPos>) {
        self.unmove_positions(p, out)
    }

    #[inline]
    fn used_slots(&self, t: TierKey, range: Range<u64>, out: &mut Vec<(u64, CannonsPos)>) {
        self.used_slots_in(t, range, out)
    }

    // Always inlined, as the fast paths it calls: see numbering.rs.
    #[inline(always)]
    fn child_ranks(
        &self,
        p: &CannonsPos,
        moves: &mut Vec<CannonsMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) {
        self.child_ranks_fast(p, moves, out)
    }

    #[inline]
    fn lower_child_ranks(
        &self,
        p: &CannonsPos,
        moves: &mut Vec<CannonsMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) -> usize {
        self.lower_child_ranks_fast(p, moves, out)
    }

    /// The side to move is the slot's lowest bit (see numbering.rs).
    #[inline]
    fn slot_half(&self, _t: TierKey, i: u64) -> Option<bool> {
        Some(i & 1 == 1)
    }

    #[inline]
    fn in_tier_children_may_share_slots(&self, p: &CannonsPos) -> bool {
        self.children_may_share_slots(p)
    }

    // Always inlined, as the fast paths it calls: see numbering.rs.
    #[inline(always)]
    fn unmove_ranks(
        &self,
        t: TierKey,
        p: &CannonsPos,
        parents: &mut Vec<CannonsPos>,
        out: &mut Vec<u64>,
    ) {
        self.unmove_ranks_fast(t, p, parents, out)
    }

    // Always inlined, as the fast paths it calls: see numbering.rs.
    #[inline(always)]
    fn slot_unmove_ranks(
        &self,
        t: TierKey,
        i: u64,
        parents: &mut Vec<CannonsPos>,
        out: &mut Vec<u64>,
    ) -> bool {
        self.slot_unmove_ranks_fast(t, i, parents, out)
    }

    fn symmetry_images(&self, p: &CannonsPos, out: &mut Vec<CannonsPos>) {
        self.symmetry_images_of(p, out)
    }

    fn orbit_size(&self, p: &CannonsPos) -> u64 {
        self.orbit_size_of(p)
    }
}
