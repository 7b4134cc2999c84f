//! One tier solved out of core: the state words live in a file and are
//! held one *window* (a run of whole regions) at a time.
//!
//! * Initial pass, window by window: each position's rule end, in-tier
//!   counter and lower-tier children; the lower-tier values are not
//!   probed one by one but requested in batches, the requests grouped by
//!   block of the lower tier's raw file, each block read once per batch,
//!   and the answers folded into per-slot accumulators (best win, a draw,
//!   longest win: all commutative, so no reply needs to find its asker).
//! * Each level: the parent updates are made as in memory (message
//!   combining, [`super::super::propagate`]), then each window's part is
//!   sorted, delta-coded and appended to a run file; once the level's
//!   positions are all sent, each window with updates (or tentative wins of
//!   the next level) is loaded, its runs applied in the order they were
//!   written, and stored.
//! * Open states whose longest lower-tier win does not fit the state word
//!   keep it in a small sorted side table, so the levels read no lower
//!   tier.
//!
//! The set of positions decided at each level is that of the in-memory
//! solve, so the table is identical (tests check it on tiny budgets).

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;

use super::batch::BatchSlots;
use super::checkpoint::{self, Checkpoint, LevelRecord, StartRecord, UndoLog};
use super::files::{get_varint, put_varint, RawArray, Segments, SpillQueue};
use super::grouping::{group_requests, Grouped};
use super::Plan;
use crate::game::{TierKey, Tiers};
use crate::solver::limits::LimitError;
use crate::solver::propagate::{LevelJob, Outbox, Tuning};
use crate::solver::slot::Slot;
use crate::solver::tier::{
    as_atomic_u16, is_open, pack, settle_and_count, split_children, state, Buckets, Found,
    Progress, CHUNK, COUNT, LOSSES, WINS,
};
use crate::solver::SolveError;
use crate::tablebase::TbError;
use crate::tier_values::{add_counts, TierStats, TierValues};
use crate::value::{Packed, Value};

/// Slots of a lower tier read as one block when answering requests.
const LOWER_BLOCK_SHIFT: u32 = 13;
/// Lower-tier requests per slot guessed for a window's first batch of the
/// initial pass; the batches after it follow what the one before asked
/// ([`BatchSlots`]).
const REQUESTS_PER_SLOT: usize = 4;

/// The lower tiers' values, as raw files. Shared with the tiers solved
/// later that read them too; the last holder of one deletes its file.
pub(in crate::solver) struct RawLower {
    pub tiers: Vec<(TierKey, Arc<RawArray>)>,
}

/// What an out-of-core solve of a tier leaves: its values in `values`'
/// file (the state file, settled), its counts, its touches.
pub(in crate::solver) struct SpilledTier {
    pub stats: TierStats,
    pub touches: u64,
}

/// The window whose state words `buf` holds across levels, and which of
/// its regions changed since it was read. A level rewrites the whole
/// file if every window is read and written whole, while most levels of a
/// large tier (its long tail) touch few regions, and the window in hand
/// is the next one needed: keeping it and writing back only its changed
/// regions saves most of that traffic.
struct HeldWindow {
    window: Option<usize>,
    dirty: Vec<bool>,
}

impl HeldWindow {
    /// Write the changed regions of the held window back to `values`
    /// (runs of them as one write each) and mark them clean.
    /// Their words as of the last checkpoint go to `undo` first.
    fn write_back(
        &mut self,
        values: &RawArray,
        buf: &[u16],
        window_slots: usize,
        shift: u32,
        undo: &mut UndoLog,
    ) -> Result<(), TbError> {
        let Some(w) = self.window else {
            return Ok(());
        };
        let lo = w * window_slots;
        let len = (values.len() as usize - lo).min(window_slots);
        let first_region = lo >> shift;
        let runs = dirty_runs(&self.dirty);
        if runs.is_empty() {
            return Ok(());
        }
        for (r, end) in &runs {
            undo.save(values, first_region + r..first_region + end, shift)?;
        }
        undo.sync()?;
        for (r, end) in runs {
            let (a, b) = ((r << shift).min(len), (end << shift).min(len));
            values.write((lo + a) as u64, &buf[a..b])?;
            self.dirty[r..end].fill(false);
        }
        Ok(())
    }
}

/// The runs of consecutive `true`s in `dirty`, as (start, end).
fn dirty_runs(dirty: &[bool]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut r = 0;
    while r < dirty.len() {
        if !dirty[r] {
            r += 1;
            continue;
        }
        let end = r + dirty[r..].iter().take_while(|&&d| d).count();
        runs.push((r, end));
        r = end;
    }
    runs
}

/// A lower-tier request: `(table << 56 | rank, slot offset in the window)`.
pub(in crate::solver) type Request = (u64, u32);

/// Where an out-of-core tier starts: from nothing, with the lower tiers
/// its initial pass reads, or from the checkpoint an interrupted solve
/// left (its state file `values` as the checkpoint left it, apart from
/// regions the undo log restores). Only the initial pass reads the lower
/// tiers, and every checkpoint is past it: a resume needs none of them.
pub(in crate::solver) enum Start {
    Fresh(RawLower),
    Resume(Checkpoint),
}

