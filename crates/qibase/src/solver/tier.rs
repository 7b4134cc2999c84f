//! Solving one tier: counters of undecided successors, un-moves, and
//! propagation in increasing remoteness (a bucket per level).
//!
//! Per slot the tier keeps one 16-bit *state word* (see [`state`]): either
//! the decided packed value, or "undecided" with the counter of undecided
//! in-tier children in its low bits. Keeping both in one word means a
//! parent update is one memory access (one cache miss), not two, and the
//! tier needs 2 bytes a slot instead of 3.
//!
//! The initial pass works in small batches: first all child ranks of a
//! batch are computed and their lower-tier values prefetched, then they
//! are read, so that the memory latency of one rank overlaps the
//! computation of the next. The levels group their parent updates by
//! region of the tier instead (see [`super::propagate`]).
//!
//! The *set* of positions decided at each level does not depend on the order
//! in which threads run, so the table is identical for any thread count.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use super::exchange::{owned_regions, region_count, Exchange, SingleProcess};
use super::limits::{check_tier_size, LimitError};
use super::propagate::{region_shift, LevelJob, Tuning, MAX_REGION_SHIFT};
use super::slot::Slot;
use crate::game::{TierKey, Tiers};
use crate::tier_values::{add_counts, TierStats, TierValues};
use crate::value::{Packed, Value, UNDECIDED};

/// The solver's per-slot state word.
///
/// * `0` ([`Packed::UNDECIDED`]'s word): the slot holds no position
///   (symmetry reduction),
///   or the initial pass has not reached it yet;
/// * `1 ..= OPEN - 1`: a decided packed value's word ([`Packed::to_bits`]);
/// * `OPEN | lower << 8 | flag | count`: an undecided position with `count`
///   undecided distinct in-tier children. `NOT_A_LOSS` says that a
///   lower-tier child is a loss or a draw, so it can never become a loss;
///   otherwise `lower` is the longest win among its lower-tier children
///   (all wins), which a loss must outlast, or [`LOWER_UNKNOWN`] if that
///   does not fit. Keeping it here spares the propagation re-generating a
///   new loss's moves and reading the lower tier again to find it.
pub(super) mod state {
    /// The first open state: decided values stay below it.
    pub const OPEN: u16 = 0x8000;
    pub const LOWER_SHIFT: u32 = 8;
    pub const LOWER_UNKNOWN: u16 = 0x7F;
    pub const NOT_A_LOSS: u16 = 0x80;
    /// The counter's bits (the limit `MAX_IN_TIER_CHILDREN`).
    pub const COUNT: u16 = 0x7F;

    #[inline]
    pub fn is_open(s: u16) -> bool {
        s >= OPEN
    }

    /// The open state with these counts.
    #[inline]
    pub fn open(count: u16, not_a_loss: bool, lower_max: u16) -> u16 {
        debug_assert!(count <= COUNT);
        let lower = lower_max.min(LOWER_UNKNOWN);
        OPEN | lower << LOWER_SHIFT | if not_a_loss { NOT_A_LOSS } else { 0 } | count
    }

    /// The longest lower-tier win of an open state that can become a
    /// loss, if it was stored.
    #[inline]
    pub fn lower_max(s: u16) -> Option<u16> {
        let lower = (s >> LOWER_SHIFT) & LOWER_UNKNOWN;
        (lower != LOWER_UNKNOWN).then_some(lower)
    }
}
pub(super) use state::{is_open, lower_max, COUNT, NOT_A_LOSS, OPEN};

// The store starts as an array of zeros, which must mean "undecided".
const _: () = assert!(UNDECIDED.to_bits() == 0);

/// Slots handled per rayon task of the initial pass.
pub(super) const CHUNK: usize = 1 << 12;
/// Positions whose ranks are computed (and slots prefetched) before their
/// memory is touched (32 against 16: more reads in flight).
const BATCH: usize = 32;

/// Progress events of [`solve_tier`].
#[derive(Clone, Copy, Debug)]
pub enum Progress {
    /// This many more slots went through the initial pass.
    Initial(u64),
    /// Level `.0` is done; `.1` positions have been propagated so far.
    Level(u16, u64),
}

/// Pack a decided value, which must stay below the open states.
#[inline]
pub(super) fn pack(v: Value) -> u16 {
    let p = v.pack().to_bits();
    assert!(
        p < OPEN,
        "remoteness {v} too large for the solver's state word"
    );
    p
}

