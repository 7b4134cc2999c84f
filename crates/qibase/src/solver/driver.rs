//! The one loop of a solve: the tiers of its plan in order, each skipped
//! when solved on disk, else solved and written, keeping the values the
//! tiers above read until the last one has. A [`Mode`] says how a tier is
//! solved, how its values are held and how its file is written: in memory
//! ([`InMemory`]), sliced across ranks ([`sliced::Sliced`]), or under a
//! memory budget ([`spill::Budgeted`]).

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::in_memory::InMemory;
use super::limits::check_limits;
use super::observer::{tell, SolveObserver};
use super::plan::{SolvePlan, TierPlan};
use super::report::{tier_meta, TierReport};
use super::tier_options::{Progress, TierOptions};
use super::write::{writer_pool, PendingWrite, Write};
use super::{sliced, spill, SolveError, SolveOptions};
use crate::exchange::Exchange;
use crate::game::{Game, TierKey};
use crate::sys::memory::peak_rss_bytes;
use crate::tablebase::{self, TierMeta, TierStore};
use crate::tier_values::TierStats;
use crate::tier_walk::TierWalk;

/// What a solve's mode does with each tier; the driver does the rest.
pub(super) trait Mode {
    /// A finished tier's values as this mode keeps them for the tiers
    /// that read them.
    type Held;
    /// A solved tier's values, until they are written.
    type Out;
    /// Tier `name` was found solved on disk and is skipped.
    fn skipped(&mut self, name: &str) {
        let _ = name;
    }
    /// Ready tier `at.tier`'s solve before it starts: whether it reads
    /// the tiers below (the driver then reads those not held).
    fn ready(&mut self, at: &Step) -> Result<bool, SolveError> {
        let _ = at;
        Ok(true)
    }
    /// The values of finished tier `d`, read from its file.
    fn read(&mut self, d: TierKey) -> Result<Self::Held, SolveError>;
    /// Solve tier `at.tier` from the values in `held` (taking out those
    /// no later tier reads, if it likes); `None` if asked to stop.
    fn solve(
        &mut self,
        at: &Step,
        held: &mut HashMap<TierKey, Self::Held>,
        cb: &Callbacks,
    ) -> Result<Option<Solved<Self::Out>>, SolveError>;
    /// The solved tier, before its report: every rank has its part ready.
    fn staged(&mut self, at: &Step, out: &Self::Out) -> Result<(), SolveError> {
        let _ = (at, out);
        Ok(())
    }
    /// Write the tier's file with header `meta`.
    fn write(
        &mut self,
        at: &Step,
        meta: TierMeta,
        out: &mut Self::Out,
    ) -> Result<Write, SolveError>;
    /// The values kept for the tiers above.
    fn keep(out: Self::Out) -> Self::Held;
}

/// The tier being solved: its index in the walk, its plan and the walk.
pub(super) struct Step<'a> {
    pub k: usize,
    pub tier: TierKey,
    pub plan: &'a TierPlan,
    pub walk: &'a TierWalk,
}

/// What a tier solver tells the driver while it runs.
pub(super) struct Callbacks<'a> {
    pub progress: &'a (dyn Fn(Progress) + Sync),
    pub stop: &'a (dyn Fn() -> bool + Sync),
    pub observer: &'a dyn SolveObserver,
}

impl Callbacks<'_> {
    /// The options of a tier's solve that these callbacks make.
    pub fn tier_options(&self) -> TierOptions<'_> {
        TierOptions::default()
            .progress(self.progress)
            .stop(self.stop)
    }
}

/// A tier a mode solved.
pub(super) struct Solved<O> {
    pub out: O,
    pub stats: TierStats,
    pub touches: u64,
    /// Windows it was held in out of core (0: in memory).
    pub windows: usize,
    /// Seconds the runs before a resume took on it.
    pub resumed_seconds: f64,
}

/// What every mode's solve shares.
struct Run<'a, G: Game> {
    g: &'a G,
    store: &'a TierStore<'a, G>,
    plan: &'a SolvePlan,
    observer: &'a dyn SolveObserver,
    ex: &'a dyn Exchange,
}

