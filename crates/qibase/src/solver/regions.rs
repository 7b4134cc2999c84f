//! How a tier's slots are cut into regions: the unit of the apply phase
//! (one region's state words sit in one core's L2 cache while its updates
//! are applied) and of ownership when ranks share a tier (each rank owns
//! a contiguous run of regions).

use std::ops::Range;

/// Slots per region at most (128 KiB of state words: well inside L2; and
/// an offset in a region fits 16 bits).
pub(super) const MAX_REGION_SHIFT: u32 = 16;
/// Slots per region at least, so small tiers are not cut into crumbs.
const MIN_REGION_SHIFT: u32 = 10;
/// Regions wanted at least, so every thread has work in the apply phase.
const MIN_REGIONS_LOG2: u32 = 6;

/// How a tier of `n` slots is cut into regions: slot `j` is in region
/// `j >> shift`.
pub(super) fn region_shift(n: usize) -> u32 {
    let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
    bits.saturating_sub(MIN_REGIONS_LOG2)
        .clamp(MIN_REGION_SHIFT, MAX_REGION_SHIFT)
}

/// The regions of a tier of `regions` regions that rank `rank` of `ranks`
/// owns: a contiguous run, the runs of consecutive ranks adjacent, their
/// lengths differing by at most one region (so the slots balance: regions
/// have equal sizes but the last). Contiguous runs keep each rank's state
/// words in one piece of memory, which the operating system pages in
/// only where the rank writes.
pub(super) fn owned_regions(regions: usize, ranks: usize, rank: usize) -> Range<usize> {
    debug_assert!(rank < ranks);
    let at = |k: usize| (regions as u128 * k as u128 / ranks as u128) as usize;
    at(rank)..at(rank + 1)
}

/// The slots of a tier of `n` slots cut into regions of `1 << shift` that
/// rank `rank` of `ranks` owns.
pub(super) fn owned_slots(n: usize, shift: u32, ranks: usize, rank: usize) -> Range<usize> {
    let regions = region_count(n, shift);
    let r = owned_regions(regions, ranks, rank);
    (r.start << shift).min(n)..(r.end << shift).min(n)
}

/// How many regions of `1 << shift` slots cover `n` slots.
pub(super) fn region_count(n: usize, shift: u32) -> usize {
    n.div_ceil(1 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_own_every_region_once_and_balance() {
        for regions in [0usize, 1, 2, 3, 7, 64, 1000, 190_000] {
            for ranks in 1..=9 {
                let mut next = 0;
                for rank in 0..ranks {
                    let r = owned_regions(regions, ranks, rank);
                    assert_eq!(r.start, next, "{regions} regions, rank {rank} of {ranks}");
                    assert!(r.len() == regions / ranks || r.len() == regions / ranks + 1);
                    next = r.end;
                }
                assert_eq!(next, regions);
            }
        }
    }

    #[test]
    fn owned_slots_cover_the_tier() {
        for n in [0usize, 1, 1023, 1024, 1025, 80_084_620] {
            for ranks in 1..=5 {
                let mut next = 0;
                for rank in 0..ranks {
                    let s = owned_slots(n, 10, ranks, rank);
                    assert_eq!(s.start, next);
                    assert!(s.start.is_multiple_of(1024) || s.start == n);
                    next = s.end;
                }
                assert_eq!(next, n, "n {n} ranks {ranks}");
            }
        }
    }

    #[test]
    fn regions_cover_the_tier_in_cache_sized_pieces() {
        for n in [1usize, 2, 1000, 1 << 16, 80_084_620, u32::MAX as usize] {
            let shift = region_shift(n);
            assert!((MIN_REGION_SHIFT..=MAX_REGION_SHIFT).contains(&shift));
            let regions = ((n - 1) >> shift) + 1;
            assert!((n - 1) >> shift < regions);
            if n >= 1 << (MAX_REGION_SHIFT + MIN_REGIONS_LOG2) {
                assert!(regions >= 1 << MIN_REGIONS_LOG2, "n {n}: {regions} regions");
            }
        }
    }
}