/// Index of the losses and of the wins in a level's pair of queues.
pub(super) const LOSSES: usize = 0;
pub(super) const WINS: usize = 1;

/// Positions found decided, as `(level, index)`, by kind ([`LOSSES`],
/// [`WINS`]): propagation then never reads a child's own slot to learn
/// whether it is a win or a loss.
pub(super) type Found<S> = [Vec<(u16, S)>; 2];

/// A per-level pair of queues: the level's losses and its wins.
pub(super) struct Buckets<S> {
    pub(super) levels: Vec<[Vec<S>; 2]>,
}

impl<S> Default for Buckets<S> {
    fn default() -> Self {
        Buckets { levels: Vec::new() }
    }
}

impl<S: Slot> Buckets<S> {
    /// Queue `found`. Called under a lock shared by every thread, so it
    /// moves runs of one level at a time (a region's wins are all of one
    /// level) rather than item by item.
    pub(super) fn push_all(&mut self, found: &Found<S>) {
        for (kind, items) in found.iter().enumerate() {
            for run in items.chunk_by(|a, b| a.0 == b.0) {
                let l = run[0].0 as usize;
                if self.levels.len() <= l {
                    self.levels.resize_with(l + 1, Default::default);
                }
                self.levels[l][kind].extend(run.iter().map(|&(_, i)| i));
            }
        }
    }

    pub(super) fn take(&mut self, level: usize) -> [Vec<S>; 2] {
        self.levels
            .get_mut(level)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub(super) fn len(&self) -> usize {
        self.levels.len()
    }
}

/// View a `Vec<u16>` as atomics (identical layout, see `AtomicU16`'s docs).
pub(super) fn as_atomic_u16(v: &mut [u16]) -> &[AtomicU16] {
    // SAFETY: AtomicU16 has the same size and bit validity as u16, and the
    // exclusive borrow guarantees no non-atomic access while the view lives.
    unsafe { &*(v as *mut [u16] as *const [AtomicU16]) }
}

/// A solved tier.
pub struct SolvedTier {
    /// Packed values; unused slots hold [`UNDECIDED`].
    pub values: Vec<Packed>,
    /// Counts, remoteness and the seconds of the initial pass and the
    /// propagation (the caller fills the rest).
    pub stats: TierStats,
    /// Random memory accesses made: parent updates and lower-tier reads.
    pub touches: u64,
}

/// Solve tier `t` of `g`, given its solved dependencies. `progress` is told
/// how far the initial pass and the levels have got.
///
/// # Panics
///
/// If the tier is over one of the solver's [limits](super::check_limits)
/// ([`try_solve_tier`] returns the error instead).
pub fn solve_tier<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    progress: &(dyn Fn(Progress) + Sync),
) -> SolvedTier {
    try_solve_tier(g, t, lower, progress).unwrap_or_else(|e| panic!("{e}"))
}

/// [`solve_tier`], with a typed error for a tier the solver cannot take.
///
/// # Errors
///
/// [`LimitError::TierTooLarge`] if the tier has more slots than
/// [`MAX_TIER_SLOTS`](super::MAX_TIER_SLOTS) (nothing is solved), and
/// [`LimitError::TooManyChildren`] if a position of it has more distinct
/// in-tier children than
/// [`MAX_IN_TIER_CHILDREN`](super::MAX_IN_TIER_CHILDREN) (found in the
/// initial pass, which then stops).
pub fn try_solve_tier<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<SolvedTier, LimitError> {
    let solved = solve_tier_tuned(
        g,
        t,
        lower,
        progress,
        &|| false,
        Tuning::default(),
        &SingleProcess,
    )?;
    Ok(solved.expect("never asked to stop"))
}

