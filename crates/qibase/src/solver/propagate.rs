//! One level of propagation by message combining (after Romein & Bal's
//! Awari solve): the parent updates of a level are not made where they
//! arise, one random atomic operation each, but first collected and
//! grouped by the region of the tier they fall in; then each region is
//! updated by one thread, with plain loads and stores, while its state
//! words sit in that core's cache.
//!
//! A random atomic read-modify-write waits for its cache line and blocks the
//! core's other memory operations meanwhile; the grouped updates are plain
//! operations on a region that fits the L2 cache, which the core overlaps
//! freely. Writing and reading the messages is sequential and cheap.
//!
//! Phase *send* (parallel over the level's positions): each task un-moves
//! its positions, ranks their distinct parents and sorts those ranks by
//! region into its outbox. Phase *apply* (parallel over regions): each
//! region reads its part of every outbox and updates its slots. Within a
//! level the order of updates does not change which positions are decided
//! at which level, so the table is the same as with atomics, for any thread
//! count. The level's positions go through in rounds, which bounds the
//! memory the messages take.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;

use super::regions::owned_regions;
use super::slot::Slot;
use super::state::{is_open, lower_max, pack, Buckets, Found, COUNT, LOSSES, NOT_A_LOSS, WINS};
use crate::exchange::Exchange;
use crate::game::{TierKey, Tiers};
use crate::tier_values::TierValues;
use crate::value::Value;

/// How a tier's work is cut up, and whether open states keep their
/// longest lower-tier win. Only the speed and the memory depend on it,
/// never the result (tests check that on tiny pieces and with the
/// lower-tier wins re-derived).
#[derive(Clone, Copy, Debug)]
pub(super) struct Tuning {
    /// Positions of a level sent per round: about ten parents each, so a
    /// round's messages take a few hundred megabytes. The more a round
    /// sends, the more updates each region gets while it is in cache
    /// (2^23 against 2^21: tier k13 of three-cannons 4-5 % faster).
    pub round: usize,
    /// Positions per send task: its outbox is sorted in the caches, and
    /// each region's part of it is a run long enough to stream (2^15: each
    /// region gathers its runs from a quarter as many outboxes as with
    /// 2^13, about 2 % faster).
    pub send_chunk: usize,
    /// Slots per region (log 2); `None`: chosen by the tier's size.
    pub region_shift: Option<u32>,
    /// Keep each open state's longest lower-tier win in its state word;
    /// if not, every new loss re-derives it from its moves and the lower
    /// tier (what happens anyway when the win is too long to keep).
    pub keep_lower_wins: bool,
    /// Number slots with 64 bits even where 32 would do (the path of
    /// tiers over 2^32 slots, which tests cannot solve).
    pub wide_slots: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            round: 1 << 23,
            send_chunk: 1 << 15,
            region_shift: None,
            keep_lower_wins: true,
            wide_slots: false,
        }
    }
}

/// Positions per round when several ranks share a tier: each round's
/// updates are also routed and copied there, so rounds stay smaller
/// (about 100 MiB of messages a rank, as docs/cluster.md says).
const CLUSTER_ROUND: usize = 1 << 21;

impl Tuning {
    /// The tuning of a tier whose work `ranks` processes share.
    pub(super) fn for_ranks(ranks: usize) -> Tuning {
        let d = Tuning::default();
        if ranks > 1 {
            Tuning {
                round: CLUSTER_ROUND.min(d.round),
                ..d
            }
        } else {
            d
        }
    }
}

/// Positions per send task at least, however small the level, unless
/// the tuning asks for fewer.
const MIN_SEND_CHUNK: usize = 1 << 13;

/// Losing parents settled together, their lower-tier reads overlapped.
const SETTLE_BATCH: usize = 16;
/// How many updates ahead a parent's state word is prefetched.
const APPLY_AHEAD: usize = 32;

/// One send task's parent ranks, grouped by region: region `r`'s are
/// `msgs[starts[r]..starts[r + 1]]`, each as its offset in the region
/// (regions have at most 2^16 slots: half the memory of whole ranks, so
/// twice the updates per round).
pub(super) struct Outbox {
    pub msgs: Vec<u16>,
    pub starts: Vec<u32>,
}

/// Scratch space of a send task (rayon reuses it across tasks).
struct SendWork<G: Tiers, S> {
    parents: Vec<G::Pos>,
    parent_ranks: Vec<u64>,
    raw: Vec<S>,
    counts: Vec<u32>,
}

impl<G: Tiers, S> Default for SendWork<G, S> {
    fn default() -> Self {
        SendWork {
            parents: Vec::new(),
            parent_ranks: Vec::new(),
            raw: Vec::new(),
            counts: Vec::new(),
        }
    }
}

