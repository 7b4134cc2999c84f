//! The generic retrograde solver: tier by tier, from least material up.
//!
//! It knows no game: everything goes through [`Tiers`] (tiers, numbering,
//! un-moves and the rank-list fast paths) and, as its supertrait,
//! [`Rules`](crate::game::Rules) (the end rules of each position, and the
//! moves behind the default rank lists); it never parses or prints a
//! position (only [`solve_game`], which writes files through the
//! tablebase's store, asks for a whole [`Game`]). [`solve_tier`]
//! solves one tier in memory; [`solve_game`] runs the tiers of a game in
//! order, loads each tier's dependencies from disk, writes every finished
//! tier atomically and skips tiers that are already solved (resumable).

mod access;
mod check;
mod exchange;
mod levels;
mod limits;
mod propagate;
mod requests;
mod sliced;
mod slot;
mod spill;
mod state;
mod tier;
mod tier_options;

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

pub use crate::sys::memory::peak_rss_bytes;
pub use access::random_atomic_rate;
pub use check::{check_tier, derive_value, CheckReport, Inconsistency};
pub use exchange::{owned_regions, owned_slots, Exchange, SingleProcess};
pub use limits::{check_limits, LimitError, MAX_IN_TIER_CHILDREN, MAX_REMOTENESS, MAX_TIER_SLOTS};
pub use spill::{check_tier_out_of_core, interrupted_solve, plan_under_budget, BudgetPlan};
pub use tier::{solve_tier, SolvedTier};
pub use tier_options::{Progress, TierOptions};

use crate::game::{Game, TierKey, Tiers};
use crate::tablebase::{self, TbError, TierMeta, TierStore};
use crate::tier_values::TierStats;
pub use crate::tier_values::TierValues;
use crate::value::Packed;

/// How to run a solve.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Where the tablebase files go (`<dir>/<game>/<tier>.qtb`).
    pub dir: PathBuf,
    /// Only the closed subset with at most this many pieces a side.
    pub max_pieces: Option<u32>,
    /// Bytes the solve may hold, about (`None`: as much as it needs).
    /// Tiers that do not fit are solved out of core, with scratch files
    /// in `<dir>/<game>/.spill`; the tables are the same.
    pub memory: Option<u64>,
}

/// What a solve tells its caller while it runs. The library prints
/// nothing: the command line turns these calls into progress bars, a
/// Python binding into callbacks. Every method has an empty default, and
/// `()` observes nothing.
///
/// Calls come from the solving threads (hence `Sync`); the per-slot ones
/// ([`initial`](Self::initial), [`level`](Self::level)) come in batches of
/// thousands of slots, so a cheap atomic counter is fast enough.
pub trait SolveObserver: Sync {
    /// Tier `name` (`slots` index slots) starts solving.
    fn tier_started(&self, name: &str, slots: u64) {
        let _ = (name, slots);
    }
    /// Tier `name`, solved out of core, resumes from the checkpoint an
    /// interrupted solve left, at level `level` (its initial pass and the
    /// levels before are done).
    fn tier_resumed(&self, name: &str, level: u64) {
        let _ = (name, level);
    }
    /// The initial pass decided or counted `slots` more slots.
    fn initial(&self, slots: u64) {
        let _ = slots;
    }
    /// Propagation reached remoteness `level`; `decided` positions so far.
    fn level(&self, level: u16, decided: u64) {
        let _ = (level, decided);
    }
    /// The tier is solved in memory (its file is being written).
    fn tier_solved(&self, report: &TierReport) {
        let _ = report;
    }
    /// The tier's file exists but cannot be used (damaged, other rules),
    /// so the tier is solved again.
    fn resolving(&self, name: &str, why: &TbError) {
        let _ = (name, why);
    }
    /// Asked by [`solve_game`] before each tier it would solve, and while
    /// it solves one, between chunks of the initial pass and between
    /// levels (so it must be cheap, and callable from any thread): `true`
    /// stops the solve with [`SolveError::Stopped`] (a caller's
    /// cancellation, e.g. Ctrl-C in the Python binding). The tier being
    /// solved is given up (a tier solved out of core leaves a checkpoint
    /// when stopped between levels), and the file of the tier before it is
    /// written first, so every finished tier stays on disk and a later
    /// solve resumes at the tier that was stopped. Default: never stop.
    fn should_stop(&self) -> bool {
        false
    }
}

/// Observes nothing.
impl SolveObserver for () {}

