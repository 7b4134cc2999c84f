//! Reachability from the start: a breadth-first search over the dense index
//! space with one bitset per tier (one bit per slot and variant).
//!
//! Tiers are closed under non-capturing moves and a capture leads to a tier
//! solved earlier, so the search runs tier by tier in reverse solve order:
//! when a tier's turn comes, every higher tier has been searched and has
//! already marked its entry points (capture targets) in this tier. Inside a
//! tier the search goes level by level; each level's frontier is expanded in
//! parallel, marking children with atomic `fetch_or`, so the result does
//! not depend on the thread count.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::ReportGame;
use qibase::prefetch_line;
use qibase::TierKey;

/// Words of the frontier handled per rayon task.
const WORDS_PER_TASK: usize = 256;

/// Frontier positions whose children are ranked before any of them is
/// marked.
const BATCH: usize = 32;

/// Bitsets of reached (slot, variant) pairs, per tier.
pub struct Reach {
    variants: u64,
    /// Indexed by tier key (keys are small numbers).
    bits: Vec<Vec<AtomicU64>>,
}

impl Reach {
    /// Empty bitsets for every tier of `g`, with the start marked.
    pub fn new<G: ReportGame>(g: &G) -> Reach {
        let variants = g.variants() as u64;
        let tiers = g.tiers(None);
        let max_key = tiers.iter().copied().max().unwrap_or(0) as usize;
        let mut bits: Vec<Vec<AtomicU64>> = (0..=max_key).map(|_| Vec::new()).collect();
        for t in tiers {
            let n = (g.tier_size(t) * variants).div_ceil(64) as usize;
            bits[t as usize] = (0..n).map(|_| AtomicU64::new(0)).collect();
        }
        let r = Reach { variants, bits };
        let s = g.start();
        r.mark(g, &s);
        r
    }

    fn key<G: ReportGame>(&self, g: &G, p: &G::Pos) -> (TierKey, u64) {
        let t = g.tier_of(p);
        (t, g.rank(t, p) * self.variants + g.variant(p) as u64)
    }

    /// Mark `p`; true if it was not marked before.
    fn mark<G: ReportGame>(&self, g: &G, p: &G::Pos) -> bool {
        let (t, k) = self.key(g, p);
        let bit = 1u64 << (k % 64);
        self.bits[t as usize][(k / 64) as usize].fetch_or(bit, Relaxed) & bit == 0
    }

    /// Is variant `v` of slot `i` of tier `t` reachable?
    #[inline]
    pub fn reached(&self, t: TierKey, i: u64, v: u32) -> bool {
        let k = i * self.variants + v as u64;
        self.bits[t as usize][(k / 64) as usize].load(Relaxed) >> (k % 64) & 1 != 0
    }

    /// Complete the search inside tier `t`. Every tier that can capture into
    /// `t` must have been completed before.
    pub fn complete_tier<G: ReportGame>(&self, g: &G, t: TierKey) {
        let mine = &self.bits[t as usize];
        let mut frontier: Vec<u64> = mine.iter().map(|w| w.load(Relaxed)).collect();
        while frontier.iter().any(|&w| w != 0) {
            let next: Vec<AtomicU64> = (0..frontier.len()).map(|_| AtomicU64::new(0)).collect();
            frontier
                .par_chunks(WORDS_PER_TASK)
                .enumerate()
                .for_each(|(c, words)| {
                    let mut moves = Vec::new();
                    let mut children = Vec::new();
                    // (tier, bit number) of the children of up to BATCH
                    // frontier positions, each word asked for as it is
                    // found: the words are random reads of bitsets far
                    // larger than the caches, and the ranking of the next
                    // children hides their misses.
                    let mut batch: Vec<(TierKey, u64)> = Vec::new();
                    let mut positions = 0;
                    let flush = |batch: &mut Vec<(TierKey, u64)>| {
                        for &(tq, kq) in batch.iter() {
                            let bit = 1u64 << (kq % 64);
                            let word = (kq / 64) as usize;
                            let cell = &self.bits[tq as usize][word];
                            // Most children are reached already. A plain
                            // load tells, where a locked `fetch_or` on
                            // every child waited for each miss in turn.
                            if cell.load(Relaxed) & bit != 0 {
                                continue;
                            }
                            let old = cell.fetch_or(bit, Relaxed);
                            if tq == t && old & bit == 0 {
                                next[word].fetch_or(bit, Relaxed);
                            }
                        }
                        batch.clear();
                    };
                    for (j, &w) in words.iter().enumerate() {
                        let mut w = w;
                        while w != 0 {
                            let b = w.trailing_zeros() as u64;
                            w &= w - 1;
                            let k = ((c * WORDS_PER_TASK + j) as u64) * 64 + b;
                            let (i, v) = (k / self.variants, (k % self.variants) as u32);
                            let p = g.with_variant(&g.unrank(t, i), v);
                            if g.rule_end(&p).is_some() {
                                continue;
                            }
                            // The solver's child ranks: they share the
                            // work between children (the unmoved side's
                            // symmetry images), where applying and ranking
                            // each child cost a fifth of a report's time.
                            children.clear();
                            g.child_ranks(&p, &mut moves, &mut children);
                            let vq = u64::from(g.child_variant(v));
                            for &(tq, rq) in &children {
                                let kq = rq * self.variants + vq;
                                if let Some(cell) = self.bits[tq as usize].get((kq / 64) as usize) {
                                    prefetch_line(cell);
                                }
                                batch.push((tq, kq));
                            }
                            positions += 1;
                            if positions % BATCH == 0 {
                                flush(&mut batch);
                            }
                        }
                    }
                    flush(&mut batch);
                });
            frontier = next.into_iter().map(|a| a.into_inner()).collect();
        }
    }

    /// Free a finished tier's bitset.
    pub fn drop_tier(&mut self, t: TierKey) {
        self.bits[t as usize] = Vec::new();
    }

    /// The words of tier `t`'s bitset, to be saved.
    pub fn words(&self, t: TierKey) -> impl Iterator<Item = u64> + '_ {
        self.bits[t as usize].iter().map(|w| w.load(Relaxed))
    }

    /// Words of tier `t`'s bitset.
    pub fn word_count(&self, t: TierKey) -> usize {
        self.bits[t as usize].len()
    }

    /// Replace tier `t`'s bitset by saved words (as many as
    /// [`Reach::word_count`] says).
    pub fn restore(&mut self, t: TierKey, words: Vec<u64>) {
        debug_assert_eq!(words.len(), self.bits[t as usize].len());
        self.bits[t as usize] = words.into_iter().map(AtomicU64::new).collect();
    }
}