/// Solve tier `t` out of core into `values` (a zeroed raw array of the
/// tier's slots, or the one a checkpoint describes), with scratch files
/// and checkpoints in `work`; `identity` names the tier in its
/// checkpoints. `None`: stopped (at a checkpoint when stopped between two
/// levels, which a later call resumes from).
#[allow(clippy::too_many_arguments)]
pub(in crate::solver) fn solve_spilled<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    values: &RawArray,
    work: &std::path::Path,
    identity: &str,
    start: Start,
    plan: &Plan,
    progress: &(dyn Fn(Progress) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Option<SpilledTier>, SolveError> {
    let n = g.tier_size(t) as usize;
    debug_assert_eq!(values.len() as usize, n);
    let window_slots = plan.window_regions << plan.shift;
    let window = |w: usize| (w * window_slots).min(n)..((w + 1) * window_slots).min(n);
    let mut buf = vec![0u16; window_slots.min(n)];
    let mut buckets = SpillQueue::<S>::new(&work.join("found.q"), plan.queue_cap)?;
    let tentative_path = work.join("tentative.q");
    let mut stats = TierStats::default();
    let t0 = Instant::now();

    let (mut tentative, saturated, touches, mut level, mut epoch, mut decided, held_window) =
        match start {
            Start::Fresh(lower) => {
                checkpoint::forget(work)?;
                let mut tentative = SpillQueue::<S>::new(&tentative_path, plan.queue_cap)?;
                let mut saturated = Vec::new();
                let touches = AtomicU64::new(0);
                let pass = InitialPass {
                    g,
                    t,
                    lower: &lower,
                    values,
                    plan,
                    progress,
                    stop,
                };
                if !pass.run(
                    &mut buf,
                    &mut buckets,
                    &mut tentative,
                    &mut saturated,
                    &touches,
                )? {
                    return Ok(None);
                }
                stats.init_seconds = t0.elapsed().as_secs_f64();
                // The first checkpoint: the pass's results, then "level 0
                // next". Everything they describe is made durable first.
                values.sync()?;
                let start = StartRecord {
                    tier: identity.to_string(),
                    init_seconds: stats.init_seconds,
                    touches: touches.load(Relaxed),
                    saturated,
                    tentative: tentative.persist()?,
                };
                checkpoint::save_start(work, &start)?;
                checkpoint::save_level(
                    work,
                    &LevelRecord {
                        tier: identity.to_string(),
                        epoch: 0,
                        next_level: 0,
                        touches: start.touches,
                        propagate_seconds: 0.0,
                    },
                )?;
                // The levels read no lower tier: the raw files of those no
                // later tier reads go now (k11's 10.5 GB while tier k12 of
                // the 6x5 two-cannons runs its levels).
                drop(lower);
                // The initial pass leaves its last window in `buf`, written.
                let held = plan.windows.checked_sub(1);
                (tentative, start.saturated, touches, 0, 0, 0, held)
            }
            Start::Resume(c) => {
                let l = &c.level;
                checkpoint::replay(&work.join(checkpoint::UNDO), values, l.epoch)?;
                stats.init_seconds = c.start.init_seconds;
                stats.propagate_seconds = l.propagate_seconds;
                let tentative =
                    SpillQueue::<S>::reopen(&tentative_path, plan.queue_cap, &c.start.tentative)?;
                // The positions still to propagate: those decided later
                // than the levels done.
                let decided = requeue(values, &mut buf, l.next_level, &mut buckets)?;
                progress(Progress::Initial(n as u64));
                (
                    tentative,
                    c.start.saturated,
                    AtomicU64::new(l.touches),
                    l.next_level as usize,
                    l.epoch,
                    decided,
                    None,
                )
            }
        };

    // 2. The levels.
    // The levels' seconds before a resume, and since.
    let (prior, t1) = (stats.propagate_seconds, Instant::now());
    let mut runs = Segments::new(&work.join("runs"))?;
    let mut undo = UndoLog::create(&work.join(checkpoint::UNDO), plan.regions, epoch)?;
    let mut last_checkpoint = Instant::now();
    let mut record = Vec::new();
    let empty = TierValues::new();
    let tuning = Tuning {
        round: plan.round,
        ..Tuning::default()
    };
    let no_states: [AtomicU16; 0] = [];
    let mut held = HeldWindow {
        window: held_window,
        dirty: vec![false; plan.window_regions],
    };
    // Tentative wins are one ply longer than a lower-tier loss: none is
    // at level 0, so each level's window pass checks the next level's.
    while level < buckets.len().max(tentative.len()) {
        // Sending finds nothing: the sender's queue stays empty.
        let mut none_found = Buckets::<S>::default();
        let none_found = Mutex::new(&mut none_found);
        let sender = LevelJob {
            g,
            t,
            lower: &empty,
            states: &no_states[..],
            base: 0,
            saturated: Some(&saturated[..]),
            level: level as u16,
            found: &none_found,
            touches: &touches,
            tuning,
            shift: plan.shift,
            regions: plan.regions,
            owned: 0..0,
        };
        // Send: every round's updates, cut by window, to the run file;
        // the level's positions read from their queue a part at a time.
        for (kind, is_loss) in [(LOSSES, true), (WINS, false)] {
            buckets.drain(level, kind, |part| {
                decided += part.len() as u64;
                for positions in part.chunks(plan.round.max(1)) {
                    let boxes = sender.outboxes(positions);
                    let records: Vec<Vec<u8>> = (0..plan.windows)
                        .into_par_iter()
                        .map(|w| encode(&boxes, plan, w, is_loss))
                        .collect();
                    for (w, r) in records.iter().enumerate() {
                        runs.append(w, r)?;
                    }
                }
                Ok(())
            })?;
        }
        // Apply: each window with updates or with tentative wins of the
        // next level (checked after all of this level's updates, as the
        // in-memory solve checks them at the next level's start).
        let [_, next] = tentative.take(level + 1)?;
        let mut next_by_window: Vec<Vec<S>> = vec![Vec::new(); plan.windows];
        for i in next {
            next_by_window[i.index() / window_slots].push(i);
        }
        let won = pack(Value::Win(level as u16 + 1));
        // Every other level visits the windows backwards, so the window
        // held from the last level is the first one needed again.
        let order: Vec<usize> = if level.is_multiple_of(2) {
            (0..plan.windows).collect()
        } else {
            (0..plan.windows).rev().collect()
        };
        for w in order {
            let next = &next_by_window[w];
            if !runs.has(w) && next.is_empty() {
                continue;
            }
            // Stopped in the middle of a level: as if killed, the next
            // call resumes from the last checkpoint.
            if stop() {
                return Ok(None);
            }
            let range = window(w);
            let (lo, len) = (range.start, range.len());
            if held.window != Some(w) {
                held.write_back(values, &buf, window_slots, plan.shift, &mut undo)?;
                values.read(lo as u64, &mut buf[..len])?;
                held.window = Some(w);
            }
            let first_region = w * plan.window_regions;
            for &i in next {
                held.dirty[(i.index() >> plan.shift) - first_region] = true;
            }
            let mut found = Buckets::<S>::default();
            let wins = {
                let found_lock = Mutex::new(&mut found);
                let states = as_atomic_u16(&mut buf[..len]);
                let owned =
                    w * plan.window_regions..((w + 1) * plan.window_regions).min(plan.regions);
                let applier = LevelJob {
                    g,
                    t,
                    lower: &empty,
                    states,
                    base: lo,
                    saturated: Some(&saturated[..]),
                    level: level as u16,
                    found: &found_lock,
                    touches: &touches,
                    tuning,
                    shift: plan.shift,
                    regions: plan.regions,
                    owned,
                };
                runs.for_each(w, &mut record, |bytes| {
                    let (boxes, is_loss) = decode(bytes, plan, w)?;
                    // A region changes only where it has updates.
                    for r in applier.owned.clone() {
                        held.dirty[r - first_region] |= boxes.starts[r + 1] > boxes.starts[r];
                    }
                    applier.apply_all(std::slice::from_ref(&boxes), is_loss);
                    Ok(())
                })?;
                let mut wins = Vec::new();
                for &i in next {
                    let s = &states[i.index() - lo];
                    if is_open(s.load(Relaxed)) {
                        s.store(won, Relaxed);
                        wins.push((level as u16 + 1, i));
                    }
                }
                wins
            };
            // Hand the window's finds to the queue (which may spill them).
            found.push_all(&[Vec::new(), wins]);
            for (l, pair) in found.levels.into_iter().enumerate() {
                let items: Found<S> = pair.map(|v| v.into_iter().map(|i| (l as u16, i)).collect());
                buckets.push_all(&items)?;
            }
        }
        runs.clear()?;
        progress(Progress::Level(level as u16, decided));
        level += 1;
        let stopping = stop();
        let last = level >= buckets.len().max(tentative.len());
        if stopping || last || last_checkpoint.elapsed() >= plan.checkpoint_every {
            // Everything up to this level on disk, then the record that
            // says so; the undo log starts over.
            held.write_back(values, &buf, window_slots, plan.shift, &mut undo)?;
            values.sync()?;
            epoch += 1;
            checkpoint::save_level(
                work,
                &LevelRecord {
                    tier: identity.to_string(),
                    epoch,
                    next_level: level as u64,
                    touches: touches.load(Relaxed),
                    propagate_seconds: prior + t1.elapsed().as_secs_f64(),
                },
            )?;
            undo.reset(epoch)?;
            last_checkpoint = Instant::now();
        }
        if stopping {
            return Ok(None);
        }
    }
    drop(runs);
    held.write_back(values, &buf, window_slots, plan.shift, &mut undo)?;
    stats.propagate_seconds = prior + t1.elapsed().as_secs_f64();

    // 3. What is still open is a draw; tally, window by window. (Done in
    // place after the last checkpoint: a resume from there redoes it,
    // and open slots turned to draws stay draws.)
    let t2 = Instant::now();
    let mut counts = TierStats::default();
    for w in 0..plan.windows {
        let range = window(w);
        let (lo, len) = (range.start, range.len());
        values.read(lo as u64, &mut buf[..len])?;
        counts = add_counts(counts, settle_and_count(&mut buf[..len]));
        values.write(lo as u64, &buf[..len])?;
    }
    stats = TierStats {
        init_seconds: stats.init_seconds,
        propagate_seconds: stats.propagate_seconds,
        ..counts
    };
    stats.propagate_seconds += t2.elapsed().as_secs_f64();
    Ok(Some(SpilledTier {
        stats,
        touches: touches.into_inner(),
    }))
}

/// Queue again the positions of the state file `values` decided with a
/// remoteness of `next_level` or more (those a checkpoint after level
/// `next_level - 1` still had to propagate), window by window; returns
/// how many were decided before (for the progress).
fn requeue<S: Slot>(
    values: &RawArray,
    buf: &mut [u16],
    next_level: u64,
    buckets: &mut SpillQueue<S>,
) -> Result<u64, TbError> {
    let n = values.len() as usize;
    let window_slots = buf.len().max(1);
    let mut done = 0u64;
    for lo in (0..n).step_by(window_slots) {
        let len = (n - lo).min(window_slots);
        values.read(lo as u64, &mut buf[..len])?;
        let parts: Vec<(Found<S>, u64)> = buf[..len]
            .par_chunks(CHUNK)
            .enumerate()
            .map(|(c, words)| {
                let mut found: Found<S> = [Vec::new(), Vec::new()];
                let mut before = 0u64;
                for (k, &word) in words.iter().enumerate() {
                    if word == 0 || is_open(word) {
                        continue;
                    }
                    let i = S::new((lo + c * CHUNK + k) as u64);
                    let (kind, r) = match Packed::from_bits(word).value() {
                        Some(Value::Loss(r)) => (LOSSES, r),
                        Some(Value::Win(r)) => (WINS, r),
                        _ => continue,
                    };
                    if (r as u64) < next_level {
                        before += 1;
                    } else {
                        found[kind].push((r, i));
                    }
                }
                (found, before)
            })
            .collect();
        for (found, before) in parts {
            buckets.push_all(&found)?;
            done += before;
        }
    }
    Ok(done)
}

/// The initial pass of an out-of-core tier, window by window.
struct InitialPass<'a, G: Tiers> {
    g: &'a G,
    t: TierKey,
    lower: &'a RawLower,
    values: &'a RawArray,
    plan: &'a Plan,
    progress: &'a (dyn Fn(Progress) + Sync),
    stop: &'a (dyn Fn() -> bool + Sync),
}