/// What happened to one tier.
#[derive(Clone, Debug)]
pub struct TierReport {
    /// The tier.
    pub tier: TierKey,
    /// Its name (`Tiers::tier_name`).
    pub name: String,
    /// Index slots of the tier (what the solver works on).
    pub slots: u64,
    /// Positions the tier stands for (every placement, both sides to move,
    /// without symmetry reduction).
    pub positions: u64,
    /// As stored in the header, except `write_seconds`, which is only known
    /// once the file is written (the header says 0).
    pub stats: TierStats,
    /// Random memory accesses the solver made (parent updates, lower-tier
    /// reads); 0 for a skipped tier.
    pub touches: u64,
    /// Seconds the solver waited for this tier's file to be written before
    /// it could go on (the write runs beside the next tier's solve).
    pub write_wait_seconds: f64,
    /// `true` if the tier was already solved on disk and skipped.
    pub skipped: bool,
    /// Bytes the ranks sent each other while solving the tier, all ranks
    /// together (0 in a solve in one process).
    pub exchanged_bytes: u64,
    /// Windows the tier's state words were held in, one at a time, when
    /// a memory budget made it solve out of core; 0 when it was solved in
    /// memory.
    pub windows: usize,
}

impl TierReport {
    /// The report of tier `t`, found solved on disk with `stats`.
    fn skipped<G: Tiers>(g: &G, t: TierKey, stats: TierStats) -> TierReport {
        TierReport {
            tier: t,
            name: g.tier_name(t),
            slots: g.tier_size(t),
            positions: g.tier_positions(t),
            stats,
            touches: 0,
            write_wait_seconds: 0.0,
            skipped: true,
            exchanged_bytes: 0,
            windows: 0,
        }
    }
}

/// Solve every tier of `g` (or of the subset) in memory, without files.
/// Used by tests and small games; returns each tier's packed values.
///
/// # Panics
///
/// If a tier is over one of the solver's [limits](check_limits) (see
/// [`solve_tier`], which returns the error instead).
pub fn solve_in_memory<G: Tiers>(g: &G, max_pieces: Option<u32>) -> HashMap<TierKey, Vec<Packed>> {
    let mut done: HashMap<TierKey, Vec<Packed>> = HashMap::new();
    for t in g.tiers(max_pieces) {
        let mut lower = TierValues::new();
        for d in g.tier_deps(t) {
            lower.add(d, &done[&d]);
        }
        let solved = solve_tier(g, t, &lower, &TierOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .expect("never asked to stop");
        done.insert(t, solved.values);
    }
    done
}

/// A tier file being written on a background thread while the next tier is
/// solved. The write itself is atomic (temp file, fsync, rename), so an
/// interrupted solve loses at most the tiers not yet on disk, and a later
/// solve redoes exactly those.
struct PendingWrite {
    /// Index of the tier's entry in the reports.
    report: usize,
    handle: std::thread::JoinHandle<Result<f64, TbError>>,
}

impl PendingWrite {
    fn start(
        report: usize,
        pool: Arc<rayon::ThreadPool>,
        path: PathBuf,
        meta: TierMeta,
        values: Arc<Vec<Packed>>,
    ) -> PendingWrite {
        PendingWrite::spawn(report, pool, move || {
            tablebase::write_tier(&path, &meta, &values)
        })
    }

    /// Run `write` on `pool`, on a thread of its own.
    fn spawn(
        report: usize,
        pool: Arc<rayon::ThreadPool>,
        write: impl FnOnce() -> Result<(), TbError> + Send + 'static,
    ) -> PendingWrite {
        let handle = std::thread::spawn(move || {
            let t0 = Instant::now();
            pool.install(write)?;
            Ok(t0.elapsed().as_secs_f64())
        });
        PendingWrite { report, handle }
    }

    /// Wait for the write; record its time in the tier's report.
    fn finish(self, reports: &mut [TierReport]) -> Result<(), TbError> {
        let t0 = Instant::now();
        let seconds = match self.handle.join() {
            Ok(r) => r?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let r = &mut reports[self.report];
        r.stats.write_seconds = seconds;
        r.write_wait_seconds = t0.elapsed().as_secs_f64();
        Ok(())
    }
}

/// Why a solve stopped.
#[derive(Clone, Debug)]
pub enum SolveError {
    /// The game, or a tier of it, is over one of the solver's limits.
    Limit(LimitError),
    /// A tier file could not be read or written.
    Tablebase(TbError),
    /// The observer asked to stop ([`SolveObserver::should_stop`]) before
    /// tier `next` was finished; the tiers finished before it are on
    /// disk.
    Stopped {
        /// The name of the tier that was not started.
        next: String,
    },
    /// The memory budget cannot hold one region of a tier's state words
    /// and the buffers that go with it.
    MemoryTooSmall {
        /// The first tier the budget cannot take.
        tier: String,
        /// The budget, in bytes.
        budget: u64,
        /// The smallest budget that would take that tier.
        need: u64,
        /// Slots of one of the tier's regions.
        region_slots: u64,
    },
    /// A memory budget was given to a solve shared by MPI ranks, which
    /// cannot spill yet.
    MemoryWithRanks {
        /// The number of ranks.
        ranks: usize,
    },
    /// A solve without a memory budget found the checkpoint of an
    /// out-of-core solve of tier `tier` in `dir`: hours of work that only a
    /// solve with a budget resumes, and that a solve without one would
    /// leave on the disk.
    CheckpointLeft {
        /// The tier the checkpoint is of.
        tier: String,
        /// The scratch directory holding it.
        dir: PathBuf,
    },
    /// The ranks of a solve were not all asked for the same solve: the
    /// variant, the subset or the directory differ from rank 0's.
    RanksDisagree {
        /// What rank 0 solves.
        first: String,
        /// What this rank was asked to solve (equal to `first` on the
        /// ranks that agree with rank 0).
        here: String,
    },
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Limit(e) => e.fmt(f),
            SolveError::Tablebase(e) => e.fmt(f),
            SolveError::Stopped { next } => {
                write!(
                    f,
                    "solve stopped at tier {next}; solving again resumes there"
                )
            }
            SolveError::MemoryTooSmall {
                tier,
                budget,
                need,
                region_slots,
            } => write!(
                f,
                "a memory budget of {} is too small for tier {tier}: it must hold one region of {region_slots} slots and its buffers, at least {}",
                spill::human_bytes(*budget),
                spill::human_bytes(*need)
            ),
            SolveError::MemoryWithRanks { ranks } => write!(
                f,
                "a memory budget cannot be combined with {ranks} MPI ranks yet: run the solve in one process, or without a budget"
            ),
            SolveError::CheckpointLeft { tier, dir } => write!(
                f,
                "{}: an interrupted out-of-core solve left a checkpoint of tier {tier} there; resume it with the same --memory, or remove the directory to solve without a budget",
                dir.display()
            ),
            SolveError::RanksDisagree { first, here } if first == here => write!(
                f,
                "the ranks of this solve disagree: another rank is not solving what rank 0 solves ({first})"
            ),
            SolveError::RanksDisagree { first, here } => write!(
                f,
                "the ranks of this solve disagree: rank 0 solves {first}, this rank {here}"
            ),
        }
    }
}