/// Scratch space of an apply task.
struct ApplyWork<G: Tiers, S> {
    moves: Vec<G::Move>,
    /// Lower-tier children of the parents in `losing`, back to back, and
    /// where each parent's run ends.
    children: Vec<(TierKey, u64)>,
    ends: Vec<u32>,
    /// Parents found to be losses, their value still to settle.
    losing: Vec<S>,
    /// The region's updates from every outbox, back to back.
    updates: Vec<u16>,
    out: Found<S>,
    touches: u64,
}

impl<G: Tiers, S> Default for ApplyWork<G, S> {
    fn default() -> Self {
        ApplyWork {
            moves: Vec::new(),
            children: Vec::new(),
            ends: Vec::new(),
            losing: Vec::new(),
            updates: Vec::new(),
            out: [Vec::new(), Vec::new()],
            touches: 0,
        }
    }
}

/// What one level's propagation needs to know.
pub(super) struct LevelJob<'a, G: Tiers, S> {
    pub g: &'a G,
    pub t: TierKey,
    pub lower: &'a TierValues<'a>,
    /// The state words of slots `base..base + states.len()`: the whole
    /// tier (`base` 0), or the window of it an out-of-core solve holds.
    pub states: &'a [AtomicU16],
    pub base: usize,
    /// Open states whose longest lower-tier win did not fit their state
    /// word, as (slot, that win), sorted: an out-of-core solve settles
    /// their losses from it instead of reading the lower tiers. `None`:
    /// read the lower tiers.
    pub saturated: Option<&'a [(u64, u16)]>,
    pub level: u16,
    /// Positions found decided, for later levels.
    pub found: &'a Mutex<Buckets<S>>,
    pub touches: &'a AtomicU64,
    pub tuning: Tuning,
    /// Slots per region (log 2) and regions of the tier.
    pub shift: u32,
    pub regions: usize,
    /// The regions whose updates this rank applies (all of them in a solve
    /// in one process).
    pub owned: Range<usize>,
}