impl<G: Tiers> InitialPass<'_, G> {
    /// Count, decide and queue every position, writing each window's
    /// states to the file; `false` if stopped.
    fn run<S: Slot>(
        &self,
        buf: &mut [u16],
        buckets: &mut SpillQueue<S>,
        tentative: &mut SpillQueue<S>,
        saturated: &mut Vec<(u64, u16)>,
        touches: &AtomicU64,
    ) -> Result<bool, SolveError> {
        let (g, t, plan) = (self.g, self.t, self.plan);
        let n = g.tier_size(t) as usize;
        let window_slots = plan.window_regions << plan.shift;
        let mut best: Vec<AtomicU16> = Vec::new();
        let mut longest: Vec<AtomicU16> = Vec::new();
        best.resize_with(buf.len(), || AtomicU16::new(u16::MAX));
        longest.resize_with(buf.len(), || AtomicU16::new(0));
        let mut batch = BatchSlots::new(plan.requests, REQUESTS_PER_SLOT);
        let tables: Vec<TierKey> = self.lower.tiers.iter().map(|(k, _)| *k).collect();
        for w in 0..plan.windows {
            if (self.stop)() {
                return Ok(false);
            }
            let range = (w * window_slots).min(n)..((w + 1) * window_slots).min(n);
            let (lo, len) = (range.start, range.len());
            buf[..len].fill(0);
            best[..len].iter().for_each(|a| a.store(u16::MAX, Relaxed));
            longest[..len].iter().for_each(|a| a.store(0, Relaxed));
            let states = as_atomic_u16(&mut buf[..len]);
            let mut at = lo;
            while at < range.end {
                // A batch: rounds of chunks until its requests fill it or
                // the window ends.
                let mut requests = Vec::new();
                let mut asked = 0;
                while let Some(slots) = batch.round(asked).filter(|_| at < range.end) {
                    if (self.stop)() {
                        return Ok(false);
                    }
                    let end = (at + slots).min(range.end);
                    let scans: Vec<Scan<S>> = (at..end)
                        .into_par_iter()
                        .step_by(CHUNK)
                        .map(|c| scan(g, t, c..(c + CHUNK).min(end), lo, &tables, states))
                        .collect();
                    if let Some(c) = scans.iter().map(|s| s.crowded).max().filter(|&c| c != 0) {
                        return Err(LimitError::TooManyChildren {
                            tier: Some(g.tier_name(t)),
                            children: c,
                        }
                        .into());
                    }
                    let before = asked;
                    for mut s in scans {
                        buckets.push_all(&s.decided)?;
                        asked += s.requests.len();
                        // Grown by doubling: give back the unused room (the
                        // allocator shrinks in place), so that the batch's
                        // requests take what the budget counts for them.
                        s.requests.shrink_to_fit();
                        requests.push(s.requests);
                    }
                    batch.observe(end - at, asked - before);
                    at = end;
                }
                touches.fetch_add(asked as u64, Relaxed);
                answer(self.lower, requests, &best, &longest)?;
            }
            // Settle the window's positions from their counters and answers.
            let settled: Vec<Settled<S>> = states
                .par_chunks(CHUNK)
                .zip(best[..len].par_chunks(CHUNK))
                .zip(longest[..len].par_chunks(CHUNK))
                .enumerate()
                .map(|(c, ((s, b), l))| settle(lo + c * CHUNK, s, b, l))
                .collect();
            for s in settled {
                buckets.push_all(&s.decided)?;
                tentative.push_all(&[Vec::new(), s.tentative])?;
                saturated.extend_from_slice(&s.saturated);
            }
            self.values.write(lo as u64, &buf[..len])?;
            (self.progress)(Progress::Initial(len as u64));
        }
        saturated.sort_unstable();
        Ok(true)
    }
}

