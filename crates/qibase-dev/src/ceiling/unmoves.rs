//! The compute kernel of `ceiling`: what the solver cannot avoid doing for
//! a decided position before its updates are sent, namely finding its
//! parents (un-moves), with their ranks as the solver needs them and,
//! for comparison, without.

use std::hint::black_box;

use rayon::prelude::*;

use qibase::{Rng, TierKey, Tiers};

/// Positions per task.
const CHUNK: usize = 1 << 12;

/// `count` used slots of tier `t` drawn at random (an unused slot is
/// drawn again), in the order drawn, as a level's positions come; fewer if
/// the tier is almost empty.
pub fn used_sample<G: Tiers>(g: &G, t: TierKey, count: usize, seed: u64) -> Vec<u64> {
    let size = g.tier_size(t);
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    let tries = (count as u64).saturating_mul(1000);
    for _ in 0..tries {
        if out.len() == count || size == 0 {
            break;
        }
        let i = ((rng.next_u64() as u128 * size as u128) >> 64) as u64;
        if g.rank(t, &g.unrank(t, i)) == i {
            out.push(i);
        }
    }
    out
}

/// The parents of every slot in `slots`, ranked in tier `t`, as the
/// solver's send phase gets them (`slot_unmove_ranks`). Returns their
/// number (with repeats, as the game gives them).
pub fn ranked<G: Tiers>(g: &G, t: TierKey, slots: &[u64]) -> u64 {
    slots
        .par_chunks(CHUNK)
        .map_init(
            || (Vec::new(), Vec::new()),
            |(parents, ranks), chunk| {
                let mut found = 0;
                for &i in chunk {
                    ranks.clear();
                    g.slot_unmove_ranks(t, i, parents, ranks);
                    found += ranks.len() as u64;
                    black_box(&ranks);
                }
                found
            },
        )
        .sum()
}

/// The parents of every slot in `slots` as positions only: unrank and
/// un-move, no ranks. Returns their number.
pub fn unranked<G: Tiers>(g: &G, t: TierKey, slots: &[u64]) -> u64 {
    slots
        .par_chunks(CHUNK)
        .map_init(Vec::new, |parents, chunk| {
            let mut found = 0;
            for &i in chunk {
                parents.clear();
                g.unmoves(&g.unrank(t, i), parents);
                found += parents.len() as u64;
                black_box(&parents);
            }
            found
        })
        .sum()
}