/// [`try_solve_tier`] that also asks `stop` between chunks of the
/// initial pass and between levels, and gives up the tier (`None`) as
/// soon as it says `true`: a caller's cancellation answered in seconds
/// even on the largest tiers.
///
/// # Errors
///
/// As [`try_solve_tier`].
pub fn try_solve_tier_until<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    progress: &(dyn Fn(Progress) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Option<SolvedTier>, LimitError> {
    solve_tier_tuned(
        g,
        t,
        lower,
        progress,
        stop,
        Tuning::default(),
        &SingleProcess,
    )
}

/// [`try_solve_tier_until`] as one of the ranks of a solve that shares
/// the tier's work through `ex` (see [`super::exchange`]). Every rank
/// calls it with the same tier and the same lower tiers; each gets the
/// whole solved tier back. Its touches are this rank's; its counts are
/// the tier's.
///
/// # Errors
///
/// As [`try_solve_tier`], on every rank alike.
pub fn try_solve_tier_shared<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    progress: &(dyn Fn(Progress) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    ex: &dyn Exchange,
) -> Result<Option<SolvedTier>, LimitError> {
    solve_tier_tuned(
        g,
        t,
        lower,
        progress,
        stop,
        Tuning::for_ranks(ex.ranks()),
        ex,
    )
}

pub(super) fn solve_tier_tuned<G: Tiers>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    progress: &(dyn Fn(Progress) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    tuning: Tuning,
    ex: &dyn Exchange,
) -> Result<Option<SolvedTier>, LimitError> {
    check_tier_size(g, t)?;
    if g.tier_size(t) <= <u32 as Slot>::MAX_SLOTS && !tuning.wide_slots {
        solve_with_slots::<G, u32>(g, t, lower, progress, stop, tuning, ex)
    } else {
        solve_with_slots::<G, u64>(g, t, lower, progress, stop, tuning, ex)
    }
}

/// The tier's solve with slot numbers of type `S` in its queues and
/// messages (see [`super::slot`]).
fn solve_with_slots<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    lower: &TierValues,
    progress: &(dyn Fn(Progress) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    tuning: Tuning,
    ex: &dyn Exchange,
) -> Result<Option<SolvedTier>, LimitError> {
    let n = g.tier_size(t) as usize;
    // Every rank holds an array for the whole tier but writes only its own
    // slots until the end: the pages of the others are never touched, so
    // they take no memory until the finished tier is shared.
    let mut store = Packed::vec_from_bits(crate::hugemem::zeroed_u16(n));
    let shift = tuning.region_shift.unwrap_or_else(|| region_shift(n));
    assert!(shift <= MAX_REGION_SHIFT, "region offsets must fit 16 bits");
    let regions = region_count(n, shift);
    let own_regions = owned_regions(regions, ex.ranks(), ex.rank());
    let (own_lo, own_hi) = (
        (own_regions.start << shift).min(n),
        (own_regions.end << shift).min(n),
    );
    let touches = AtomicU64::new(0);
    let mut stats = TierStats::default();
    let t0 = Instant::now();
    {
        let states = as_atomic_u16(Packed::slice_as_bits_mut(&mut store));

        // 1. Initial pass: rule ends, lower-tier children, in-tier counters.
        // Each task hands its finds to the shared queues as it ends, so the
        // extra memory stays bounded by a few tasks' worth.
        // The most in-tier children of a position over the counter's
        // limit, if any: the pass then stops.
        let crowded = AtomicU32::new(0);
        let queues = Mutex::new((Buckets::<S>::default(), Buckets::<S>::default()));
        let stopped = AtomicBool::new(false);
        (0..(own_hi - own_lo).div_ceil(CHUNK))
            .into_par_iter()
            .for_each(|c| {
                if crowded.load(Relaxed) != 0 || stopped.load(Relaxed) {
                    return;
                }
                if stop() {
                    stopped.store(true, Relaxed);
                    return;
                }
                let lo = own_lo + c * CHUNK;
                let hi = (lo + CHUNK).min(own_hi);
                let mut w = InitWork::<G, S>::default();
                g.used_slots(t, lo as u64..hi as u64, &mut w.slots);
                let slots = std::mem::take(&mut w.slots);
                for batch in slots.chunks(BATCH) {
                    init_batch(g, t, batch, lower, states, tuning.keep_lower_wins, &mut w);
                    if w.crowded != 0 {
                        crowded.fetch_max(w.crowded, Relaxed);
                        return;
                    }
                }
                touches.fetch_add(w.touches, Relaxed);
                let mut q = queues.lock().unwrap();
                q.0.push_all(&w.decided);
                q.1.push_all(&[Vec::new(), std::mem::take(&mut w.tentative)]);
                drop(q);
                progress(Progress::Initial((hi - lo) as u64));
            });
        // Every rank stops alike.
        let children = ex.max(crowded.into_inner().into()) as u32;
        if children != 0 {
            return Err(LimitError::TooManyChildren {
                tier: Some(g.tier_name(t)),
                children,
            });
        }
        if ex.max(stopped.into_inner().into()) != 0 {
            return Ok(None);
        }
        let (mut buckets, mut tentative) = queues.into_inner().unwrap();
        stats.init_seconds = t0.elapsed().as_secs_f64();

        // 2. Propagate level by level.
        let t1 = Instant::now();
        let mut level = 0usize;
        let mut decided = 0u64;
        // The levels go on while any rank has positions at this level or
        // a later one.
        while (level as u64) < ex.max(buckets.len().max(tentative.len()) as u64) {
            let mut current = buckets.take(level);
            let won = pack(Value::Win(level as u16));
            // The positions whose lower-tier win is this long, if no
            // shorter one was found: in parallel, as on the larger tiers
            // they are tens of millions (each slot is listed once, and the
            // order is kept).
            let tentative_wins: Vec<S> = tentative.take(level)[WINS]
                .par_iter()
                .copied()
                .filter(|i| {
                    states[i.index()]
                        .fetch_update(Relaxed, Relaxed, |s| is_open(s).then_some(won))
                        .is_ok()
                })
                .collect();
            current[WINS].extend(tentative_wins);
            let found = Mutex::new(&mut buckets);
            let job = LevelJob {
                g,
                t,
                lower,
                states,
                base: 0,
                saturated: None,
                level: level as u16,
                found: &found,
                touches: &touches,
                tuning,
                shift,
                regions,
                owned: own_regions.clone(),
            };
            job.propagate(&current[LOSSES], true, ex);
            job.propagate(&current[WINS], false, ex);
            decided += (current[LOSSES].len() + current[WINS].len()) as u64;
            progress(Progress::Level(level as u16, decided));
            if ex.max(stop().into()) != 0 {
                return Ok(None);
            }
            level += 1;
        }
        stats.propagate_seconds = t1.elapsed().as_secs_f64();
    }

    // 3. Whatever is still open is a draw; tally (in parallel: on the
    // largest tiers this is a pass over gigabytes). With several ranks,
    // each first settles its own slots and hands them to every other.
    let t2 = Instant::now();
    if ex.ranks() > 1 {
        store[own_lo..own_hi].par_iter_mut().for_each(|s| {
            if is_open(s.to_bits()) {
                *s = Packed::DRAW;
            }
        });
        let words = Packed::slice_as_bits_mut(&mut store);
        for rank in 0..ex.ranks() {
            let r = owned_regions(regions, ex.ranks(), rank);
            ex.broadcast(
                rank,
                &mut words[(r.start << shift).min(n)..(r.end << shift).min(n)],
            );
        }
    }
    let tally = settle_and_count(Packed::slice_as_bits_mut(&mut store));
    stats.wins = tally.wins;
    stats.losses = tally.losses;
    stats.draws = tally.draws;
    stats.unused = tally.unused;
    stats.max_win = tally.max_win;
    stats.max_loss = tally.max_loss;
    stats.propagate_seconds += t2.elapsed().as_secs_f64();
    Ok(Some(SolvedTier {
        values: store,
        stats,
        touches: touches.into_inner(),
    }))
}

/// The end of a tier's solve over its state `words` (the whole tier, a
/// window or a rank's slice): what is still open is a draw; and the counts
/// of wins, losses, draws and unused slots with the longest win and loss
/// (in parallel: on the largest tiers this is a pass over gigabytes).
pub(super) fn settle_and_count(words: &mut [u16]) -> TierStats {
    words
        .par_chunks_mut(1 << 16)
        .map(|chunk| {
            let mut part = TierStats::default();
            for s in chunk.iter_mut() {
                if *s == UNDECIDED.to_bits() {
                    part.unused += 1;
                    continue;
                }
                if is_open(*s) {
                    *s = Packed::DRAW.to_bits();
                }
                match Packed::from_bits(*s).value() {
                    Some(Value::Win(r)) => {
                        part.wins += 1;
                        part.max_win = part.max_win.max(r);
                    }
                    Some(Value::Loss(r)) => {
                        part.losses += 1;
                        part.max_loss = part.max_loss.max(r);
                    }
                    Some(Value::Draw) => part.draws += 1,
                    None => unreachable!("a decided slot holds a value"),
                }
            }
            part
        })
        .reduce(TierStats::default, add_counts)
}

/// Scratch space of one initial-pass task (reused, so nothing allocates
/// per position).
struct InitWork<G: Tiers, S> {
    slots: Vec<(u64, G::Pos)>,
    moves: Vec<G::Move>,
    /// The children of one position: (tier, rank).
    children: Vec<(TierKey, u64)>,
    /// Distinct in-tier child ranks of one position.
    kids: Vec<S>,
    /// Lower-tier children of the batch's positions: (table, rank).
    lows: Vec<(u32, u64)>,
    /// Per position of the batch still to decide: slot, number of distinct
    /// in-tier children and end of its `lows`.
    open: Vec<(S, u32, u32)>,
    decided: Found<S>,
    tentative: Vec<(u16, S)>,
    touches: u64,
    /// The in-tier children of a position over the counter's limit (0:
    /// none such yet).
    crowded: u32,
}

impl<G: Tiers, S> Default for InitWork<G, S> {
    fn default() -> Self {
        InitWork {
            slots: Vec::new(),
            moves: Vec::new(),
            children: Vec::new(),
            kids: Vec::new(),
            lows: Vec::new(),
            open: Vec::new(),
            decided: [Vec::new(), Vec::new()],
            tentative: Vec::new(),
            touches: 0,
            crowded: 0,
        }
    }
}

/// The number of distinct in-tier children of `p` (a position of tier `t`
/// the rules do not end), with its lower-tier children in `children`.
// Inlined by force: as a call of its own it costs the initial pass a few
// per cent (measured), and the compiler does not inline it by itself.
#[inline(always)]
pub(super) fn split_children<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    p: &G::Pos,
    moves: &mut Vec<G::Move>,
    children: &mut Vec<(TierKey, u64)>,
    kids: &mut Vec<S>,
) -> usize {
    children.clear();
    kids.clear();
    // The counter needs the number of distinct in-tier child slots: when
    // the game knows they are all distinct, the moves count them and only
    // the lower-tier children are ranked.
    if g.in_tier_children_may_share_slots(p) {
        g.child_ranks(p, moves, children);
        for &(ct, r) in children.iter() {
            // The lists are tiny: a scan beats sorting.
            if ct == t && !kids.contains(&S::new(r)) {
                kids.push(S::new(r));
            }
        }
        children.retain(|&(ct, _)| ct != t);
        kids.len()
    } else {
        g.lower_child_ranks(p, moves, children)
    }
}