/// What the first half of the initial pass found in a chunk of slots.
pub(in crate::solver) struct Scan<S> {
    pub decided: Found<S>,
    pub requests: Vec<Request>,
    pub crowded: u32,
}

/// Rule ends, positions without moves, in-tier counters (kept in the
/// state word as `OPEN | count` until settled) and lower-tier requests
/// of the used slots of `range`; `lo` is the first slot of `states`,
/// and a request names its lower tier by its place in `tables`.
pub(in crate::solver) fn scan<G: Tiers, S: Slot>(
    g: &G,
    t: TierKey,
    range: std::ops::Range<usize>,
    lo: usize,
    tables: &[TierKey],
    states: &[AtomicU16],
) -> Scan<S> {
    let mut out = Scan {
        decided: [Vec::new(), Vec::new()],
        requests: Vec::new(),
        crowded: 0,
    };
    let (mut slots, mut moves, mut children, mut kids) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::<S>::new());
    g.used_slots(t, range.start as u64..range.end as u64, &mut slots);
    for (i, p) in slots {
        let at = i as usize - lo;
        let decide = |v: Value, out: &mut Scan<S>| {
            states[at].store(pack(v), Relaxed);
            match v {
                Value::Loss(r) => out.decided[LOSSES].push((r, S::new(i))),
                Value::Win(r) => out.decided[WINS].push((r, S::new(i))),
                Value::Draw => {}
            }
        };
        if let Some(end) = g.rule_end(&p) {
            decide(end.value, &mut out);
            continue;
        }
        let in_tier = split_children(g, t, &p, &mut moves, &mut children, &mut kids);
        if in_tier == 0 && children.is_empty() {
            decide(Value::Loss(0), &mut out);
            continue;
        }
        if in_tier > COUNT as usize {
            out.crowded = out.crowded.max(in_tier.min(u32::MAX as usize) as u32);
            continue;
        }
        states[at].store(state::OPEN | in_tier as u16, Relaxed);
        for &(ct, r) in &children {
            let table = tables
                .iter()
                .position(|&k| k == ct)
                .unwrap_or_else(|| panic!("tier {ct} is not loaded (missing tier dependency)"));
            out.requests.push(((table as u64) << 56 | r, at as u32));
        }
    }
    out
}