impl std::error::Error for SolveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SolveError::Limit(e) => Some(e),
            SolveError::Tablebase(e) => Some(e),
            SolveError::Stopped { .. }
            | SolveError::RanksDisagree { .. }
            | SolveError::MemoryTooSmall { .. }
            | SolveError::MemoryWithRanks { .. }
            | SolveError::CheckpointLeft { .. } => None,
        }
    }
}

impl From<LimitError> for SolveError {
    fn from(e: LimitError) -> Self {
        SolveError::Limit(e)
    }
}

impl From<TbError> for SolveError {
    fn from(e: TbError) -> Self {
        SolveError::Tablebase(e)
    }
}

/// Solve `g` tier by tier into `opts.dir`, skipping finished tiers, and
/// tell `observer` how it goes.
///
/// # Errors
///
/// [`SolveError::Limit`] before anything is solved if a tier is over the
/// solver's limits ([`check_limits`]), or when a tier's initial pass
/// finds a position with too many in-tier children;
/// [`SolveError::Tablebase`] for a lower tier that cannot be read
/// (missing, damaged, other rules), or a tier file that cannot be
/// written; [`SolveError::Stopped`] when `observer`'s
/// [`should_stop`](SolveObserver::should_stop) says so. Tiers finished
/// before the error are on disk, and a later call resumes after them.
///
/// Bound on [`Game`], not only [`Tiers`]: the tier files go through
/// [`TierStore`], which asks for a whole game (it uses only the
/// [`Tiers`] part; the bound can be relaxed there).
pub fn solve_game<G: Game>(
    g: &G,
    opts: &SolveOptions,
    observer: &dyn SolveObserver,
) -> Result<Vec<TierReport>, SolveError> {
    solve_game_shared(g, opts, observer, &SingleProcess)
}

