//! The memory kernels of `ceiling`: one propagation level's updates of a
//! tier's 16-bit state words and nothing else, done four ways (a
//! sequential scan, random updates in place, the solver's message
//! combining, and the best variant of it found).
//!
//! Every update is the solver's counter step: decrement the word unless it
//! is zero, without a branch on the word (whether a parent is still open is
//! as good as random). The targets are uniform random slots, drawn with the
//! project's generator; the solver's targets are the parents of a level's
//! positions, which the `unmoves` kernel prices separately.

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use rayon::prelude::*;

use qibase::{prefetch_line, Rng};

/// Parent updates per position, about what a position of three-cannons'
/// large tiers sends.
pub const PARENTS: usize = 10;
/// Slots per region (log 2), as the solver's: a region's offsets fit a u16.
const REGION_SHIFT: u32 = 16;
/// How many updates ahead a target is prefetched, as in the solver's apply.
const AHEAD: usize = 32;

/// The counter step, without a branch.
#[inline(always)]
fn step(w: &AtomicU16) {
    let v = w.load(Relaxed);
    w.store(v - (v != 0) as u16, Relaxed);
}

/// `n` state words on huge pages, every one set to a counter that the
/// kernels' decrements do not exhaust, so every page is mapped before any
/// kernel is timed.
pub fn state_words(n: usize) -> Vec<AtomicU16> {
    let mut words = qibase::zeroed_atomic_u16(n);
    words
        .par_chunks_mut(1 << 16)
        .for_each(|c| c.iter_mut().for_each(|w| *w.get_mut() = 1000));
    words
}

/// `seq`: one counter step on every word, in order, each thread on its own
/// chunks (plain loads and stores the compiler may vectorise: the
/// bandwidth bound). Returns the updates made.
pub fn seq(words: &mut [AtomicU16]) -> u64 {
    words.par_chunks_mut(1 << 16).for_each(|c| {
        for w in c {
            let v = w.get_mut();
            *v -= (*v != 0) as u16;
        }
    });
    words.len() as u64
}

/// `random-naive`: `updates` counter steps on uniform random words, split
/// between `tasks` tasks, each straight into the array (relaxed loads and
/// stores: what a solver without message combining would do, minus the
/// atomic operation's lock).
pub fn random_naive(words: &[AtomicU16], updates: u64, tasks: usize, seed: u64) -> u64 {
    let n = words.len();
    let tasks = tasks.max(1) as u64;
    (0..tasks)
        .into_par_iter()
        .map(|k| {
            let mine = updates / tasks + u64::from(k < updates % tasks);
            let mut rng = Rng::new(seed ^ k.wrapping_mul(0x9E37_79B9));
            for _ in 0..mine {
                step(&words[rng.below(n)]);
            }
            mine
        })
        .sum()
}

/// How message combining is cut up: the solver's settings, or another
/// variant's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Combining {
    /// Positions per round (each sends [`PARENTS`] updates).
    pub round: usize,
    /// Positions per send task (one outbox each).
    pub send_chunk: usize,
    /// Keep the outboxes from one round to the next instead of allocating
    /// them anew (the send tasks' scratch lists are reused either way).
    pub reuse: bool,
}

impl Combining {
    /// The solver's defaults (`Tuning` in the library's propagate.rs).
    pub const SOLVER: Combining = Combining {
        round: 1 << 23,
        send_chunk: 1 << 15,
        reuse: false,
    };
    /// The best variant found: a level of three-cannons' largest tier in
    /// one round (2^27 positions, 2.5 GiB of messages), so that each
    /// region gets all its updates, tens per cache line, while it is in
    /// cache, and longer runs per outbox.
    pub const BEST: Combining = Combining {
        round: 1 << 27,
        send_chunk: 1 << 16,
        reuse: true,
    };
}

/// One send task's updates grouped by region: region `r`'s are
/// `msgs[starts[r]..starts[r + 1]]`, as offsets in the region. Mirrors
/// `Outbox` in the library's propagate.rs, which is private to the solver.
#[derive(Default)]
pub struct Outbox {
    pub msgs: Vec<u16>,
    pub starts: Vec<u32>,
}

impl Outbox {
    /// Fill with the updates of `positions` positions, [`PARENTS`] random
    /// targets each in `0..n`, counted by region as they are drawn and then
    /// counting-sorted by region, as the solver's send does; `raw` is
    /// scratch (the targets in the order they were drawn).
    pub fn send(&mut self, positions: usize, n: usize, rng: &mut Rng, raw: &mut Vec<u32>) {
        let regions = n.div_ceil(1 << REGION_SHIFT);
        raw.clear();
        self.starts.clear();
        self.starts.resize(regions + 1, 0);
        for _ in 0..positions * PARENTS {
            let j = rng.below(n) as u32;
            raw.push(j);
            self.starts[(j >> REGION_SHIFT) as usize + 1] += 1;
        }
        for r in 1..=regions {
            self.starts[r] += self.starts[r - 1];
        }
        // Where each region's next message goes; `starts` keeps the runs.
        let mut next = self.starts.clone();
        self.msgs.clear();
        self.msgs.resize(raw.len(), 0);
        let offset = (1u32 << REGION_SHIFT) - 1;
        for &j in raw.iter() {
            let r = (j >> REGION_SHIFT) as usize;
            self.msgs[next[r] as usize] = (j & offset) as u16;
            next[r] += 1;
        }
    }

