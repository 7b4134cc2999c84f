//! One tier solved out of core: the state words live in a file and are
//! held one *window* (a run of whole regions) at a time, in three phases:
//!
//! * Initial pass, window by window: each position's rule end, in-tier
//!   counter and lower-tier children; the lower-tier values are not
//!   probed one by one but requested in batches ([`crate::solver::requests`]),
//!   the requests grouped by block of the lower tier's raw file, each
//!   block read once per batch, and the answers folded into per-slot
//!   accumulators.
//! * The levels ([`super::levels`]): each level's parent updates sent to
//!   run files, then applied window by window, with checkpoints.
//! * Settle: what is still open is a draw; the counts, window by window.
//!
//! Open states whose longest lower-tier win does not fit the state word
//! keep it in a small sorted side table, so the levels read no lower tier.
//!
//! The set of positions decided at each level is that of the in-memory
//! solve, so the table is identical (tests check it on tiny budgets).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::batch::BatchSlots;
use super::checkpoint::{self, Checkpoint, LevelRecord, StartRecord};
use super::files::{RawArray, SpillQueue};
use super::levels::{window_range, LevelState, Queues, Window};
use super::Plan;
use crate::game::{TierKey, Tiers};
use crate::raw::answer_requests;
use crate::raw::Request;
use crate::solver::limits::LimitError;
use crate::solver::requests::{scan, Answers};
use crate::solver::slot::{with_slots, Slot, WithSlots};
use crate::solver::state::{as_atomic_u16, is_open, settle_and_count, Found, CHUNK, LOSSES, WINS};
use crate::solver::tier_options::{Progress, TierOptions};
use crate::solver::SolveError;
use crate::tablebase::TbError;
use crate::tier_values::{add_counts, TierStats};
use crate::value::{Packed, Value};

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
/// and checkpoints in `work`, cut up by `plan`, telling and asking `opts`'
/// callbacks; `identity` names the tier in its checkpoints. `None`:
/// stopped (at a checkpoint when stopped between two levels, which a later
/// call resumes from).
#[allow(clippy::too_many_arguments)]
pub(in crate::solver) fn solve_spilled<G: Tiers>(
    g: &G,
    t: TierKey,
    values: &RawArray,
    work: &Path,
    identity: &str,
    start: Start,
    plan: &Plan,
    opts: &TierOptions,
) -> Result<Option<SpilledTier>, SolveError> {
    let job = SpillJob {
        g,
        t,
        values,
        work,
        identity,
        plan,
        opts,
    };
    let wide = opts.tuning.wide_slots;
    with_slots(g.tier_size(t), wide, Spilled { job: &job, start })
}

/// What an out-of-core tier's phases share: the arguments of
/// [`solve_spilled`] but where it starts.
pub(super) struct SpillJob<'a, G> {
    pub g: &'a G,
    pub t: TierKey,
    pub values: &'a RawArray,
    pub work: &'a Path,
    pub identity: &'a str,
    pub plan: &'a Plan,
    pub opts: &'a TierOptions<'a>,
}

/// A [`SpillJob`] and where it starts, solved with either width of slot
/// numbers.
struct Spilled<'a, G> {
    job: &'a SpillJob<'a, G>,
    start: Start,
}

impl<G: Tiers> WithSlots for Spilled<'_, G> {
    type Output = Result<Option<SpilledTier>, SolveError>;

    fn run<S: Slot>(self) -> Self::Output {
        let job = self.job;
        let n = job.g.tier_size(job.t) as usize;
        debug_assert_eq!(job.values.len() as usize, n);
        let mut window = Window::new(job.plan, n);
        // 1. The initial pass, or the checkpoint of an interrupted solve.
        let Some((mut queues, mut q)) = job.begin::<S>(self.start, &mut window)? else {
            return Ok(None);
        };
        // 2. The levels.
        let Some(propagate_seconds) = job.run_levels(&mut window, &mut queues, &mut q)? else {
            return Ok(None);
        };
        // 3. What is still open is a draw; tally, window by window. (Done
        // in place after the last checkpoint: a resume from there redoes
        // it, and open slots turned to draws stay draws.)
        let t2 = Instant::now();
        let counts = job.settle(&mut window.buf)?;
        let stats = TierStats {
            init_seconds: q.init_seconds,
            propagate_seconds: propagate_seconds + t2.elapsed().as_secs_f64(),
            ..counts
        };
        Ok(Some(SpilledTier {
            stats,
            touches: q.touches.into_inner(),
        }))
    }
}