/// [`solve_game`] as one of the ranks of a solve that shares each tier's
/// work through `ex` (see [`Exchange`]): every rank calls it with the same
/// game, subset and directory (checked first), solves its part of every
/// tier and keeps only that part, its slice, for the tiers above (which
/// ask the other ranks for the values they hold); each rank writes its
/// slice of a finished tier as a part file in `<dir>/<game>/.parts`, and
/// rank 0 merges the parts into the tier file. The files are those of a
/// solve in one process, apart from the recorded timings.
///
/// # Errors
///
/// As [`solve_game`], and [`SolveError::RanksDisagree`] (on every rank)
/// when a rank was asked for another solve than rank 0. An error that
/// only one rank meets (a file rank 0 cannot write) leaves the others
/// waiting in the next collective call: the caller ends the whole job
/// (MPI: `MPI_Abort`).
pub fn solve_game_shared<G: Game>(
    g: &G,
    opts: &SolveOptions,
    observer: &dyn SolveObserver,
    ex: &dyn Exchange,
) -> Result<Vec<TierReport>, SolveError> {
    if ex.ranks() > 1 {
        agree_on_the_solve(g, opts, ex)?;
    }
    check_limits(g, opts.max_pieces, None)?;
    clear_unfinished_writes(g, opts, ex)?;
    let mut reports = Vec::new();
    if let Some(budget) = opts.memory {
        if ex.ranks() > 1 {
            return Err(SolveError::MemoryWithRanks { ranks: ex.ranks() });
        }
        spill::solve_tiers_spilled(g, opts, budget, observer, &mut reports)?;
        return Ok(reports);
    }
    if let Some(tier) = spill::checkpoint_in(g, opts) {
        return Err(SolveError::CheckpointLeft {
            tier,
            dir: spill::scratch_dir(g, opts),
        });
    }
    if ex.ranks() > 1 {
        sliced::solve_tiers_sliced(g, opts, observer, ex, &mut reports)?;
        return Ok(reports);
    }
    let mut pending = None;
    let result = solve_tiers(g, opts, observer, ex, &mut reports, &mut pending);
    // Even after an error, let the last write finish (or fail) cleanly.
    let last = pending.map_or(Ok(()), |p| p.finish(&mut reports));
    result.and(last.map_err(SolveError::from)).map(|_| reports)
}

/// Rank 0 removes the temporary files of tier writes that a killed solve
/// left in the game's directory (they would stay beside the finished
/// tiers for good), before any rank can write again.
fn clear_unfinished_writes<G: Game>(
    g: &G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
) -> Result<(), SolveError> {
    if ex.rank() == 0 {
        if let Some(&t) = g.tiers(opts.max_pieces).first() {
            let path = TierStore::new(g, &opts.dir).path(t);
            if let Some(dir) = path.parent() {
                tablebase::remove_unfinished_writes(dir)?;
            }
        }
    }
    if ex.ranks() > 1 {
        ex.max(0);
    }
    Ok(())
}

/// Every rank compares what it was asked to solve with rank 0's request.
fn agree_on_the_solve<G: Game>(
    g: &G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
) -> Result<(), SolveError> {
    let dir = std::path::absolute(&opts.dir).unwrap_or_else(|_| opts.dir.clone());
    let here = format!(
        "{} (rules {:016x}), {}, in {}",
        g.variant_spec(),
        g.rules_hash(),
        opts.max_pieces
            .map_or("every tier".to_string(), |m| format!("at most {m} pieces")),
        dir.display()
    );
    let mut first = here.clone().into_bytes();
    ex.broadcast_bytes(0, &mut first);
    let first = String::from_utf8_lossy(&first).into_owned();
    if ex.max((first != here).into()) != 0 {
        return Err(SolveError::RanksDisagree { first, here });
    }
    Ok(())
}

fn solve_tiers<G: Game>(
    g: &G,
    opts: &SolveOptions,
    observer: &dyn SolveObserver,
    ex: &dyn Exchange,
    reports: &mut Vec<TierReport>,
    pending: &mut Option<PendingWrite>,
) -> Result<(), SolveError> {
    let tiers = g.tiers(opts.max_pieces);
    let mut loaded: HashMap<TierKey, Arc<Vec<Packed>>> = HashMap::new();
    let writer_pool = writer_pool(opts)?;
    let store = TierStore::new(g, &opts.dir);
    for (pos, &t) in tiers.iter().enumerate() {
        let name = g.tier_name(t);
        let path = store.path(t);
        let positions = g.tier_size(t);
        let real = g.tier_positions(t);
        if let Some(stats) = solved_on_disk(&store, t, observer, ex) {
            reports.push(TierReport::skipped(g, t, stats));
            continue;
        }
        if ex.max(observer.should_stop().into()) != 0 {
            return Err(SolveError::Stopped { next: name });
        }
        // Keep only what this and later tiers still need.
        let still_needed = deps_of(g, &tiers[pos..]);
        loaded.retain(|k, _| still_needed.contains(k));
        for d in g.tier_deps(t) {
            if let Entry::Vacant(slot) = loaded.entry(d) {
                slot.insert(Arc::new(store.load(d)?));
            }
        }
        let mut lower = TierValues::new();
        for d in g.tier_deps(t) {
            lower.add(d, &loaded[&d]);
        }

        observer.tier_started(&name, positions);
        let t0 = Instant::now();
        let progress = |e| tell(observer, e);
        let sent_before = ex.bytes_sent();
        let stop = || observer.should_stop();
        let opts = TierOptions::default().progress(&progress).stop(&stop);
        let Some(solved) = solve_tier(g, t, &lower, &opts)? else {
            return Err(SolveError::Stopped { next: name });
        };
        let mut stats = solved.stats;
        stats.seconds = t0.elapsed().as_secs_f64();
        stats.threads = rayon::current_num_threads() * ex.ranks();
        stats.peak_rss = peak_rss_bytes().unwrap_or(0);
        drop(lower);

        let meta = tier_meta(g, t, &stats);
        // The next tier reads this one from memory, not from the file, so
        // the write can run beside it. One write at a time bounds memory.
        let values = Arc::new(solved.values);
        if let Some(p) = pending.take() {
            p.finish(reports)?;
        }
        reports.push(TierReport {
            tier: t,
            name,
            slots: positions,
            positions: real,
            stats,
            touches: solved.touches,
            write_wait_seconds: 0.0,
            skipped: false,
            exchanged_bytes: ex.sum(ex.bytes_sent() - sent_before),
            windows: 0,
        });
        observer.tier_solved(&reports[reports.len() - 1]);
        if ex.rank() == 0 {
            *pending = Some(PendingWrite::start(
                reports.len() - 1,
                writer_pool.clone(),
                path,
                meta,
                values.clone(),
            ));
        }
        if deps_of(g, &tiers[pos + 1..]).contains(&t) {
            loaded.insert(t, values);
        }
    }
    Ok(())
}