/// The initial pass over a batch of used slots: first every child's rank
/// (prefetching lower-tier values), then the decisions.
fn init_batch<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    batch: &[(u64, G::Pos)],
    lower: &TierValues,
    states: &[AtomicU16],
    keep_lower_wins: bool,
    w: &mut InitWork<G, S>,
) {
    w.lows.clear();
    w.open.clear();
    let decide = |i: S, v: Value, w: &mut InitWork<G, S>| {
        states[i.index()].store(pack(v), Relaxed);
        match v {
            Value::Loss(r) => w.decided[LOSSES].push((r, i)),
            Value::Win(r) => w.decided[WINS].push((r, i)),
            Value::Draw => {}
        }
    };
    for &(i, ref p) in batch {
        let i = S::new(i);
        if let Some(end) = g.rule_end(p) {
            decide(i, end.value, w);
            continue;
        }
        let in_tier = split_children(g, t, p, &mut w.moves, &mut w.children, &mut w.kids);
        if in_tier == 0 && w.children.is_empty() {
            decide(i, Value::Loss(0), w);
            continue;
        }
        for &(ct, r) in w.children.iter() {
            let table = lower.slot_of(ct);
            lower.prefetch(table, r);
            w.lows.push((table as u32, r));
        }
        w.open.push((i, in_tier as u32, w.lows.len() as u32));
    }
    w.touches += w.lows.len() as u64;

    let mut low_start = 0usize;
    for k in 0..w.open.len() {
        let (i, count, low_end) = w.open[k];
        let (count, low_end) = (count as usize, low_end as usize);
        let mut best_win: Option<u16> = None;
        let mut has_draw = false;
        let mut lower_max: u16 = 0;
        for &(table, r) in &w.lows[low_start..low_end] {
            match lower.at(table as usize, r) {
                Value::Loss(r) => best_win = Some(best_win.map_or(r + 1, |b| b.min(r + 1))),
                Value::Draw => has_draw = true,
                Value::Win(r) => lower_max = lower_max.max(r),
            }
        }
        low_start = low_end;
        if count == 0 {
            if let Some(b) = best_win {
                decide(i, Value::Win(b), w);
            } else if has_draw {
                decide(i, Value::Draw, w);
            } else {
                decide(i, Value::Loss(lower_max + 1), w);
            }
            continue;
        }
        if count > COUNT as usize {
            w.crowded = count.min(u32::MAX as usize) as u32;
            return;
        }
        let not_a_loss = best_win.is_some() || has_draw;
        let kept = if keep_lower_wins { lower_max } else { u16::MAX };
        states[i.index()].store(state::open(count as u16, not_a_loss, kept), Relaxed);
        if let Some(b) = best_win {
            w.tentative.push((b, i));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::MAX_REMOTENESS;

    #[test]
    fn open_states_never_collide_with_values() {
        // Every value the solver can store stays below the open states, and
        // the largest open state still fits.
        let largest = (OPEN - 4) / 2;
        assert!(largest < MAX_REMOTENESS);
        for v in [Value::Draw, Value::Loss(largest), Value::Win(largest)] {
            assert!(!is_open(pack(v)));
            assert_ne!(pack(v), UNDECIDED.to_bits());
        }
        assert!(is_open(OPEN));
        assert!(is_open(state::open(COUNT, true, u16::MAX)));
        // A decrement changes the count alone, and the stored lower-tier
        // win reads back (saturated: unknown).
        for lower in [0, 1, 126, 127, 500] {
            for not_a_loss in [false, true] {
                let s = state::open(5, not_a_loss, lower);
                assert!(is_open(s));
                assert_eq!(s - 1, state::open(4, not_a_loss, lower));
                assert_eq!((s & NOT_A_LOSS != 0), not_a_loss);
                assert_eq!(s & COUNT, 5);
                assert_eq!(lower_max(s), (lower < 127).then_some(lower));
            }
        }
    }

    /// The levels' tuning changes the work's order, never the table:
    /// every tier of weiming solved in rounds of a few positions, sent by
    /// tasks of a few, into regions of one to four slots, equals the default.
    #[test]
    fn tuning_does_not_change_the_table() {
        let g = crate::games::weiming::Weiming::new();
        let mut done: std::collections::HashMap<TierKey, Vec<Packed>> = Default::default();
        for t in g.tiers(None) {
            let mut lower = TierValues::new();
            for d in g.tier_deps(t) {
                lower.add(d, &done[&d]);
            }
            let plain = solve_tier(&g, t, &lower, &|_| {});
            for (round, send_chunk) in [(1, 1), (5, 2), (64, 7)] {
                let tiny = Tuning {
                    round,
                    send_chunk,
                    region_shift: Some(round as u32 % 3),
                    keep_lower_wins: round != 5,
                    wide_slots: round == 64,
                };
                let small =
                    solve_tier_tuned(&g, t, &lower, &|_| {}, &|| false, tiny, &SingleProcess)
                        .unwrap()
                        .unwrap();
                assert_eq!(small.values, plain.values, "tier {t} {tiny:?}");
                if tiny.keep_lower_wins {
                    assert_eq!(small.touches, plain.touches);
                }
            }
            done.insert(t, plain.values);
        }
    }

    /// Every tier of `g` up to `max` pieces, solved with `tuning`.
    fn solve_all<G: Tiers>(g: &G, max: u32, tuning: Tuning) -> Vec<(TierKey, SolvedTier)> {
        let mut done: Vec<(TierKey, SolvedTier)> = Vec::new();
        for t in g.tiers(Some(max)) {
            let mut lower = TierValues::new();
            for d in g.tier_deps(t) {
                let (_, s) = done.iter().find(|(k, _)| *k == d).unwrap();
                lower.add(d, &s.values);
            }
            let solved = solve_tier_tuned(g, t, &lower, &|_| {}, &|| false, tuning, &SingleProcess)
                .unwrap()
                .unwrap();
            done.push((t, solved));
        }
        done
    }

    /// Every tier of two subsets with captures into lower tiers (one of
    /// them with a symmetry-reduced numbering), solved with the default
    /// tuning and with `tuning`, each tier's pair handed to `check`
    /// (game, tier, default, tuned).
    fn compare_with_default(
        tuning: Tuning,
        check: &dyn Fn(&str, TierKey, &SolvedTier, &SolvedTier),
    ) {
        for (id, max) in [
            ("two-cannons:board=4x4,soldiers=7", 7),
            ("cannon-chess-4x4", 4),
        ] {
            let any = crate::games::AnyGame::from_id(id).unwrap();
            crate::with_game!(any, |g| {
                let plain = solve_all(g, max, Tuning::default());
                let tuned = solve_all(g, max, tuning);
                for ((t, a), (_, b)) in plain.iter().zip(&tuned) {
                    check(id, *t, a, b);
                }
            });
        }
    }

    /// Two, three and five ranks sharing each tier (threads standing in
    /// for MPI processes: the same ownership, routing and shared end of
    /// the levels) give every rank the table of one process, with the
    /// default tuning and with regions of a few slots, rounds of a few
    /// positions and 64-bit slot numbers; the counts agree and the ranks'
    /// touches add up to one process's.
    #[test]
    fn ranks_sharing_a_tier_give_the_table_of_one_process() {
        use super::super::exchange::threads::{Shared, ThreadRank};
        let tiny = Tuning {
            round: 7,
            send_chunk: 3,
            region_shift: Some(2),
            keep_lower_wins: true,
            wide_slots: true,
        };
        for (id, max) in [
            ("two-cannons:board=4x4,soldiers=7", Some(4)),
            ("cannon-chess-4x4", Some(3)),
            ("weiming", None),
        ] {
            let any = crate::games::AnyGame::from_id(id).unwrap();
            crate::with_game!(any, |g| {
                let mut done: std::collections::HashMap<TierKey, SolvedTier> = Default::default();
                for t in g.tiers(max) {
                    let mut lower = TierValues::new();
                    for d in g.tier_deps(t) {
                        lower.add(d, &done[&d].values);
                    }
                    let plain = solve_tier(g, t, &lower, &|_| {});
                    for ranks in [2, 3, 5] {
                        for tuning in [Tuning::default(), tiny] {
                            let shared = Shared::new(ranks);
                            let solved: Vec<SolvedTier> = std::thread::scope(|sc| {
                                let handles: Vec<_> = (0..ranks)
                                    .map(|rank| {
                                        let (shared, lower) = (&shared, &lower);
                                        sc.spawn(move || {
                                            let me = ThreadRank { shared, rank };
                                            solve_tier_tuned(
                                                g,
                                                t,
                                                lower,
                                                &|_| {},
                                                &|| false,
                                                tuning,
                                                &me,
                                            )
                                            .unwrap()
                                            .unwrap()
                                        })
                                    })
                                    .collect();
                                handles.into_iter().map(|h| h.join().unwrap()).collect()
                            });
                            let what = format!("{id} tier {t}, {ranks} ranks, {tuning:?}");
                            for s in &solved {
                                assert!(s.values == plain.values, "{what}");
                                let (a, b) = (&s.stats, &plain.stats);
                                assert_eq!(
                                    (a.wins, a.losses, a.draws, a.unused, a.max_win, a.max_loss),
                                    (b.wins, b.losses, b.draws, b.unused, b.max_win, b.max_loss),
                                    "{what}"
                                );
                            }
                            let touches: u64 = solved.iter().map(|s| s.touches).sum();
                            assert_eq!(touches, plain.touches, "{what}");
                        }
                    }
                    done.insert(t, plain);
                }
            });
        }
    }

    /// 64-bit slot numbers (the queues and messages of tiers over 2^32
    /// slots) give the tables of 32-bit ones.
    #[test]
    fn wide_slot_numbers_give_the_same_tables() {
        let wide = Tuning {
            wide_slots: true,
            ..Tuning::default()
        };
        compare_with_default(wide, &|id, t, a, b| {
            assert_eq!(a.values, b.values, "{id} tier {t}");
            assert_eq!(a.touches, b.touches, "{id} tier {t}");
        });
    }

    /// A new loss's longest lower-tier win, kept in its state word or
    /// re-derived from its moves and the lower tier (the path taken when
    /// it does not fit, which no game here reaches): the same tables.
    #[test]
    fn kept_and_rederived_lower_wins_agree() {
        let rederived = Tuning {
            keep_lower_wins: false,
            ..Tuning::default()
        };
        // Per game: losses settled, and tiers where re-deriving read more.
        let seen = Mutex::new(std::collections::HashMap::<String, (u64, u32)>::new());
        compare_with_default(rederived, &|id, t, a, b| {
            assert_eq!(a.values, b.values, "{id} tier {t}");
            // Re-deriving reads the lower tier again: more touches
            // wherever a tier has lower-tier children.
            assert!(b.touches >= a.touches);
            let mut seen = seen.lock().unwrap();
            let e = seen.entry(id.to_string()).or_default();
            e.0 += a.stats.losses;
            e.1 += (b.touches > a.touches) as u32;
        });
        let seen = seen.into_inner().unwrap();
        assert_eq!(seen.len(), 2);
        for (id, (losses, more)) in seen {
            assert!(losses > 0, "{id}: the subset has losses to settle");
            assert!(more > 0, "{id}: some new loss had a lower-tier child");
        }
    }

    /// Weiming, but every position claims more distinct in-tier moves
    /// than the counter holds.
    struct Crowded(crate::games::weiming::Weiming);

    impl crate::game::Rules for Crowded {
        type Pos = <crate::games::weiming::Weiming as crate::game::Rules>::Pos;
        type Move = <crate::games::weiming::Weiming as crate::game::Rules>::Move;
        fn start(&self) -> Self::Pos {
            self.0.start()
        }
        fn side_to_move(&self, p: &Self::Pos) -> crate::Side {
            self.0.side_to_move(p)
        }
        fn rule_end(&self, p: &Self::Pos) -> Option<crate::GameEnd> {
            self.0.rule_end(p)
        }
        fn moves(&self, p: &Self::Pos, out: &mut Vec<Self::Move>) {
            self.0.moves(p, out)
        }
        fn apply(&self, p: &Self::Pos, m: &Self::Move) -> Self::Pos {
            self.0.apply(p, m)
        }
        fn pass(&self, p: &Self::Pos) -> Self::Pos {
            self.0.pass(p)
        }
    }

    impl Tiers for Crowded {
        fn id(&self) -> &str {
            self.0.id()
        }
        fn rules_hash(&self) -> u64 {
            self.0.rules_hash()
        }
        fn tiers(&self, m: Option<u32>) -> Vec<TierKey> {
            self.0.tiers(m)
        }
        fn tier_name(&self, t: TierKey) -> String {
            self.0.tier_name(t)
        }
        fn tier_of(&self, p: &Self::Pos) -> TierKey {
            self.0.tier_of(p)
        }
        fn tier_max_pieces(&self, t: TierKey) -> u32 {
            self.0.tier_max_pieces(t)
        }
        fn tier_size(&self, t: TierKey) -> u64 {
            self.0.tier_size(t)
        }
        fn tier_deps(&self, t: TierKey) -> Vec<TierKey> {
            self.0.tier_deps(t)
        }
        fn rank(&self, t: TierKey, p: &Self::Pos) -> u64 {
            self.0.rank(t, p)
        }
        fn unrank(&self, t: TierKey, i: u64) -> Self::Pos {
            self.0.unrank(t, i)
        }
        fn unmoves(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>) {
            self.0.unmoves(p, out)
        }
        fn in_tier_children_may_share_slots(&self, _: &Self::Pos) -> bool {
            false
        }
        fn lower_child_ranks(
            &self,
            _: &Self::Pos,
            _: &mut Vec<Self::Move>,
            _: &mut Vec<(TierKey, u64)>,
        ) -> usize {
            COUNT as usize + 3
        }
    }

    /// A position with more in-tier children than the counter holds stops
    /// the tier with a typed error, not a panic.
    #[test]
    fn too_many_in_tier_children_is_an_error() {
        let g = Crowded(crate::games::weiming::Weiming::new());
        let t = g.tiers(None)[0];
        let err = match try_solve_tier(&g, t, &TierValues::new(), &|_| {}) {
            Ok(_) => panic!("tier {t} solved"),
            Err(e) => e,
        };
        assert_eq!(
            err,
            LimitError::TooManyChildren {
                tier: Some(g.tier_name(t)),
                children: COUNT as u32 + 3
            }
        );
        assert!(err.to_string().contains("7-bit counter"), "{err}");
        // The same tier of the real game solves.
        let real = crate::games::weiming::Weiming::new();
        assert!(try_solve_tier(&real, t, &TierValues::new(), &|_| {}).is_ok());
    }

    #[test]
    #[should_panic(expected = "too large")]
    fn too_remote_a_value_is_refused() {
        pack(Value::Win((OPEN - 2) / 2));
    }
}