impl<G: Tiers> SpillJob<'_, G> {
    /// Where the levels start: after a fresh initial pass (`None` if
    /// stopped in it), or at the checkpoint `start` holds.
    fn begin<S: Slot>(
        &self,
        start: Start,
        window: &mut Window,
    ) -> Result<Option<(Queues<S>, LevelState)>, SolveError> {
        let (plan, work) = (self.plan, self.work);
        let buckets = SpillQueue::<S>::new(&work.join("found.q"), plan.queue_cap)?;
        let tentative_path = work.join("tentative.q");
        let t0 = Instant::now();
        let c = match start {
            Start::Fresh(lower) => {
                checkpoint::forget(work)?;
                let tentative = SpillQueue::<S>::new(&tentative_path, plan.queue_cap)?;
                let mut queues = Queues { buckets, tentative };
                let mut saturated = Vec::new();
                let touches = AtomicU64::new(0);
                if !self.initial_pass(&lower, window, &mut queues, &mut saturated, &touches)? {
                    return Ok(None);
                }
                let init_seconds = t0.elapsed().as_secs_f64();
                let start =
                    self.first_checkpoint(&mut queues, saturated, &touches, init_seconds)?;
                // The levels read no lower tier: the raw files of those no
                // later tier reads go now (k11's 10.5 GB while tier k12 of
                // the 6x5 two-cannons runs its levels).
                drop(lower);
                // The initial pass leaves its last window in `buf`, written.
                window.held = plan.windows.checked_sub(1);
                let q = LevelState {
                    saturated: start.saturated,
                    touches,
                    level: 0,
                    epoch: 0,
                    decided: 0,
                    init_seconds,
                    prior_seconds: 0.0,
                };
                return Ok(Some((queues, q)));
            }
            Start::Resume(c) => c,
        };
        let l = &c.level;
        checkpoint::replay(&work.join(checkpoint::UNDO), self.values, l.epoch)?;
        let tentative =
            SpillQueue::<S>::reopen(&tentative_path, plan.queue_cap, &c.start.tentative)?;
        let mut queues = Queues { buckets, tentative };
        // The positions still to propagate: those decided later than the
        // levels done.
        let decided = requeue(
            self.values,
            &mut window.buf,
            l.next_level,
            &mut queues.buckets,
        )?;
        (self.opts.progress)(Progress::Initial(self.values.len()));
        let q = LevelState {
            saturated: c.start.saturated,
            touches: AtomicU64::new(l.touches),
            level: l.next_level as usize,
            epoch: l.epoch,
            decided,
            init_seconds: c.start.init_seconds,
            prior_seconds: l.propagate_seconds,
        };
        Ok(Some((queues, q)))
    }

    /// The first checkpoint: the initial pass's results, then "level 0
    /// next". Everything they describe is made durable first.
    fn first_checkpoint<S: Slot>(
        &self,
        queues: &mut Queues<S>,
        saturated: Vec<(u64, u16)>,
        touches: &AtomicU64,
        init_seconds: f64,
    ) -> Result<StartRecord, TbError> {
        self.values.sync()?;
        let start = StartRecord {
            tier: self.identity.to_string(),
            init_seconds,
            touches: touches.load(Relaxed),
            saturated,
            tentative: queues.tentative.persist()?,
        };
        checkpoint::save_start(self.work, &start)?;
        checkpoint::save_level(
            self.work,
            &LevelRecord {
                tier: self.identity.to_string(),
                epoch: 0,
                next_level: 0,
                touches: start.touches,
                propagate_seconds: 0.0,
            },
        )?;
        Ok(start)
    }

    /// The settle phase: what is still open is a draw, and the counts,
    /// window by window through `buf`.
    fn settle(&self, buf: &mut [u16]) -> Result<TierStats, TbError> {
        let n = self.values.len() as usize;
        let mut counts = TierStats::default();
        for w in 0..self.plan.windows {
            let range = window_range(self.plan, n, w);
            let (lo, len) = (range.start, range.len());
            self.values.read(lo as u64, &mut buf[..len])?;
            counts = add_counts(counts, settle_and_count(&mut buf[..len]));
            self.values.write(lo as u64, &buf[..len])?;
        }
        Ok(counts)
    }

    /// Count, decide and queue every position, window by window, writing
    /// each window's states to the file; `false` if stopped.
    fn initial_pass<S: Slot>(
        &self,
        lower: &RawLower,
        window: &mut Window,
        queues: &mut Queues<S>,
        saturated: &mut Vec<(u64, u16)>,
        touches: &AtomicU64,
    ) -> Result<bool, SolveError> {
        let (g, t, plan) = (self.g, self.t, self.plan);
        let n = g.tier_size(t) as usize;
        let buf = &mut window.buf;
        let answers = Answers::new(buf.len());
        let mut batch = BatchSlots::new(plan.requests, REQUESTS_PER_SLOT);
        let tables: Vec<TierKey> = lower.tiers.iter().map(|(k, _)| *k).collect();
        for w in 0..plan.windows {
            if (self.opts.stop)() {
                return Ok(false);
            }
            let range = window_range(plan, n, w);
            let (lo, len) = (range.start, range.len());
            buf[..len].fill(0);
            answers.clear(len);
            let states = as_atomic_u16(&mut buf[..len]);
            let mut at = lo;
            while at < range.end {
                // A batch: rounds of chunks until its requests fill it or
                // the window ends.
                let mut requests = Vec::new();
                let mut asked = 0;
                while let Some(slots) = batch.round(asked).filter(|_| at < range.end) {
                    if (self.opts.stop)() {
                        return Ok(false);
                    }
                    let end = (at + slots).min(range.end);
                    let scans =
                        scan::<G, S>(g, t, at..end, lo, &tables, states).map_err(|children| {
                            LimitError::TooManyChildren {
                                tier: Some(g.tier_name(t)),
                                children,
                            }
                        })?;
                    let before = asked;
                    for mut s in scans {
                        queues.buckets.push_all(&s.decided)?;
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
                answer(lower, requests, &answers)?;
            }
            // Settle the window's positions from their counters and answers.
            for s in answers.settle::<S>(lo, states) {
                queues.buckets.push_all(&s.decided)?;
                queues.tentative.push_all(&[Vec::new(), s.tentative])?;
                saturated.extend_from_slice(&s.saturated);
            }
            self.values.write(lo as u64, &buf[..len])?;
            (self.opts.progress)(Progress::Initial(len as u64));
        }
        saturated.sort_unstable();
        Ok(true)
    }
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

/// Answer `requests` from the lower tiers' files, each answer folded
/// into its asker's `answers`.
fn answer(lower: &RawLower, requests: Vec<Vec<Request>>, answers: &Answers) -> Result<(), TbError> {
    let tables: Vec<&RawArray> = lower.tiers.iter().map(|(_, raw)| &**raw).collect();
    answer_requests(&tables, requests, |word, at, table, rank| {
        answers.fold(word, at as usize, || (lower.tiers[table].0, rank))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::propagate::Tuning;
    use crate::solver::regions::region_count;
    use crate::solver::tier::{solve_plain, SolvedTier};
    use crate::tier_values::TierValues;
    use std::time::Duration;

    /// The tiers solved so far: their values, in memory and as raw files.
    #[derive(Default)]
    struct Done(Vec<(TierKey, Vec<Packed>, Arc<RawArray>)>);

    impl Done {
        fn get(&self, t: TierKey) -> &(TierKey, Vec<Packed>, Arc<RawArray>) {
            self.0.iter().find(|x| x.0 == t).unwrap()
        }

        /// Tier `t` solved in memory from the tiers done.
        fn in_memory<G: Tiers>(&self, g: &G, t: TierKey) -> SolvedTier {
            let mut lower = TierValues::new();
            for d in g.tier_deps(t) {
                lower.add(d, &self.get(d).1);
            }
            solve_plain(g, t, &lower)
        }

        /// Tier `t`'s lower tiers as raw files.
        fn raws<G: Tiers>(&self, g: &G, t: TierKey) -> RawLower {
            let tiers = g.tier_deps(t);
            RawLower {
                tiers: tiers
                    .into_iter()
                    .map(|d| (d, self.get(d).2.clone()))
                    .collect(),
            }
        }
    }

    /// A zeroed state file for tier `t`, named by `what`, beside the
    /// scratch directories (which each tier empties).
    fn state_file<G: Tiers>(g: &G, t: TierKey, what: &str) -> RawArray {
        let pid = std::process::id();
        let name = format!("qibase-{what}-{pid}-{}.raw", g.tier_name(t));
        RawArray::zeroed(&std::env::temp_dir().join(&name), g.tier_size(t)).unwrap()
    }

    /// A plan of tiny pieces for a tier of `n` slots: regions of
    /// `1 << shift` slots, windows of `window_regions`, rounds of `round`
    /// positions, batches of 5 requests, queues that spill at `queue_cap`
    /// items, a checkpoint every `every`.
    fn crumbs(n: u64, shift: u32, window_regions: usize, round: usize, queue_cap: usize) -> Plan {
        let regions = region_count(n as usize, shift);
        Plan {
            shift,
            regions,
            window_regions,
            windows: regions.div_ceil(window_regions),
            round,
            requests: 5,
            queue_cap,
            checkpoint_every: Duration::MAX,
        }
    }

    /// The state file `values` and the counts and touches of `spilled`
    /// are those of the in-memory solve `plain`.
    fn assert_same(values: &RawArray, spilled: &SpilledTier, plain: &SolvedTier, what: &str) {
        let mut words = vec![0u16; values.len() as usize];
        values.read(0, &mut words).unwrap();
        assert!(Packed::vec_from_bits(words) == plain.values, "{what}");
        let (a, b) = (&spilled.stats, &plain.stats);
        assert_eq!(
            (a.wins, a.losses, a.draws, a.unused, a.max_win, a.max_loss),
            (b.wins, b.losses, b.draws, b.unused, b.max_win, b.max_loss),
            "{what}"
        );
        assert_eq!(spilled.touches, plain.touches, "{what}");
    }

    /// Every tier of two subsets solved out of core with 64-bit slot
    /// numbers and the smallest pieces there are (regions of 4 slots,
    /// windows of 3 regions, rounds of 3 positions, batches of 5
    /// requests, queues that spill at 2 items) equals the in-memory solve,
    /// counts included.
    #[test]
    fn crumbs_of_windows_rounds_and_queues_give_the_in_memory_table() {
        let scratch = std::env::temp_dir().join(format!("qibase-crumbs-{}", std::process::id()));
        let wide = Tuning {
            wide_slots: true,
            ..Tuning::default()
        };
        let opts = TierOptions::default().tuning(wide);
        for (id, max) in [
            ("cannon-chess-4x4", 3),
            ("two-cannons:board=4x4,soldiers=7", 3),
        ] {
            let any = crate::games::AnyGame::from_id(id).unwrap();
            crate::with_game!(any, |g| {
                let mut done = Done::default();
                for t in g.tiers(Some(max)) {
                    let _ = std::fs::remove_dir_all(&scratch);
                    std::fs::create_dir_all(&scratch).unwrap();
                    let plain = done.in_memory(g, t);
                    let plan = crumbs(g.tier_size(t), 2, 3, 3, 2);
                    let values = state_file(g, t, "crumbs");
                    let start = Start::Fresh(done.raws(g, t));
                    let spilled =
                        solve_spilled(g, t, &values, &scratch, "crumbs", start, &plan, &opts)
                            .unwrap()
                            .unwrap();
                    assert_same(&values, &spilled, &plain, &format!("{id} tier {t}"));
                    done.0.push((t, plain.values, Arc::new(values)));
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
        let scratch = std::env::temp_dir().join(format!("qibase-resume-{}", std::process::id()));
        let any = crate::games::AnyGame::from_id("cannon-chess-4x4").unwrap();
        // On one thread: hundreds of stops of windows of a few slots leave
        // two threads mostly waking each other (most of this test's time
        // was the scheduler's), and the stops fall at the same instants in
        // every run. The crumbs test above solves the same windows on all.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        one.install(|| {
            crate::with_game!(any, |g| {
                let mut done = Done::default();
                let mut resumes = 0;
                for t in g.tiers(Some(3)) {
                    let plain = done.in_memory(g, t);
                    let values = state_file(g, t, "resume");
                    for (every, step) in [(Duration::ZERO, 3), (Duration::MAX, 5)] {
                        let _ = std::fs::remove_dir_all(&scratch);
                        std::fs::create_dir_all(&scratch).unwrap();
                        let plan = Plan {
                            checkpoint_every: every,
                            ..crumbs(g.tier_size(t), 3, 2, 5, 3)
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
                        let opts = TierOptions::default().progress(&levels).stop(&count);
                        let start = Start::Fresh(done.raws(g, t));
                        solve_spilled(g, t, &values, &scratch, "resume", start, &plan, &opts)
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
                        let opts = TierOptions::default().stop(&stop);
                        let mut start = Start::Fresh(done.raws(g, t));
                        let spilled = loop {
                            let got = solve_spilled(
                                g, t, &values, &scratch, "resume", start, &plan, &opts,
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
                                None => Start::Fresh(done.raws(g, t)),
                            };
                        };
                        let what = format!("tier {t} every {every:?} step {step}");
                        assert_same(&values, &spilled, &plain, &what);
                    }
                    done.0.push((t, plain.values, Arc::new(values)));
                }
                assert!(resumes > 100, "only {resumes} resumes");
            })
        });
        let _ = std::fs::remove_dir_all(&scratch);
    }
}