impl<G: Tiers, S: Slot> LevelJob<'_, G, S> {
    /// Propagate `positions`, all decided at this level, all losses
    /// (`is_loss`) or all wins, to their parents. Collective: every rank
    /// calls it (with its own positions, possibly none), and each round's
    /// updates go to the ranks that own their regions.
    pub fn propagate(&self, positions: &[S], is_loss: bool, ex: &dyn Exchange) {
        let b = self.tuning;
        let round = b.round.max(1);
        // Every rank runs as many rounds as the busiest one.
        let rounds = ex.max(positions.len().div_ceil(round) as u64) as usize;
        let regions = self.regions;
        for k in 0..rounds {
            let lo = (k * round).min(positions.len());
            let hi = (lo + round).min(positions.len());
            let boxes = self.outboxes(&positions[lo..hi]);
            let boxes = if ex.ranks() > 1 {
                route(ex, boxes, regions)
            } else {
                boxes
            };
            self.apply_all(&boxes, is_loss);
        }
    }

    /// The parent updates of `positions`, in outboxes grouped by region
    /// (counted as touches).
    pub fn outboxes(&self, positions: &[S]) -> Vec<Outbox> {
        // Long runs per region on large levels, but on small ones tasks
        // enough for every thread (the small games' levels are small).
        let per_thread = positions.len() / (8 * rayon::current_num_threads());
        let chunk = self
            .tuning
            .send_chunk
            .min(per_thread.max(MIN_SEND_CHUNK))
            .max(1);
        let boxes: Vec<Outbox> = positions
            .par_chunks(chunk)
            .map_init(SendWork::default, |w, chunk| {
                self.send(chunk, self.shift, self.regions, w)
            })
            .collect();
        let sent: u64 = boxes.iter().map(|b| b.msgs.len() as u64).sum();
        self.touches.fetch_add(sent, Relaxed);
        boxes
    }

    /// Apply `boxes`' updates to the owned regions, one task a region.
    pub fn apply_all(&self, boxes: &[Outbox], is_loss: bool) {
        self.owned
            .clone()
            .into_par_iter()
            .for_each_init(ApplyWork::default, |w, r| {
                self.apply(boxes, r, self.shift, is_loss, w);
            });
    }

    /// The distinct parents of each of `chunk`'s positions, sorted by region.
    fn send(&self, chunk: &[S], shift: u32, regions: usize, w: &mut SendWork<G, S>) -> Outbox {
        let (g, t) = (self.g, self.t);
        w.raw.clear();
        // Each parent is counted for its region as it is found: the
        // counter's increments then overlap the rank work instead of
        // waiting on one another in a pass of their own (measured faster).
        w.counts.clear();
        w.counts.resize(regions + 1, 0);
        for &i in chunk {
            w.parent_ranks.clear();
            let may_repeat = g.slot_unmove_ranks(t, i.get(), &mut w.parents, &mut w.parent_ranks);
            if !may_repeat {
                for &j in &w.parent_ranks {
                    w.raw.push(S::new(j));
                    w.counts[(j >> shift) as usize + 1] += 1;
                }
                continue;
            }
            // A parent reached by two un-moves of one child counts that
            // child once. The lists are tiny: a scan beats sorting.
            // Compared with all of them, not stopping at the first match:
            // a loop of known length the compiler vectorises, with no
            // mispredicted exit.
            let start = w.raw.len();
            for &j in w.parent_ranks.iter() {
                let s = S::new(j);
                let seen = w.raw[start..].iter().fold(false, |d, &x| d | (x == s));
                w.raw.push(s);
                w.raw.truncate(w.raw.len() - seen as usize);
                w.counts[(j >> shift) as usize + 1] += !seen as u32;
            }
        }
        // Counting sort by region.
        for r in 1..=regions {
            w.counts[r] += w.counts[r - 1];
        }
        let starts = w.counts.clone();
        let mut msgs = vec![0u16; w.raw.len()];
        let offset = (1u64 << shift) - 1;
        for &j in &w.raw {
            let j = j.get();
            let r = (j >> shift) as usize;
            msgs[w.counts[r] as usize] = (j & offset) as u16;
            w.counts[r] += 1;
        }
        Outbox { msgs, starts }
    }

    /// Region `r`'s updates from every outbox. Only this task touches the
    /// region's slots during the apply phase, so plain (relaxed) loads and
    /// stores suffice.
    fn apply(
        &self,
        boxes: &[Outbox],
        r: usize,
        shift: u32,
        is_loss: bool,
        w: &mut ApplyWork<G, S>,
    ) {
        let states = self.states;
        let level = self.level;
        let won = pack(Value::Win(level + 1));
        // A window or a rank's slice starts at a region.
        let region = &states[(r << shift) - self.base..];
        // A region is seldom in cache when its task starts, and on a large
        // tier a level brings it about one update per cache line: the loads
        // were three quarters of this function's time, one miss after the
        // other. So the region's updates are gathered from the outboxes
        // into one list, and each target is prefetched `APPLY_AHEAD`
        // updates before it is needed: the misses overlap.
        let mut updates = std::mem::take(&mut w.updates);
        updates.clear();
        for b in boxes {
            updates.extend_from_slice(&b.msgs[b.starts[r] as usize..b.starts[r + 1] as usize]);
        }
        for &offset in updates.iter().take(APPLY_AHEAD) {
            crate::prefetch::prefetch(&region[offset as usize]);
        }
        let ahead = updates
            .iter()
            .skip(APPLY_AHEAD)
            .chain(std::iter::repeat(&0));
        // The common updates take no branch on the state: whether a parent
        // is still open is as good as random, and the mispredictions cost
        // 2-3 % of a solve (measured). Each update stores the word back,
        // changed or not, and a win found is pushed and popped again when
        // the parent was decided already.
        if is_loss {
            let found = &mut w.out[WINS];
            found.reserve(updates.len());
            for (&offset, &next) in updates.iter().zip(ahead) {
                crate::prefetch::prefetch(&region[next as usize]);
                let s = &region[offset as usize];
                let old = s.load(Relaxed);
                let open = is_open(old);
                // The parent can move to a loss: a win, at this level
                // if no shorter one was found (levels run in order).
                s.store(if open { won } else { old }, Relaxed);
                let j = S::new((r as u64) << shift | offset as u64);
                found.push((level + 1, j));
                found.truncate(found.len() - !open as usize);
            }
        } else {
            for (&offset, &next) in updates.iter().zip(ahead) {
                crate::prefetch::prefetch(&region[next as usize]);
                let s = &region[offset as usize];
                let old = s.load(Relaxed);
                let open = is_open(old);
                // One more child is a win for the opponent.
                debug_assert!(!open || old & COUNT > 0, "counter underflow");
                s.store(old - open as u16, Relaxed);
                if open && old & (COUNT | NOT_A_LOSS) == 1 {
                    // Every child is a win for the opponent: a loss, as
                    // late as its longest lower-tier win allows.
                    let j = S::new((r as u64) << shift | offset as u64);
                    if let Some(longest) = lower_max(old)
                        .or_else(|| self.saturated.map(|side| saturated_win(side, j.get())))
                    {
                        let l = level.max(longest) + 1;
                        s.store(pack(Value::Loss(l)), Relaxed);
                        w.out[LOSSES].push((l, j));
                    } else {
                        w.losing.push(j);
                        if w.losing.len() == SETTLE_BATCH {
                            self.settle_losses(w);
                        }
                    }
                }
            }
        }
        w.updates = updates;
        if !w.losing.is_empty() {
            self.settle_losses(w);
        }
        w.touches_flush(self.touches);
        if !w.out[LOSSES].is_empty() || !w.out[WINS].is_empty() {
            self.found.lock().unwrap().push_all(&w.out);
            w.out[LOSSES].clear();
            w.out[WINS].clear();
        }
    }

    /// Decide the parents all of whose children are wins for the opponent
    /// and whose longest lower-tier win did not fit their state word: each
    /// is a loss, as late as that win allows. The lower-tier children of
    /// all of them are ranked (and their values prefetched) before any is
    /// read, so those reads overlap.
    fn settle_losses(&self, w: &mut ApplyWork<G, S>) {
        let (g, t, lower) = (self.g, self.t, self.lower);
        w.children.clear();
        w.ends.clear();
        for &j in &w.losing {
            let q = g.unrank(t, j.get());
            let start = w.children.len();
            g.lower_child_ranks(&q, &mut w.moves, &mut w.children);
            for &(ct, r) in &w.children[start..] {
                debug_assert_ne!(ct, t);
                lower.prefetch_value(ct, r);
            }
            w.ends.push(w.children.len() as u32);
        }
        w.touches += w.children.len() as u64;
        let mut start = 0;
        for (&j, &end) in w.losing.iter().zip(&w.ends) {
            let mut longest = 0;
            for &(ct, r) in &w.children[start..end as usize] {
                if let Value::Win(r) = lower.value(ct, r) {
                    longest = longest.max(r);
                }
            }
            start = end as usize;
            let l = self.level.max(longest) + 1;
            self.states[j.index() - self.base].store(pack(Value::Loss(l)), Relaxed);
            w.out[LOSSES].push((l, j));
        }
        w.losing.clear();
    }
}

