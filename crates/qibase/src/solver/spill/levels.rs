//! The levels of an out-of-core tier. Each level's parent updates are
//! made as in memory (message combining, [`crate::solver::propagate`]),
//! then each window's part is sorted, delta-coded and appended to a run
//! file; once the level's positions are all sent, each window with updates
//! (or tentative wins of the next level) is loaded, its runs applied in
//! the order they were written, and stored. Now and then, and when
//! stopped, a level ends with a checkpoint.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use super::checkpoint::{self, LevelRecord, UndoLog};
use super::files::{get_varint, put_varint, RawArray, Segments, SpillQueue};
use super::tier::SpillJob;
use super::Plan;
use crate::game::Tiers;
use crate::solver::propagate::{LevelJob, Outbox, Tuning};
use crate::solver::slot::Slot;
use crate::solver::state::{as_atomic_u16, is_open, pack, Buckets, Found, LOSSES, WINS};
use crate::solver::tier_options::Progress;
use crate::tablebase::TbError;
use crate::tier_values::TierValues;
use crate::value::Value;

/// The slots of window `w` of a tier of `n` slots.
pub(super) fn window_range(plan: &Plan, n: usize, w: usize) -> Range<usize> {
    let slots = plan.window_regions << plan.shift;
    (w * slots).min(n)..((w + 1) * slots).min(n)
}

/// The window of state words in hand: `buf` holds window `held`'s words
/// across levels, and `dirty` says which of its regions changed since it
/// was read. A level rewrites the whole file if every window is read and
/// written whole, while most levels of a large tier (its long tail) touch
/// few regions, and the window in hand is the next one needed: keeping it
/// and writing back only its changed regions saves most of that traffic.
pub(super) struct Window {
    pub buf: Vec<u16>,
    /// The window `buf` holds (and that the file may be behind on).
    pub held: Option<usize>,
    dirty: Vec<bool>,
}

impl Window {
    /// A buffer for one window of a tier of `n` slots, holding none.
    pub fn new(plan: &Plan, n: usize) -> Window {
        Window {
            buf: vec![0u16; (plan.window_regions << plan.shift).min(n)],
            held: None,
            dirty: vec![false; plan.window_regions],
        }
    }

    /// Hold window `w` (of `range`), writing back the one held before.
    fn load(
        &mut self,
        w: usize,
        range: Range<usize>,
        values: &RawArray,
        plan: &Plan,
        undo: &mut UndoLog,
    ) -> Result<(), TbError> {
        if self.held != Some(w) {
            self.write_back(values, plan, undo)?;
            values.read(range.start as u64, &mut self.buf[..range.len()])?;
            self.held = Some(w);
        }
        Ok(())
    }

