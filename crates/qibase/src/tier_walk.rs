//! A walk through tiers in solve order, and for each tier the last one
//! in the walk that reads it: what everything that goes through a game
//! tier by tier (a solve in any mode, `verify`, `pack`) needs to know to
//! keep the values later tiers read, and no more.

use std::collections::HashMap;

use crate::game::{TierKey, Tiers};

/// Tiers in the order they are walked, and the last reader of each.
#[derive(Clone, Debug)]
pub struct TierWalk {
    tiers: Vec<TierKey>,
    /// The index in `tiers` of the last tier that reads each tier (as a
    /// lower tier); a tier no tier of the walk reads is not in it.
    last_reader: HashMap<TierKey, usize>,
}

impl TierWalk {
    /// The walk through `tiers` (in that order), each reading the tiers
    /// `deps` names.
    pub fn new(tiers: Vec<TierKey>, deps: impl Fn(TierKey) -> Vec<TierKey>) -> TierWalk {
        let mut last_reader = HashMap::new();
        for (k, &t) in tiers.iter().enumerate() {
            for d in deps(t) {
                last_reader.insert(d, k);
            }
        }
        TierWalk { tiers, last_reader }
    }

    /// The walk through the tiers of `g` (or of its subset with at most
    /// `max_pieces` a side), in solve order.
    pub fn of<G: Tiers>(g: &G, max_pieces: Option<u32>) -> TierWalk {
        TierWalk::new(g.tiers(max_pieces), |t| g.tier_deps(t))
    }

    /// The tiers, in order.
    pub fn tiers(&self) -> &[TierKey] {
        &self.tiers
    }

    /// Whether a tier at index `k` of the walk or after it reads `t`.
    pub fn read_from(&self, t: TierKey, k: usize) -> bool {
        self.last_reader.get(&t).is_some_and(|&l| l >= k)
    }

    /// Drop from `held` the tiers that no tier at index `k` or after it
    /// reads.
    pub fn keep_read_from<V>(&self, held: &mut HashMap<TierKey, V>, k: usize) {
        held.retain(|&t, _| self.read_from(t, k));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tier_is_kept_until_its_last_reader() {
        let (a, b, c, d): (TierKey, TierKey, TierKey, TierKey) = (0, 1, 2, 3);
        let deps = |t: TierKey| match t {
            1 => vec![a],
            2 => vec![a, b],
            3 => vec![c],
            _ => vec![],
        };
        let walk = TierWalk::new(vec![a, b, c, d], deps);
        assert_eq!(walk.tiers(), &[a, b, c, d]);
        assert!(walk.read_from(a, 2) && !walk.read_from(a, 3));
        assert!(walk.read_from(c, 3) && !walk.read_from(d, 0));
        let mut held: HashMap<TierKey, ()> = [(a, ()), (b, ()), (c, ())].into();
        walk.keep_read_from(&mut held, 3);
        assert_eq!(held.keys().copied().collect::<Vec<_>>(), vec![c]);
    }
}