/// Answer `requests` from the lower tiers' files, each answer folded
/// into its asker's accumulators (`best`: the shortest win through a
/// lower-tier loss; `longest`: the longest lower-tier win, bit 15 set if a
/// child is a draw).
fn answer(
    lower: &RawLower,
    requests: Vec<Vec<Request>>,
    best: &[AtomicU16],
    longest: &[AtomicU16],
) -> Result<(), TbError> {
    let tables: Vec<&RawArray> = lower.tiers.iter().map(|(_, raw)| &**raw).collect();
    answer_requests(&tables, requests, |word, at, table, rank| {
        fold(word, at as usize, best, longest, || {
            (lower.tiers[table].0, rank)
        })
    })
}

/// Answer `requests` (`table << 56 | rank`, asker; in pieces, as the
/// tasks that asked made them) from `tables`: grouped by block of
/// `1 << LOWER_BLOCK_SHIFT` slots, each block's asked span read once, and
/// `f(word, asker, table, rank)` called for each (in parallel, in no set
/// order: what it does must commute). Every rank must be inside its table.
pub(in crate::solver) fn answer_requests(
    tables: &[&RawArray],
    requests: Vec<Vec<Request>>,
    f: impl Fn(u16, u32, usize, u64) + Sync,
) -> Result<(), TbError> {
    // Block numbers of each table start after the previous table's.
    let mut first = Vec::with_capacity(tables.len() + 1);
    first.push(0usize);
    for raw in tables {
        let blocks = (raw.len() as usize).div_ceil(1 << LOWER_BLOCK_SHIFT);
        first.push(first.last().unwrap() + blocks);
    }
    let group = |key: u64| {
        let (table, rank) = ((key >> 56) as usize, key & ((1 << 56) - 1));
        first[table] + (rank >> LOWER_BLOCK_SHIFT) as usize
    };
    let groups = *first.last().unwrap();
    let Grouped {
        requests: sorted,
        starts,
    } = group_requests(&requests, groups, group);
    drop(requests);
    (0..groups)
        .into_par_iter()
        .filter(|&k| starts[k] < starts[k + 1])
        .try_for_each_init(Vec::new, |block: &mut Vec<u16>, k| {
            let table = first.partition_point(|&f| f <= k) - 1;
            let raw = tables[table];
            // Only the span the requests cover: a sparse batch reads a few
            // words per block, not the whole block.
            let asks = &sorted[starts[k]..starts[k + 1]];
            let rank = |key: u64| key & ((1 << 56) - 1);
            let lo = asks.iter().map(|&(key, _)| rank(key)).min().unwrap_or(0);
            let hi = asks.iter().map(|&(key, _)| rank(key)).max().unwrap_or(0) + 1;
            block.resize((hi - lo) as usize, 0);
            raw.read(lo, block)?;
            for &(key, at) in asks {
                let r = rank(key);
                f(block[(r - lo) as usize], at, table, r);
            }
            Ok(())
        })
}