    /// Write the changed regions of the held window back to `values`
    /// (runs of them as one write each) and mark them clean.
    /// Their words as of the last checkpoint go to `undo` first.
    pub fn write_back(
        &mut self,
        values: &RawArray,
        plan: &Plan,
        undo: &mut UndoLog,
    ) -> Result<(), TbError> {
        let Some(w) = self.held else {
            return Ok(());
        };
        let (window_slots, shift) = (plan.window_regions << plan.shift, plan.shift);
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
            values.write((lo + a) as u64, &self.buf[a..b])?;
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

/// The queues of an out-of-core tier, spilling to files: positions
/// decided, and tentative wins, by level.
pub(super) struct Queues<S> {
    pub buckets: SpillQueue<S>,
    pub tentative: SpillQueue<S>,
}

impl<S: Slot> Queues<S> {
    /// Levels with anything queued.
    fn len(&self) -> usize {
        self.buckets.len().max(self.tentative.len())
    }
}

/// What the levels of an out-of-core tier carry from one to the next,
/// from its initial pass or from the checkpoint it resumes.
pub(super) struct LevelState {
    /// Open states' longest lower-tier wins that do not fit their words.
    pub saturated: Vec<(u64, u16)>,
    pub touches: AtomicU64,
    /// The next level, the checkpoints' epoch, the positions propagated.
    pub level: usize,
    pub epoch: u64,
    pub decided: u64,
    /// Seconds of the initial pass, and of the levels before a resume.
    pub init_seconds: f64,
    pub prior_seconds: f64,
}

impl<G: Tiers> SpillJob<'_, G> {
    /// Run the levels from `q.level` on; the seconds of all levels, or
    /// `None` if stopped (at a checkpoint when stopped between levels).
    pub(super) fn run_levels<S: Slot>(
        &self,
        window: &mut Window,
        queues: &mut Queues<S>,
        q: &mut LevelState,
    ) -> Result<Option<f64>, TbError> {
        let (plan, t1) = (self.plan, Instant::now());
        let mut runs = Segments::new(&self.work.join("runs"))?;
        let mut undo = UndoLog::create(&self.work.join(checkpoint::UNDO), plan.regions, q.epoch)?;
        let mut last_checkpoint = Instant::now();
        let mut record = Vec::new();
        // Tentative wins are one ply longer than a lower-tier loss: none
        // is at level 0, so each level's window pass checks the next
        // level's.
        while q.level < queues.len() {
            q.decided += self.send_level(queues, q, &mut runs)?;
            if !self.apply_level(window, queues, q, &runs, &mut undo, &mut record)? {
                return Ok(None);
            }
            runs.clear()?;
            (self.opts.progress)(Progress::Level(q.level as u16, q.decided));
            q.level += 1;
            let stopping = (self.opts.stop)();
            let last = q.level >= queues.len();
            if stopping || last || last_checkpoint.elapsed() >= plan.checkpoint_every {
                self.checkpoint(window, q, &mut undo, t1)?;
                last_checkpoint = Instant::now();
            }
            if stopping {
                return Ok(None);
            }
        }
        drop(runs);
        window.write_back(self.values, plan, &mut undo)?;
        Ok(Some(q.prior_seconds + t1.elapsed().as_secs_f64()))
    }

    /// The level's job over `states` (slots from `base`), applying updates
    /// to the regions `owned` and queueing what it decides in `found`.
    fn level_job<'b, S: Slot>(
        &'b self,
        q: &'b LevelState,
        states: &'b [AtomicU16],
        base: usize,
        owned: Range<usize>,
        found: &'b Mutex<Buckets<S>>,
    ) -> LevelJob<'b, G, S> {
        static EMPTY: TierValues<'static> = TierValues::new();
        LevelJob {
            g: self.g,
            t: self.t,
            lower: &EMPTY,
            states,
            base,
            saturated: Some(&q.saturated[..]),
            level: q.level as u16,
            found,
            touches: &q.touches,
            tuning: Tuning {
                round: self.plan.round,
                ..self.opts.tuning
            },
            shift: self.plan.shift,
            regions: self.plan.regions,
            owned,
        }
    }

    /// Send: every round's updates of the level's positions, cut by
    /// window, to the run file; the positions read from their queue a
    /// part at a time. Returns how many were sent.
    fn send_level<S: Slot>(
        &self,
        queues: &mut Queues<S>,
        q: &LevelState,
        runs: &mut Segments,
    ) -> Result<u64, TbError> {
        let plan = self.plan;
        let mut sent = 0u64;
        // Sending finds nothing: the sender's queue stays empty.
        let none_found = Mutex::new(Buckets::<S>::default());
        let sender = self.level_job(q, &[], 0, 0..0, &none_found);
        for (kind, is_loss) in [(LOSSES, true), (WINS, false)] {
            queues.buckets.drain(q.level, kind, |part| {
                sent += part.len() as u64;
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
        Ok(sent)
    }

    /// Apply: each window with updates or with tentative wins of the next
    /// level (checked after all of this level's updates, as the in-memory
    /// solve checks them at the next level's start). `false`: stopped in
    /// the middle of the level (as if killed: the next call resumes from
    /// the last checkpoint).
    fn apply_level<S: Slot>(
        &self,
        window: &mut Window,
        queues: &mut Queues<S>,
        q: &LevelState,
        runs: &Segments,
        undo: &mut UndoLog,
        record: &mut Vec<u8>,
    ) -> Result<bool, TbError> {
        let plan = self.plan;
        let n = self.values.len() as usize;
        let [_, next] = queues.tentative.take(q.level + 1)?;
        let mut next_by_window: Vec<Vec<S>> = vec![Vec::new(); plan.windows];
        for i in next {
            next_by_window[i.index() / (plan.window_regions << plan.shift)].push(i);
        }
        // Every other level visits the windows backwards, so the window
        // held from the last level is the first one needed again.
        let order: Vec<usize> = if q.level.is_multiple_of(2) {
            (0..plan.windows).collect()
        } else {
            (0..plan.windows).rev().collect()
        };
        for w in order {
            let next = &next_by_window[w];
            if !runs.has(w) && next.is_empty() {
                continue;
            }
            if (self.opts.stop)() {
                return Ok(false);
            }
            window.load(w, window_range(plan, n, w), self.values, plan, undo)?;
            let found = self.apply_window(window, w, next, q, runs, record)?;
            for (l, pair) in found.levels.into_iter().enumerate() {
                let items: Found<S> = pair.map(|v| v.into_iter().map(|i| (l as u16, i)).collect());
                queues.buckets.push_all(&items)?;
            }
        }
        Ok(true)
    }

    /// Apply the level's runs of window `w` (in hand) and decide its
    /// tentative wins of the next level, `next`; returns what it decided.
    fn apply_window<S: Slot>(
        &self,
        window: &mut Window,
        w: usize,
        next: &[S],
        q: &LevelState,
        runs: &Segments,
        record: &mut Vec<u8>,
    ) -> Result<Buckets<S>, TbError> {
        let plan = self.plan;
        let range = window_range(plan, self.values.len() as usize, w);
        let (lo, len) = (range.start, range.len());
        let first_region = w * plan.window_regions;
        for &i in next {
            window.dirty[(i.index() >> plan.shift) - first_region] = true;
        }
        let found = Mutex::new(Buckets::<S>::default());
        let (next_level, won) = (q.level as u16 + 1, pack(Value::Win(q.level as u16 + 1)));
        let wins = {
            let states = as_atomic_u16(&mut window.buf[..len]);
            let owned = first_region..(first_region + plan.window_regions).min(plan.regions);
            let applier = self.level_job(q, states, lo, owned, &found);
            let dirty = &mut window.dirty;
            runs.for_each(w, record, |bytes| {
                let (boxes, is_loss) = decode(bytes, plan, w)?;
                // A region changes only where it has updates.
                for r in applier.owned.clone() {
                    dirty[r - first_region] |= boxes.starts[r + 1] > boxes.starts[r];
                }
                applier.apply_all(std::slice::from_ref(&boxes), is_loss);
                Ok(())
            })?;
            let mut wins = Vec::new();
            for &i in next {
                let s = &states[i.index() - lo];
                if is_open(s.load(Relaxed)) {
                    s.store(won, Relaxed);
                    wins.push((next_level, i));
                }
            }
            wins
        };
        // The window's finds, for the queue (which may spill them).
        let mut found = found.into_inner().unwrap();
        found.push_all(&[Vec::new(), wins]);
        Ok(found)
    }

    /// Everything up to this level on disk, then the record that says so;
    /// the undo log starts over.
    fn checkpoint(
        &self,
        window: &mut Window,
        q: &mut LevelState,
        undo: &mut UndoLog,
        t1: Instant,
    ) -> Result<(), TbError> {
        window.write_back(self.values, self.plan, undo)?;
        self.values.sync()?;
        q.epoch += 1;
        checkpoint::save_level(
            self.work,
            &LevelRecord {
                tier: self.identity.to_string(),
                epoch: q.epoch,
                next_level: q.level as u64,
                touches: q.touches.load(Relaxed),
                propagate_seconds: q.prior_seconds + t1.elapsed().as_secs_f64(),
            },
        )?;
        undo.reset(q.epoch)
    }
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