    /// Region `r`'s run.
    fn run(&self, r: usize) -> &[u16] {
        &self.msgs[self.starts[r] as usize..self.starts[r + 1] as usize]
    }
}

/// `random-solver` and `random-best`: `updates` counter steps (rounded up
/// to whole positions) by message combining as set by `c`: each round's
/// positions are sent by tasks of `c.send_chunk` into outboxes sorted by
/// region, then each region, one task each, gathers its runs from every
/// outbox and applies them, prefetching [`AHEAD`] updates ahead. Returns
/// the updates made.
pub fn combined(words: &[AtomicU16], updates: u64, c: Combining, seed: u64) -> u64 {
    let n = words.len();
    let regions = n.div_ceil(1 << REGION_SHIFT);
    let positions = updates.div_ceil(PARENTS as u64) as usize;
    let mut boxes: Vec<Outbox> = Vec::new();
    let mut done = 0u64;
    let mut lo = 0;
    while lo < positions {
        let len = c.round.min(positions - lo);
        let tasks = len.div_ceil(c.send_chunk);
        if !c.reuse {
            boxes = Vec::new();
        }
        boxes.resize_with(tasks, Outbox::default);
        boxes[..tasks]
            .par_iter_mut()
            .enumerate()
            .for_each_init(Vec::new, |raw, (k, b)| {
                let start = lo + k * c.send_chunk;
                let count = c.send_chunk.min(lo + len - start);
                let mut rng = Rng::new(seed ^ (start as u64).wrapping_mul(0x9E37_79B9));
                b.send(count, n, &mut rng, raw);
            });
        (0..regions)
            .into_par_iter()
            .for_each_init(Vec::new, |updates, r| {
                apply(words, &boxes[..tasks], r, updates)
            });
        done += boxes[..tasks]
            .iter()
            .map(|b| b.msgs.len() as u64)
            .sum::<u64>();
        lo += len;
    }
    done
}

/// Region `r`'s updates from every outbox, gathered into `updates` and
/// applied with each target prefetched [`AHEAD`] updates before it is
/// needed. Only this task touches the region during the apply phase.
fn apply(words: &[AtomicU16], boxes: &[Outbox], r: usize, updates: &mut Vec<u16>) {
    let region = &words[r << REGION_SHIFT..];
    updates.clear();
    for b in boxes {
        updates.extend_from_slice(b.run(r));
    }
    for &o in updates.iter().take(AHEAD) {
        prefetch_line(&region[o as usize]);
    }
    let ahead = updates.iter().skip(AHEAD).chain(std::iter::repeat(&0));
    for (&o, &next) in updates.iter().zip(ahead) {
        prefetch_line(&region[next as usize]);
        step(&region[o as usize]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outbox_holds_exactly_the_drawn_targets_by_region() {
        // Three regions and a bit, so the last one is partial.
        let n = 3 << REGION_SHIFT | 77;
        let mut b = Outbox::default();
        b.send(500, n, &mut Rng::new(7), &mut Vec::new());
        let mut drawn = Vec::new();
        let mut rng = Rng::new(7);
        for _ in 0..500 * PARENTS {
            drawn.push(rng.below(n) as u32);
        }
        let mut got = Vec::new();
        for r in 0..b.starts.len() - 1 {
            got.extend(
                b.run(r)
                    .iter()
                    .map(|&o| (r as u32) << REGION_SHIFT | o as u32),
            );
        }
        // Each run keeps its targets in the order they were drawn.
        for r in [0, 3] {
            let first = drawn.iter().find(|&&j| (j >> REGION_SHIFT) as usize == r);
            assert_eq!(first.map(|&j| j as u16), b.run(r).first().copied());
        }
        assert_eq!(got.len(), drawn.len());
        drawn.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, drawn);
    }

    #[test]
    fn every_kernel_makes_the_updates_it_counts() {
        let n = 5 << REGION_SHIFT;
        let total = |w: &[AtomicU16]| w.iter().map(|x| x.load(Relaxed) as u64).sum::<u64>();
        let mut words = state_words(n);
        let full = total(&words);
        assert_eq!(seq(&mut words), n as u64);
        assert_eq!(total(&words), full - n as u64);
        // One thread, so no update is lost to a race.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        for c in [Combining::SOLVER, Combining::BEST] {
            let c = Combining {
                round: 1000,
                send_chunk: 300,
                ..c
            };
            let before = total(&words);
            let made = pool.install(|| combined(&words, 12_345, c, 3));
            assert_eq!(made, 12_350);
            assert_eq!(total(&words), before - made);
        }
        let before = total(&words);
        assert_eq!(pool.install(|| random_naive(&words, 999, 2, 3)), 999);
        assert_eq!(total(&words), before - 999);
    }
}