/// Fold the value `word` of a lower-tier child of the position at `at`
/// into its accumulators (see [`answer`]); `which` names the child (tier,
/// slot) for the panic of an unsolved one.
#[inline]
pub(in crate::solver) fn fold(
    word: u16,
    at: usize,
    best: &[AtomicU16],
    longest: &[AtomicU16],
    which: impl Fn() -> (TierKey, u64),
) {
    if !fold_known(word, at, best, longest) {
        let (t, i) = which();
        panic!("tier {t} slot {i} has no solved value (missing tier dependency)")
    }
}

/// [`fold`] for a word that may hold no value: `false` (nothing folded)
/// if it holds none.
#[inline]
pub(in crate::solver) fn fold_known(
    word: u16,
    at: usize,
    best: &[AtomicU16],
    longest: &[AtomicU16],
) -> bool {
    match Packed::from_bits(word).value() {
        Some(Value::Loss(r)) => {
            best[at].fetch_min(r + 1, Relaxed);
        }
        Some(Value::Draw) => {
            longest[at].fetch_or(DRAW_SEEN, Relaxed);
        }
        Some(Value::Win(r)) => {
            let _ = longest[at].fetch_update(Relaxed, Relaxed, |old| {
                (old & !DRAW_SEEN < r).then_some(old & DRAW_SEEN | r)
            });
        }
        None => return false,
    }
    true
}

/// The bit of an accumulator of longest wins that says a child is a draw.
pub(in crate::solver) const DRAW_SEEN: u16 = 0x8000;

/// What settling a chunk of a window found.
pub(in crate::solver) struct Settled<S> {
    pub decided: Found<S>,
    pub tentative: Vec<(u16, S)>,
    pub saturated: Vec<(u64, u16)>,
}

/// The second half of the initial pass over a chunk whose first slot is
/// `first`: decide or open each counted position, as the in-memory pass
/// does once it has read the lower-tier values.
pub(in crate::solver) fn settle<S: Slot>(
    first: usize,
    states: &[AtomicU16],
    best: &[AtomicU16],
    longest: &[AtomicU16],
) -> Settled<S> {
    let mut out = Settled {
        decided: [Vec::new(), Vec::new()],
        tentative: Vec::new(),
        saturated: Vec::new(),
    };
    for (k, s) in states.iter().enumerate() {
        let word = s.load(Relaxed);
        if !is_open(word) {
            continue;
        }
        let i = S::new((first + k) as u64);
        let count = word & COUNT;
        let b = best[k].load(Relaxed);
        let best_win = (b != u16::MAX).then_some(b);
        let l = longest[k].load(Relaxed);
        let (has_draw, lower_max) = (l & DRAW_SEEN != 0, l & !DRAW_SEEN);
        if count == 0 {
            let v = if let Some(b) = best_win {
                Value::Win(b)
            } else if has_draw {
                Value::Draw
            } else {
                Value::Loss(lower_max + 1)
            };
            s.store(pack(v), Relaxed);
            match v {
                Value::Loss(r) => out.decided[LOSSES].push((r, i)),
                Value::Win(r) => out.decided[WINS].push((r, i)),
                Value::Draw => {}
            }
            continue;
        }
        let not_a_loss = best_win.is_some() || has_draw;
        let open = state::open(count, not_a_loss, lower_max);
        if !not_a_loss && state::lower_max(open).is_none() {
            out.saturated.push((i.get(), lower_max));
        }
        s.store(open, Relaxed);
        if let Some(b) = best_win {
            out.tentative.push((b, i));
        }
    }
    out
}

/// Window `w`'s part of a round's outboxes as one record: a byte for the
/// kind, then per region of the window its number of updates, then per
/// region its updates sorted and delta-coded (varints). Empty if the
/// window has none.
fn encode(boxes: &[Outbox], plan: &Plan, w: usize, is_loss: bool) -> Vec<u8> {
    let regions = w * plan.window_regions..((w + 1) * plan.window_regions).min(plan.regions);
    let total: usize = boxes
        .iter()
        .map(|b| (b.starts[regions.end] - b.starts[regions.start]) as usize)
        .sum();
    if total == 0 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(1 + 2 * regions.len() + total + total / 2);
    out.push(is_loss as u8);
    for r in regions.clone() {
        let n: u32 = boxes.iter().map(|b| b.starts[r + 1] - b.starts[r]).sum();
        put_varint(&mut out, n);
    }
    let mut run = Vec::new();
    for r in regions {
        run.clear();
        for b in boxes {
            run.extend_from_slice(&b.msgs[b.starts[r] as usize..b.starts[r + 1] as usize]);
        }
        run.sort_unstable();
        let mut prev = 0u16;
        for &x in &run {
            put_varint(&mut out, (x - prev) as u32);
            prev = x;
        }
    }
    out
}