/// Solve the tiers of `run`'s plan in `mode`, adding their reports. Even
/// after an error, the last write is let finish (or fail) cleanly.
fn drive<G: Game, M: Mode>(
    run: &Run<G>,
    mode: &mut M,
    reports: &mut Vec<TierReport>,
) -> Result<(), SolveError> {
    let mut pending = None;
    let result = solve_tiers(run, mode, reports, &mut pending);
    let last = pending.map_or(Ok(()), |p: PendingWrite| p.finish(reports));
    result.and(last.map_err(SolveError::from))
}

fn solve_tiers<G: Game, M: Mode>(
    run: &Run<G>,
    mode: &mut M,
    reports: &mut Vec<TierReport>,
    pending: &mut Option<PendingWrite>,
) -> Result<(), SolveError> {
    let Run {
        g,
        store,
        plan,
        observer,
        ex,
    } = *run;
    let mut pool = None;
    let mut held: HashMap<TierKey, M::Held> = HashMap::new();
    let progress = |e| tell(observer, e);
    let stop = || observer.should_stop();
    let cb = Callbacks {
        progress: &progress,
        stop: &stop,
        observer,
    };
    for (k, p) in plan.tiers().iter().enumerate() {
        let (t, name) = (p.tier, &p.name);
        if let Some(stats) = solved_on_disk(store, t, observer, ex) {
            mode.skipped(name);
            reports.push(TierReport::skipped(g, t, stats));
            continue;
        }
        if ex.max(observer.should_stop().into()) != 0 {
            return Err(SolveError::Stopped { next: name.clone() });
        }
        let at = Step {
            k,
            tier: t,
            plan: p,
            walk: plan.walk(),
        };
        plan.walk().keep_read_from(&mut held, k);
        if mode.ready(&at)? {
            for d in g.tier_deps(t) {
                if let Entry::Vacant(slot) = held.entry(d) {
                    slot.insert(mode.read(d)?);
                }
            }
        }
        observer.tier_started(name, p.slots);
        let t0 = Instant::now();
        let sent_before = ex.bytes_sent();
        let Some(solved) = mode.solve(&at, &mut held, &cb)? else {
            return Err(SolveError::Stopped { next: name.clone() });
        };
        let mut stats = solved.stats;
        // A resumed tier counts the time of the runs before.
        stats.seconds = t0.elapsed().as_secs_f64().max(solved.resumed_seconds);
        stats.threads = rayon::current_num_threads() * ex.ranks();
        stats.peak_rss = peak_rss_bytes().unwrap_or(0);
        let mut out = solved.out;
        mode.staged(&at, &out)?;
        // One write at a time bounds memory.
        if let Some(w) = pending.take() {
            w.finish(reports)?;
        }
        let meta = tier_meta(g, t, &stats);
        reports.push(TierReport {
            tier: t,
            name: name.clone(),
            slots: p.slots,
            positions: p.positions,
            stats,
            touches: solved.touches,
            write_wait_seconds: 0.0,
            skipped: false,
            exchanged_bytes: ex.sum(ex.bytes_sent() - sent_before),
            windows: solved.windows,
        });
        let r = reports.len() - 1;
        observer.tier_solved(&reports[r]);
        match mode.write(&at, meta, &mut out)? {
            Write::Spawn(write) => {
                let pool = match &pool {
                    Some(pool) => Arc::clone(pool),
                    None => pool.insert(writer_pool(store.dir())?).clone(),
                };
                *pending = Some(PendingWrite::spawn(r, pool, write));
            }
            Write::Done(seconds) => {
                reports[r].stats.write_seconds = seconds;
                reports[r].write_wait_seconds = seconds;
            }
            Write::Nothing => {}
        }
        if plan.walk().read_from(t, k + 1) {
            held.insert(t, M::keep(out));
        }
    }
    Ok(())
}

