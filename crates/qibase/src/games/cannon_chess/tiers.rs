//! Cannon chess's tiers: a tier is an unordered pair of piece counts
//! {a, b}, a ≥ b, key `a*16+b`, name `avb`. It holds every placement with
//! the mover having a pieces and the other b, and (if a ≠ b) every
//! placement with the mover having b and the other a; a non-capturing move
//! goes from one half to the other, a capture to a tier of fewer pieces.
//! How the slots of a tier are numbered is `numbering`'s business.

use std::ops::Range;

use super::{CannonChess, CcMove, CcPos, Tiao};
use crate::game::{TierKey, Tiers};
use crate::numbering::binom;

impl CannonChess {
    /// The key of the tier with piece counts `a` and `b` (either order).
    pub(super) fn tier_key(a: u32, b: u32) -> TierKey {
        let (a, b) = if a >= b { (a, b) } else { (b, a) };
        a * 16 + b
    }
}

impl Tiers for CannonChess {
    fn id(&self) -> &str {
        &self.id
    }

    fn rules_hash(&self) -> u64 {
        self.hash
    }

    fn tiers(&self, max_pieces: Option<u32>) -> Vec<TierKey> {
        let max = max_pieces.unwrap_or(self.max_side).min(self.max_side);
        let mut v = Vec::new();
        // Every capture lowers the total count, so order by total.
        for total in 0..=2 * max {
            for a in (0..=max).rev() {
                if a > total {
                    continue;
                }
                let b = total - a;
                if b <= a {
                    v.push(Self::tier_key(a, b));
                }
            }
        }
        v
    }

    fn tier_name(&self, t: TierKey) -> String {
        format!("{}v{}", t / 16, t % 16)
    }

    #[inline]
    fn tier_of(&self, p: &CcPos) -> TierKey {
        Self::tier_key(p.me.count_ones(), p.opp.count_ones())
    }

    fn tier_max_pieces(&self, t: TierKey) -> u32 {
        t / 16
    }

    fn tier_size(&self, t: TierKey) -> u64 {
        // Saturating: an estimate may ask for tiers past 2^64 slots.
        let (a, b) = (t / 16, t % 16);
        if a == b {
            self.num.slots(a, b)
        } else {
            // The halves differ in size: classes(a)·C(n−a, b) and
            // classes(b)·C(n−b, a).
            self.num.slots(a, b).saturating_add(self.num.slots(b, a))
        }
    }

    fn tier_positions(&self, t: TierKey) -> u64 {
        // Every placement of a and b pieces, either colour holding a, and
        // either side to move.
        let (a, b) = (t / 16, t % 16);
        let n = self.n;
        let placements = binom(n, a).saturating_mul(binom(n - a, b));
        let colourings = if a == b { 1 } else { 2 };
        placements.saturating_mul(colourings * 2)
    }

    fn tier_deps(&self, t: TierKey) -> Vec<TierKey> {
        let (a, b) = (t / 16, t % 16);
        let mut v = Vec::new();
        let tiao_any = self.rules.tiao == Tiao::Any;
        for (m, o) in [(a, b), (b, a)] {
            if self.is_terminal_counts(m, o) {
                continue;
            }
            // A cannon-shot needs two own pieces; a double capture needs a
            // lone piece, 挑 by any piece, or at least three own pieces (one
            // on each line besides the mover). 挑 takes the pair across the
            // line of travel (the point the piece left is empty), so with
            // it at most one shot (along the travel) comes on top: three.
            if m >= 2 && o >= 1 {
                v.push(Self::tier_key(o - 1, m));
            }
            if (m == 1 || m >= 3 || tiao_any) && o >= 2 {
                v.push(Self::tier_key(o - 2, m));
            }
            if tiao_any && m >= 2 && o >= 3 {
                v.push(Self::tier_key(o - 3, m));
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    #[inline]
    fn rank(&self, t: TierKey, p: &CcPos) -> u64 {
        self.rank_in_tier(t, p)
    }

    #[inline]
    fn unrank(&self, t: TierKey, i: u64) -> CcPos {
        self.unrank_in_tier(t, i)
    }

    #[inline]
    fn unmoves(&self, p: &CcPos, out: &mut Vec<CcPos>) {
        self.unmove_positions(p, out)
    }

    #[inline]
    fn used_slots(&self, t: TierKey, range: Range<u64>, out: &mut Vec<(u64, CcPos)>) {
        self.used_slots_in(t, range, out)
    }

    // Always inlined, as the fast paths it calls: see numbering.rs.
    #[inline(always)]
    fn child_ranks(&self, p: &CcPos, moves: &mut Vec<CcMove>, out: &mut Vec<(TierKey, u64)>) {
        self.child_ranks_fast(p, moves, out)
    }

    #[inline]
    fn lower_child_ranks(
        &self,
        p: &CcPos,
        moves: &mut Vec<CcMove>,
        out: &mut Vec<(TierKey, u64)>,
    ) -> usize {
        self.lower_child_ranks_fast(p, moves, out)
    }

    /// The half where the side with more pieces moves, then the other; a
    /// tier of equal counts has one half only (a colour swap maps each
    /// side to move onto the other).
    #[inline]
    fn slot_half(&self, t: TierKey, i: u64) -> Option<bool> {
        let (a, b) = (t / 16, t % 16);
        (a != b).then(|| i >= self.half_size(a, b))
    }

    #[inline]
    fn in_tier_children_may_share_slots(&self, p: &CcPos) -> bool {
        self.children_may_share_slots(p)
    }

    // Always inlined, as the fast paths it calls: see numbering.rs.
    #[inline(always)]
    fn unmove_ranks(&self, t: TierKey, p: &CcPos, parents: &mut Vec<CcPos>, out: &mut Vec<u64>) {
        self.unmove_ranks_fast(t, p, parents, out)
    }

    fn symmetry_images(&self, p: &CcPos, out: &mut Vec<CcPos>) {
        self.symmetry_images_of(p, out)
    }

    fn orbit_size(&self, p: &CcPos) -> u64 {
        self.orbit_size_of(p)
    }
}