/// A record of [`encode`] back as an outbox over all regions (empty
/// outside window `w`'s), and its kind.
fn decode(bytes: &[u8], plan: &Plan, w: usize) -> Result<(Outbox, bool), TbError> {
    let bad = || {
        TbError::io(
            std::path::Path::new("runs"),
            "spill file damaged",
            std::io::Error::other("a record of parent updates does not decode"),
        )
    };
    let regions = w * plan.window_regions..((w + 1) * plan.window_regions).min(plan.regions);
    let is_loss = *bytes.first().ok_or_else(bad)? != 0;
    let mut at = 1;
    let mut starts = vec![0u32; plan.regions + 1];
    let mut total = 0u32;
    for r in regions.clone() {
        starts[r] = total;
        total += get_varint(bytes, &mut at).ok_or_else(bad)?;
    }
    for s in &mut starts[regions.end..] {
        *s = total;
    }
    let mut msgs = Vec::with_capacity(total as usize);
    for r in regions {
        let n = starts[r + 1] - starts[r];
        let mut prev = 0u32;
        for _ in 0..n {
            prev += get_varint(bytes, &mut at).ok_or_else(bad)?;
            msgs.push(u16::try_from(prev).map_err(|_| bad())?);
        }
    }
    if at != bytes.len() {
        return Err(bad());
    }
    Ok((Outbox { msgs, starts }, is_loss))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::exchange::region_count;
    use crate::solver::tier::solve_tier;

    /// Every tier of two subsets solved out of core with 64-bit slot
    /// numbers and the smallest pieces there are (regions of 4 slots,
    /// windows of 3 regions, rounds of 3 positions, batches of 5
    /// requests, queues that spill at 2 items) equals the in-memory solve,
    /// counts included.
    #[test]
    fn crumbs_of_windows_rounds_and_queues_give_the_in_memory_table() {
        let scratch = std::env::temp_dir().join(format!("qibase-crumbs-{}", std::process::id()));
        for (id, max) in [
            ("cannon-chess-4x4", 3),
            ("two-cannons:board=4x4,soldiers=7", 3),
        ] {
            let any = crate::games::AnyGame::from_id(id).unwrap();
            crate::with_game!(any, |g| {
                let mut done: Vec<(TierKey, Vec<Packed>, Arc<RawArray>)> = Vec::new();
                for t in g.tiers(Some(max)) {
                    let _ = std::fs::remove_dir_all(&scratch);
                    std::fs::create_dir_all(&scratch).unwrap();
                    let mut lower = TierValues::new();
                    for d in g.tier_deps(t) {
                        lower.add(d, &done.iter().find(|x| x.0 == d).unwrap().1);
                    }
                    let plain = solve_tier(g, t, &lower, &|_| {});
                    let n = g.tier_size(t);
                    let regions = region_count(n as usize, 2);
                    let plan = Plan {
                        shift: 2,
                        regions,
                        window_regions: 3,
                        windows: regions.div_ceil(3),
                        round: 3,
                        requests: 5,
                        queue_cap: 2,
                        checkpoint_every: std::time::Duration::MAX,
                    };
                    let raws = RawLower {
                        tiers: g
                            .tier_deps(t)
                            .into_iter()
                            .map(|d| (d, done.iter().find(|x| x.0 == d).unwrap().2.clone()))
                            .collect(),
                    };
                    // Beside the scratch directory, which each tier empties.
                    let name = format!(
                        "qibase-crumbs-{}-{}.raw",
                        std::process::id(),
                        g.tier_name(t)
                    );
                    let values = RawArray::zeroed(&std::env::temp_dir().join(&name), n).unwrap();
                    let spilled = solve_spilled::<_, u64>(
                        g,
                        t,
                        &values,
                        &scratch,
                        "crumbs",
                        Start::Fresh(raws),
                        &plan,
                        &|_| {},
                        &|| false,
                    )
                    .unwrap()
                    .unwrap();
                    let mut words = vec![0u16; n as usize];
                    values.read(0, &mut words).unwrap();
                    let what = format!("{id} tier {}", g.tier_name(t));
                    assert!(Packed::vec_from_bits(words) == plain.values, "{what}");
                    let (a, b) = (&spilled.stats, &plain.stats);
                    assert_eq!(
                        (a.wins, a.losses, a.draws, a.unused, a.max_win, a.max_loss),
                        (b.wins, b.losses, b.draws, b.unused, b.max_win, b.max_loss),
                        "{what}"
                    );
                    assert_eq!(spilled.touches, plain.touches, "{what}");
                    done.push((t, plain.values, Arc::new(values)));
                }
            });
        }
        let _ = std::fs::remove_dir_all(&scratch);
    }

    /// A tier stopped again and again (in its initial pass, in the middle
    /// of a level, between levels) and resumed each time from its
    /// checkpoint comes out as the in-memory solve, counts and touches
    /// included: with a checkpoint after every level, and with none but
    /// those made when stopped between levels (where a stop in a level
    /// leaves the state file several levels past its checkpoint, for the
    /// undo log to take back).
    #[test]
    fn tiers_stopped_anywhere_and_resumed_give_the_in_memory_table() {
        use std::sync::atomic::AtomicUsize;
        use std::time::Duration;
        let scratch = std::env::temp_dir().join(format!("qibase-resume-{}", std::process::id()));
        let any = crate::games::AnyGame::from_id("cannon-chess-4x4").unwrap();
        crate::with_game!(any, |g| {
            let mut done: Vec<(TierKey, Vec<Packed>, Arc<RawArray>)> = Vec::new();
            let mut resumes = 0;
            for t in g.tiers(Some(3)) {
                let mut lower = TierValues::new();
                for d in g.tier_deps(t) {
                    lower.add(d, &done.iter().find(|x| x.0 == d).unwrap().1);
                }
                let plain = solve_tier(g, t, &lower, &|_| {});
                let n = g.tier_size(t);
                let raws = || RawLower {
                    tiers: g
                        .tier_deps(t)
                        .into_iter()
                        .map(|d| (d, done.iter().find(|x| x.0 == d).unwrap().2.clone()))
                        .collect(),
                };
                let name = format!(
                    "qibase-resume-{}-{}.raw",
                    std::process::id(),
                    g.tier_name(t)
                );
                let values = RawArray::zeroed(&std::env::temp_dir().join(&name), n).unwrap();
                for (every, step) in [(Duration::ZERO, 3), (Duration::MAX, 5)] {
                    let _ = std::fs::remove_dir_all(&scratch);
                    std::fs::create_dir_all(&scratch).unwrap();
                    let regions = region_count(n as usize, 3);
                    let plan = Plan {
                        shift: 3,
                        regions,
                        window_regions: 2,
                        windows: regions.div_ceil(2),
                        round: 5,
                        requests: 5,
                        queue_cap: 3,
                        checkpoint_every: every,
                    };
                    // How many times a whole solve asks whether to stop,
                    // and how many of those are in its initial pass.
                    let asked = AtomicUsize::new(0);
                    let in_pass = AtomicUsize::new(0);
                    let count = || asked.fetch_add(1, Relaxed) == usize::MAX;
                    let levels = |e| {
                        if matches!(e, Progress::Level(..)) && in_pass.load(Relaxed) == 0 {
                            in_pass.store(asked.load(Relaxed), Relaxed);
                        }
                    };
                    let start = Start::Fresh(raws());
                    solve_spilled::<_, u32>(
                        g, t, &values, &scratch, "resume", start, &plan, &levels, &count,
                    )
                    .unwrap()
                    .unwrap();
                    let pass = in_pass.load(Relaxed);
                    // Stopped at the 5th question (in the initial pass),
                    // then, once a whole pass has had room, every `step`
                    // questions.
                    let mut stops = vec![5];
                    stops.extend((0..25).map(|k| 6 + pass + k * step));
                    asked.store(0, Relaxed);
                    let stop = || stops.contains(&asked.fetch_add(1, Relaxed));
                    let mut start = Start::Fresh(raws());
                    let spilled = loop {
                        let got = solve_spilled::<_, u32>(
                            g,
                            t,
                            &values,
                            &scratch,
                            "resume",
                            start,
                            &plan,
                            &|_| {},
                            &stop,
                        )
                        .unwrap();
                        if let Some(s) = got {
                            break s;
                        }
                        start = match checkpoint::load(&scratch, "resume").unwrap() {
                            Some(c) => {
                                resumes += 1;
                                Start::Resume(c)
                            }
                            None => Start::Fresh(raws()),
                        };
                    };
                    let mut words = vec![0u16; n as usize];
                    values.read(0, &mut words).unwrap();
                    let what = format!("tier {} every {every:?} step {step}", g.tier_name(t));
                    assert!(Packed::vec_from_bits(words) == plain.values, "{what}");
                    let (a, b) = (&spilled.stats, &plain.stats);
                    assert_eq!(
                        (a.wins, a.losses, a.draws, a.unused, a.max_win, a.max_loss),
                        (b.wins, b.losses, b.draws, b.unused, b.max_win, b.max_loss),
                        "{what}"
                    );
                    assert_eq!(spilled.touches, plain.touches, "{what}");
                }
                done.push((t, plain.values, Arc::new(values)));
            }
            assert!(resumes > 100, "only {resumes} resumes");
        });
        let _ = std::fs::remove_dir_all(&scratch);
    }

    /// An open state whose longest lower-tier win does not fit its state
    /// word keeps it in the side table; one that fits does not.
    #[test]
    fn long_lower_wins_go_to_the_side_table() {
        let states: Vec<AtomicU16> = [2u16, 3, 1]
            .iter()
            .map(|&c| AtomicU16::new(state::OPEN | c))
            .collect();
        let best: Vec<AtomicU16> = (0..3).map(|_| AtomicU16::new(u16::MAX)).collect();
        let longest: Vec<AtomicU16> = [200u16, 40, 300 | DRAW_SEEN]
            .iter()
            .map(|&l| AtomicU16::new(l))
            .collect();
        let s = settle::<u32>(10, &states, &best, &longest);
        // Slot 10: 200 plies, no draw: kept aside. Slot 11: 40 fits the
        // word. Slot 12: a draw child, so never a loss: nothing to keep.
        assert_eq!(s.saturated, vec![(10, 200)]);
        assert_eq!(
            state::lower_max(states[1].load(Relaxed)),
            Some(40),
            "fits the word"
        );
        assert!(state::lower_max(states[0].load(Relaxed)).is_none());
    }
}