/// The tiers that `tiers` read (with repeats): what a solve keeps of the
/// finished tiers before it solves them.
fn deps_of<G: Tiers>(g: &G, tiers: &[TierKey]) -> Vec<TierKey> {
    tiers.iter().flat_map(|&u| g.tier_deps(u)).collect()
}

/// Pass a tier solver's progress event on to `observer`.
fn tell(observer: &dyn SolveObserver, e: Progress) {
    match e {
        Progress::Initial(k) => observer.initial(k),
        Progress::Level(l, done) => observer.level(l, done),
    }
}

/// The pool the tier files are compressed on: as many threads as the
/// solver uses (the OS shares the cores between the two).
fn writer_pool(opts: &SolveOptions) -> Result<Arc<rayon::ThreadPool>, TbError> {
    Ok(Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("qibase-writer-{i}"))
            .build()
            .map_err(|e| TbError::Io {
                path: opts.dir.clone(),
                what: "cannot start writer threads".into(),
                source: Arc::new(std::io::Error::other(e)),
            })?,
    ))
}

/// The counts of tier `t` when its file is solved already and every rank
/// finds it so: it is skipped (the ranks read one shared directory; any
/// rank that cannot read the file makes all solve the tier again,
/// together). Collective.
fn solved_on_disk<G: Game>(
    store: &TierStore<'_, G>,
    t: TierKey,
    observer: &dyn SolveObserver,
    ex: &dyn Exchange,
) -> Option<TierStats> {
    let on_disk = store.path(t).exists().then(|| store.meta(t));
    let everywhere = ex.min(matches!(on_disk, Some(Ok(_))).into()) != 0;
    match on_disk? {
        Ok(meta) if everywhere => Some(meta.stats),
        Ok(_) => None,
        Err(e) => {
            observer.resolving(&store.game().tier_name(t), &e);
            None
        }
    }
}