/// The longest lower-tier win kept for slot `j` in the sorted side table.
fn saturated_win(side: &[(u64, u16)], j: u64) -> u16 {
    match side.binary_search_by_key(&j, |&(k, _)| k) {
        Ok(at) => side[at].1,
        Err(_) => unreachable!("slot {j}'s lower-tier win is not in the side table"),
    }
}

/// Hand each rank the updates of the regions it owns: every outbox's runs
/// of a rank's regions, region by region, and per region their number.
/// What comes back is one outbox per sending rank, its starts over all
/// regions (empty outside this rank's), which [`LevelJob::apply`] reads
/// as it reads local outboxes.
fn route(ex: &dyn Exchange, boxes: Vec<Outbox>, regions: usize) -> Vec<Outbox> {
    let ranks = ex.ranks();
    let (counts, msgs): (Vec<Vec<u32>>, Vec<Vec<u16>>) = (0..ranks)
        .into_par_iter()
        .map(|d| {
            let own = owned_regions(regions, ranks, d);
            let total: usize = boxes
                .iter()
                .map(|b| (b.starts[own.end] - b.starts[own.start]) as usize)
                .sum();
            let mut msgs = Vec::with_capacity(total);
            let mut counts = Vec::with_capacity(own.len());
            for r in own {
                let before = msgs.len();
                for b in &boxes {
                    msgs.extend_from_slice(&b.msgs[b.starts[r] as usize..b.starts[r + 1] as usize]);
                }
                counts.push((msgs.len() - before) as u32);
            }
            (counts, msgs)
        })
        .unzip();
    drop(boxes);
    let mine = owned_regions(regions, ranks, ex.rank());
    ex.all_to_all(counts, msgs, mine.len())
        .into_iter()
        .map(|(counts, msgs)| {
            let mut starts = vec![0u32; regions + 1];
            let mut at = 0u32;
            for (k, r) in mine.clone().enumerate() {
                starts[r] = at;
                at += counts[k];
            }
            for s in &mut starts[mine.end..] {
                *s = at;
            }
            debug_assert_eq!(at as usize, msgs.len());
            Outbox { msgs, starts }
        })
        .collect()
}

impl<G: Tiers, S> ApplyWork<G, S> {
    fn touches_flush(&mut self, total: &AtomicU64) {
        if self.touches > 0 {
            total.fetch_add(self.touches, Relaxed);
            self.touches = 0;
        }
    }
}