/// Solve `g` tier by tier into `opts.dir`, skipping finished tiers, and
/// tell `opts.observer` how it goes. With several ranks in
/// `opts.exchange`, every rank calls it alike (see
/// [`SolveOptions::exchange`]): each writes its slice of a finished tier
/// as a part file in `<dir>/<game>/.parts`, and rank 0 merges the parts.
///
/// # Errors
///
/// [`SolveError::Limit`] before anything is solved if a tier is over the
/// solver's limits ([`check_limits`]), or when a tier's initial pass
/// finds a position with too many in-tier children;
/// [`SolveError::Tablebase`] for a lower tier that cannot be read
/// (missing, damaged, other rules), or a tier file that cannot be
/// written; [`SolveError::Stopped`] when the observer's
/// [`should_stop`](SolveObserver::should_stop) says so. Tiers finished
/// before the error are on disk, and a later call resumes after them.
/// With several ranks, [`SolveError::RanksDisagree`] (on every rank)
/// when a rank was asked for another solve than rank 0; an error that
/// only one rank meets (a file rank 0 cannot write) leaves the others
/// waiting in the next collective call: the caller ends the whole job
/// (MPI: `MPI_Abort`).
///
/// Bound on [`Game`], not only [`Tiers`](crate::game::Tiers): the tier
/// files go through
/// [`TierStore`], which asks for a whole game (it uses only the
/// [`Tiers`](crate::game::Tiers) part; the bound can be relaxed there).
pub fn solve_game<G: Game>(g: &G, opts: &SolveOptions) -> Result<Vec<TierReport>, SolveError> {
    let (observer, ex) = (opts.observer, opts.exchange);
    if ex.ranks() > 1 {
        agree_on_the_solve(g, opts, ex)?;
    }
    check_limits(g, opts.max_pieces, None)?;
    let plan = SolvePlan::new(g, opts.max_pieces, opts.memory);
    refuse(g, opts, &plan, ex)?;
    // Held to the end of the solve, by rank 0 for the whole job.
    let _lock = lock_game_dir(g, opts, ex)?;
    clear_unfinished_writes(g, opts, ex)?;
    let store = TierStore::new(g, opts.dir);
    let mut reports = Vec::new();
    let Some(&first) = plan.walk().tiers().first() else {
        return Ok(reports);
    };
    let game_dir = store.path(first);
    let game_dir = game_dir.parent().unwrap_or(Path::new("."));
    let run = Run {
        g,
        store: &store,
        plan: &plan,
        observer,
        ex,
    };
    if opts.memory.is_some() {
        drive(
            &run,
            &mut spill::Budgeted::new(&store, game_dir)?,
            &mut reports,
        )?;
    } else if ex.ranks() > 1 {
        let mut mode = sliced::Sliced::new(&store, game_dir, ex)?;
        let result = drive(&run, &mut mode, &mut reports);
        mode.finished(result.is_ok());
        result?;
    } else {
        drive(&run, &mut InMemory::new(&store), &mut reports)?;
    }
    Ok(reports)
}

/// The solves that `plan` cannot run: a budget with several ranks or too
/// small for a tier, and a solve without a budget beside the checkpoint
/// of an interrupted one with a budget.
fn refuse<G: Game>(
    g: &G,
    opts: &SolveOptions,
    plan: &SolvePlan,
    ex: &dyn Exchange,
) -> Result<(), SolveError> {
    let Some(budget) = opts.memory else {
        return match spill::checkpoint_in(g, opts.dir) {
            Some(tier) => Err(SolveError::CheckpointLeft {
                tier,
                dir: spill::scratch_dir(g, opts.dir),
            }),
            None => Ok(()),
        };
    };
    if ex.ranks() > 1 {
        return Err(SolveError::MemoryWithRanks { ranks: ex.ranks() });
    }
    match plan.too_small() {
        Some((p, need, region_slots)) => Err(SolveError::MemoryTooSmall {
            tier: p.name.clone(),
            budget,
            need,
            region_slots,
        }),
        None => Ok(()),
    }
}

/// Rank 0 takes the lock of the game's directory (one writer per
/// directory: [`tablebase::lock`]) for the job, before anything there is
/// removed or written; the other ranks write only where rank 0 tells them.
/// A lock refused is rank 0's error alone (the caller ends the job).
fn lock_game_dir<G: Game>(
    g: &G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
) -> Result<Option<tablebase::lock::DirLock>, SolveError> {
    if ex.rank() != 0 {
        return Ok(None);
    }
    let dir = tablebase::game_dir(opts.dir, g.id());
    Ok(Some(tablebase::lock::DirLock::acquire(&dir)?))
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
            let path = TierStore::new(g, opts.dir).path(t);
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
    let dir = std::path::absolute(opts.dir).unwrap_or_else(|_| opts.dir.to_path_buf());
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