/// The header of tier `t`'s file.
fn tier_meta<G: Game>(g: &G, t: TierKey, stats: &TierStats) -> TierMeta {
    TierMeta {
        game: g.id().to_string(),
        rules_hash: g.rules_hash(),
        tier: t,
        tier_name: g.tier_name(t),
        positions: g.tier_size(t),
        stats: stats.clone(),
        variant: g.variant_spec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::AnyGame;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Asks to stop once `after` tiers are solved.
    struct StopAfter {
        after: usize,
        solved: AtomicUsize,
    }

    impl SolveObserver for StopAfter {
        fn tier_solved(&self, _: &TierReport) {
            self.solved.fetch_add(1, Ordering::Relaxed);
        }
        fn should_stop(&self) -> bool {
            self.solved.load(Ordering::Relaxed) >= self.after
        }
    }

    /// Every tier file up to `max_pieces` holds the values of a solve in
    /// one go, in memory, on every decided slot.
    fn assert_files_equal_a_solve_in_memory<G: Game>(
        g: &G,
        store: &TierStore<'_, G>,
        max_pieces: u32,
    ) {
        let whole = solve_in_memory(g, Some(max_pieces));
        for t in g.tiers(Some(max_pieces)) {
            let back = store.load(t).unwrap();
            for (i, v) in whole[&t].iter().enumerate() {
                if v.is_decided() {
                    assert_eq!(back[i], *v, "tier {} slot {i}", g.tier_name(t));
                }
            }
        }
    }

    /// Asks to stop at the third level reported by the solver.
    struct StopInLevels {
        levels: AtomicUsize,
        started: std::sync::Mutex<Vec<String>>,
    }

    impl SolveObserver for StopInLevels {
        fn tier_started(&self, name: &str, _: u64) {
            self.started.lock().unwrap().push(name.to_string());
        }
        fn level(&self, _: u16, _: u64) {
            self.levels.fetch_add(1, Ordering::Relaxed);
        }
        fn should_stop(&self) -> bool {
            self.levels.load(Ordering::Relaxed) >= 3
        }
    }

    /// Asks to stop at the `at`-th level of tier `tier`, and counts the
    /// resumes it is told of.
    struct StopInTierLevels {
        tier: String,
        at: usize,
        current: std::sync::Mutex<String>,
        levels: AtomicUsize,
        resumed: std::sync::Mutex<Vec<(String, u64)>>,
        /// The scratch directory, and the raw files seen in it during
        /// the levels of `tier`.
        spill: std::path::PathBuf,
        raws_in_levels: std::sync::Mutex<std::collections::BTreeSet<String>>,
    }

    impl SolveObserver for StopInTierLevels {
        fn tier_started(&self, name: &str, _: u64) {
            *self.current.lock().unwrap() = name.to_string();
        }
        fn tier_resumed(&self, name: &str, level: u64) {
            self.resumed.lock().unwrap().push((name.to_string(), level));
        }
        fn level(&self, _: u16, _: u64) {
            if *self.current.lock().unwrap() == self.tier {
                self.levels.fetch_add(1, Ordering::Relaxed);
                let mut seen = self.raws_in_levels.lock().unwrap();
                for e in std::fs::read_dir(&self.spill).unwrap() {
                    let name = e.unwrap().file_name().to_string_lossy().into_owned();
                    if name.ends_with(".raw") {
                        seen.insert(name);
                    }
                }
            }
        }
        fn should_stop(&self) -> bool {
            self.levels.load(Ordering::Relaxed) >= self.at
        }
    }

    /// An out-of-core solve stopped between two levels of a tier leaves a
    /// checkpoint there; a solve without a budget refuses to start beside
    /// it (naming it), and the same solve with the budget resumes the tier
    /// at that level and writes the tables of a solve in one go. The last
    /// tier's levels, fresh or resumed, have no lower tier's raw file
    /// beside them: only the initial pass reads those.
    #[test]
    fn an_out_of_core_solve_stopped_in_a_tier_resumes_at_its_level() {
        let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess").unwrap() else {
            unreachable!()
        };
        let dir = std::env::temp_dir().join(format!("qibase-ckpt-solve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let tiers = g.tiers(Some(3));
        let last = g.tier_name(*tiers.last().unwrap());
        let opts = SolveOptions {
            dir: dir.clone(),
            max_pieces: Some(3),
            memory: Some(64 << 10),
        };
        let stop = |at: usize| StopInTierLevels {
            tier: last.clone(),
            at,
            current: Default::default(),
            levels: AtomicUsize::new(0),
            resumed: Default::default(),
            spill: spill::scratch_dir(&g, &opts),
            raws_in_levels: Default::default(),
        };
        let only_its_own = std::collections::BTreeSet::from([format!("{last}.raw")]);
        let first = stop(4);
        match solve_game(&g, &opts, &first) {
            Err(SolveError::Stopped { next }) => assert_eq!(next, last),
            other => panic!("expected a stop in tier {last}: {:?}", other.map(|_| ())),
        }
        assert_eq!(interrupted_solve(&g, &dir), Some((last.clone(), 4)));
        assert_eq!(*first.raws_in_levels.lock().unwrap(), only_its_own);
        let no_budget = SolveOptions {
            memory: None,
            ..opts.clone()
        };
        let e = solve_game(&g, &no_budget, &()).unwrap_err();
        assert!(
            matches!(&e, SolveError::CheckpointLeft { tier, .. } if *tier == last),
            "{e}"
        );
        assert!(
            e.to_string().contains("resume it with the same --memory"),
            "{e}"
        );
        let second = stop(usize::MAX);
        solve_game(&g, &opts, &second).unwrap();
        assert_eq!(*second.resumed.lock().unwrap(), vec![(last.clone(), 4)]);
        assert_eq!(*second.raws_in_levels.lock().unwrap(), only_its_own);
        assert_files_equal_a_solve_in_memory(&g, &TierStore::new(&g, &dir), 3);
        assert!(interrupted_solve(&g, &dir).is_none(), "checkpoint left");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_solve_stopped_inside_a_tier_gives_it_up_and_resumes_there() {
        let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess").unwrap() else {
            unreachable!()
        };
        let dir = std::env::temp_dir().join(format!("qibase-stop-level-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = SolveOptions {
            dir: dir.clone(),
            max_pieces: Some(3),
            memory: None,
        };
        let tiers = g.tiers(Some(3));
        let stop = StopInLevels {
            levels: AtomicUsize::new(0),
            started: Default::default(),
        };
        let next = match solve_game(&g, &opts, &stop) {
            Err(SolveError::Stopped { next }) => next,
            Err(e) => panic!("expected Stopped, got {e}"),
            Ok(_) => panic!("expected Stopped, the solve finished"),
        };
        // Stopped inside the tier of the third level (the last one
        // started): that tier and every later one have no file, every
        // earlier one has.
        assert_eq!(stop.started.lock().unwrap().last(), Some(&next));
        let at = tiers.iter().position(|&t| g.tier_name(t) == next).unwrap();
        assert!(at < tiers.len() - 1, "stopped in the last tier");
        let store = TierStore::new(&g, &dir);
        for (k, &t) in tiers.iter().enumerate() {
            assert_eq!(store.has_file(t), k < at, "tier {}", g.tier_name(t));
        }
        let reports = solve_game(&g, &opts, &()).unwrap();
        assert_eq!(reports.iter().filter(|r| r.skipped).count(), at);
        assert_files_equal_a_solve_in_memory(&g, &store, 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A solve under a memory budget a few times smaller than its largest
    /// tier solves that tier out of core, in many windows, its queues and
    /// updates through spill files, and writes the same values as a solve
    /// in memory, on every slot; a budget that cannot hold one region is a
    /// typed error before anything is solved.
    #[test]
    fn a_solve_under_a_tiny_budget_gives_the_tables_of_one_in_memory() {
        for (id, max, budget) in [
            ("two-cannons:board=4x4,soldiers=7", Some(6), 192u64 << 10),
            ("cannon-chess-4x4", Some(3), 32 << 10),
            ("weiming", None, 16 << 10),
        ] {
            let any = AnyGame::from_id(id).unwrap();
            crate::with_game!(any, |g| {
                let dir = std::env::temp_dir().join(format!(
                    "qibase-spill-{}-{}",
                    id.replace([':', '=', ','], "-"),
                    std::process::id()
                ));
                let _ = std::fs::remove_dir_all(&dir);
                let opts = SolveOptions {
                    dir: dir.clone(),
                    max_pieces: max,
                    memory: Some(budget),
                };
                let reports = solve_game(g, &opts, &()).unwrap();
                let most = reports.iter().map(|r| r.windows).max().unwrap();
                assert!(most >= 8, "{id}: at most {most} windows");
                // Small tiers still solve in memory.
                assert!(
                    reports.len() == 1 || reports.iter().any(|r| r.windows == 0),
                    "{id}"
                );
                // The same tier files as a solve without a budget: the
                // same values on every slot, used or not.
                let plain_dir = dir.join("plain");
                let plain = SolveOptions {
                    dir: plain_dir.clone(),
                    memory: None,
                    ..opts.clone()
                };
                solve_game(g, &plain, &()).unwrap();
                let (store, plain) = (TierStore::new(g, &dir), TierStore::new(g, &plain_dir));
                for (t, r) in g.tiers(max).into_iter().zip(&reports) {
                    let (back, want) = (store.load(t).unwrap(), plain.load(t).unwrap());
                    let bad = back.iter().zip(&want).position(|(a, b)| a != b);
                    assert!(
                        bad.is_none() && back.len() == want.len(),
                        "{id} tier {} ({} windows): slot {bad:?}: {:?} vs {:?}",
                        g.tier_name(t),
                        r.windows,
                        bad.map(|i| back[i]),
                        bad.map(|i| want[i]),
                    );
                }
                assert_files_equal_a_solve_in_memory(g, &store, max.unwrap_or(u32::MAX));
                assert!(!dir.join(g.id()).join(".spill").exists(), "scratch left");
                // Resumed under the budget: every tier skipped.
                let again = solve_game(g, &opts, &()).unwrap();
                assert!(again.iter().all(|r| r.skipped));
                let _ = std::fs::remove_dir_all(&dir);
            });
        }
        let g = crate::games::weiming::Weiming::new();
        let opts = SolveOptions {
            dir: std::env::temp_dir().join(format!("qibase-spill-none-{}", std::process::id())),
            max_pieces: None,
            memory: Some(1000),
        };
        match solve_game(&g, &opts, &()) {
            Err(e @ SolveError::MemoryTooSmall { .. }) => {
                assert!(e.to_string().contains("too small for tier"), "{e}");
            }
            other => panic!("expected MemoryTooSmall, got {:?}", other.map(|r| r.len())),
        }
        assert!(!opts.dir.exists());
    }

    /// Out-of-core solves resume: finished tiers (made raw again from
    /// their files for the tiers above) are skipped.
    #[test]
    fn a_stopped_solve_under_a_budget_resumes() {
        let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess-4x4").unwrap() else {
            unreachable!()
        };
        let dir = std::env::temp_dir().join(format!("qibase-spill-stop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = SolveOptions {
            dir: dir.clone(),
            max_pieces: Some(3),
            memory: Some(96 << 10),
        };
        // Stopped in the third level of the largest tier (out of core).
        let tiers = g.tiers(Some(3));
        let largest = *tiers.iter().max_by_key(|&&t| g.tier_size(t)).unwrap();
        struct StopInTier {
            name: String,
            current: std::sync::Mutex<String>,
            levels: AtomicUsize,
        }
        impl SolveObserver for StopInTier {
            fn tier_started(&self, name: &str, _: u64) {
                *self.current.lock().unwrap() = name.to_string();
            }
            fn level(&self, _: u16, _: u64) {
                if *self.current.lock().unwrap() == self.name {
                    self.levels.fetch_add(1, Ordering::Relaxed);
                }
            }
            fn should_stop(&self) -> bool {
                self.levels.load(Ordering::Relaxed) >= 3
            }
        }
        let stop = StopInTier {
            name: g.tier_name(largest),
            current: Default::default(),
            levels: AtomicUsize::new(0),
        };
        match solve_game(&g, &opts, &stop) {
            Err(SolveError::Stopped { next }) => assert_eq!(next, g.tier_name(largest)),
            other => panic!("expected Stopped, got {:?}", other.map(|r| r.len())),
        }
        let reports = solve_game(&g, &opts, &()).unwrap();
        assert!(reports.iter().any(|r| r.skipped));
        assert!(reports.iter().any(|r| r.windows > 1 && !r.skipped));
        let store = TierStore::new(&g, &dir);
        assert_files_equal_a_solve_in_memory(&g, &store, 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A solve first removes the temporary files a killed writer left
    /// (of the atomic write and of the batched writer's streams), and
    /// nothing else.
    #[test]
    fn a_solve_removes_what_killed_writers_left() {
        let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess").unwrap() else {
            unreachable!()
        };
        let dir = std::env::temp_dir().join(format!("qibase-leftovers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let game_dir = dir.join(g.id());
        std::fs::create_dir_all(&game_dir).unwrap();
        let leftovers = [
            "1v0.qtb.4242.tmp",
            "2v0.qtb.4242.wdl.part",
            "2v0.qtb.4242.rem.part",
        ];
        for f in leftovers.iter().chain(&["notes.txt"]) {
            std::fs::write(game_dir.join(f), b"x").unwrap();
        }
        let opts = SolveOptions {
            dir: dir.clone(),
            max_pieces: Some(2),
            memory: None,
        };
        solve_game(&g, &opts, &()).unwrap();
        for f in leftovers {
            assert!(!game_dir.join(f).exists(), "{f} left");
        }
        assert!(game_dir.join("notes.txt").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stopped_solve_keeps_its_finished_tiers_and_resumes() {
        let AnyGame::CannonChess(g) = AnyGame::from_id("cannon-chess").unwrap() else {
            unreachable!()
        };
        let dir = std::env::temp_dir().join(format!("qibase-stop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = SolveOptions {
            dir: dir.clone(),
            max_pieces: Some(2),
            memory: None,
        };
        let tiers = g.tiers(Some(2));
        assert!(tiers.len() >= 3, "{} tiers", tiers.len());
        let stop = StopAfter {
            after: 2,
            solved: AtomicUsize::new(0),
        };
        let err = solve_game(&g, &opts, &stop).unwrap_err();
        match &err {
            SolveError::Stopped { next } => assert_eq!(*next, g.tier_name(tiers[2])),
            e => panic!("expected Stopped, got {e}"),
        }
        assert!(err.to_string().contains("resumes"), "{err}");
        let store = TierStore::new(&g, &dir);
        let on_disk: Vec<bool> = tiers.iter().map(|&t| store.has_file(t)).collect();
        assert_eq!(on_disk.iter().filter(|&&b| b).count(), 2, "{on_disk:?}");
        assert!(on_disk[0] && on_disk[1]);
        // The second solve skips the two finished tiers and does the rest.
        let reports = solve_game(&g, &opts, &()).unwrap();
        let skipped: Vec<bool> = reports.iter().map(|r| r.skipped).collect();
        assert_eq!(skipped.iter().filter(|&&b| b).count(), 2, "{skipped:?}");
        assert!(skipped[0] && skipped[1]);
        // The same values as a solve in one go.
        assert_files_equal_a_solve_in_memory(&g, &store, 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
