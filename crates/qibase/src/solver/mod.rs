//! The generic retrograde solver: tier by tier, from least material up.
//!
//! It knows no game: everything goes through [`Tiers`] (tiers, numbering,
//! un-moves and the rank-list fast paths) and, as its supertrait,
//! [`Rules`](crate::game::Rules) (the end rules of each position, and the
//! moves behind the default rank lists); it never parses or prints a
//! position. [`solve_tier`]
//! solves one tier in memory; [`solve_game`] runs the tiers of a game in
//! order, loads each tier's dependencies from disk, writes every finished
//! tier atomically and skips tiers that are already solved (resumable).

mod access;
mod check;
mod memory;
mod propagate;
mod tier;

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

pub use access::random_atomic_rate;
pub use check::{check_tier, derive_value, CheckReport, Inconsistency};
pub use memory::peak_rss_bytes;
pub use tier::{solve_tier, Lower, Progress, SolvedTier};

use crate::game::{TierKey, Tiers};
use crate::tablebase::error::err_kind;
use crate::tablebase::{self, TbError, TbErrorKind, TierMeta, TierStats};
use crate::value::Packed;

/// How to run a solve.
#[derive(Clone, Debug)]
pub struct SolveOptions {
    /// Where the tablebase files go (`<dir>/<game>/<tier>.qtb`).
    pub dir: PathBuf,
    /// Only the closed subset with at most this many pieces a side.
    pub max_pieces: Option<u32>,
    /// Show progress bars on stderr.
    pub progress: bool,
}

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
}

/// Solve every tier of `g` (or of the subset) in memory, without files.
/// Used by tests and small games; returns each tier's packed values.
pub fn solve_in_memory<G: Tiers>(g: &G, max_pieces: Option<u32>) -> HashMap<TierKey, Vec<Packed>> {
    let mut done: HashMap<TierKey, Vec<Packed>> = HashMap::new();
    for t in g.tiers(max_pieces) {
        let mut lower = Lower::new();
        for d in g.tier_deps(t) {
            lower.add(d, &done[&d]);
        }
        let solved = solve_tier(g, t, &lower, &|_| {});
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
        let handle = std::thread::spawn(move || {
            let t0 = Instant::now();
            pool.install(|| tablebase::write_tier(&path, &meta, &values))?;
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

/// Solve `g` tier by tier into `opts.dir`, skipping finished tiers.
pub fn solve_game<G: Tiers>(g: &G, opts: &SolveOptions) -> Result<Vec<TierReport>, TbError> {
    let mut reports = Vec::new();
    let mut pending = None;
    let result = solve_tiers(g, opts, &mut reports, &mut pending);
    // Even after an error, let the last write finish (or fail) cleanly.
    let last = pending.map_or(Ok(()), |p| p.finish(&mut reports));
    result.and(last).map(|_| reports)
}

fn solve_tiers<G: Tiers>(
    g: &G,
    opts: &SolveOptions,
    reports: &mut Vec<TierReport>,
    pending: &mut Option<PendingWrite>,
) -> Result<(), TbError> {
    let tiers = g.tiers(opts.max_pieces);
    let mut loaded: HashMap<TierKey, Arc<Vec<Packed>>> = HashMap::new();
    // The writer compresses with as many threads as the solver uses; the OS
    // shares the cores between the two.
    let writer_pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("qibase-writer-{i}"))
            .build()
            .map_err(|e| {
                err_kind(
                    TbErrorKind::Io,
                    &opts.dir,
                    format!("cannot start writer threads: {e}"),
                )
            })?,
    );
    for (pos, &t) in tiers.iter().enumerate() {
        let name = g.tier_name(t);
        let path = tablebase::tier_path(&opts.dir, g.id(), &name);
        let positions = g.tier_size(t);
        let real = g.tier_positions(t);
        if path.exists() {
            match tablebase::read_tier_meta(&path, g.id(), g.rules_hash(), t) {
                Ok(meta) => {
                    reports.push(TierReport {
                        tier: t,
                        name,
                        slots: positions,
                        positions: real,
                        stats: meta.stats,
                        touches: 0,
                        write_wait_seconds: 0.0,
                        skipped: true,
                    });
                    continue;
                }
                Err(e) => eprintln!("re-solving tier {name}: {e}"),
            }
        }
        // Keep only what this and later tiers still need.
        let still_needed: Vec<TierKey> =
            tiers[pos..].iter().flat_map(|&u| g.tier_deps(u)).collect();
        loaded.retain(|k, _| still_needed.contains(k));
        for d in g.tier_deps(t) {
            if let Entry::Vacant(slot) = loaded.entry(d) {
                let dpath = tablebase::tier_path(&opts.dir, g.id(), &g.tier_name(d));
                let values = tablebase::read_tier_values(&dpath, g.id(), g.rules_hash(), d)?;
                slot.insert(Arc::new(values));
            }
        }
        let mut lower = Lower::new();
        for d in g.tier_deps(t) {
            lower.add(d, &loaded[&d]);
        }

        let bar = if opts.progress {
            let b = ProgressBar::new(positions);
            b.set_style(
                ProgressStyle::with_template(
                    "{prefix:>6} [{elapsed_precise}] {bar:30} {human_pos}/{human_len} slots {rate} eta {eta} {msg}",
                )
                .expect("valid progress template")
                .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.2} M/s", s.per_sec() / 1e6);
                }),
            );
            b.set_prefix(name.clone());
            b.set_message("initial pass");
            b
        } else {
            ProgressBar::hidden()
        };
        let t0 = Instant::now();
        let solved = solve_tier(g, t, &lower, &|e| match e {
            Progress::Initial(k) => bar.inc(k),
            Progress::Level(l, done) => {
                bar.set_message(format!("level {l}: {done} positions propagated"))
            }
        });
        let mut stats = solved.stats;
        stats.seconds = t0.elapsed().as_secs_f64();
        stats.threads = rayon::current_num_threads();
        stats.peak_rss = peak_rss_bytes().unwrap_or(0);
        bar.finish_and_clear();
        drop(lower);

        let meta = TierMeta {
            game: g.id().to_string(),
            rules_hash: g.rules_hash(),
            tier: t,
            tier_name: name.clone(),
            positions,
            stats: stats.clone(),
            variant: g.variant_spec(),
        };
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
        });
        *pending = Some(PendingWrite::start(
            reports.len() - 1,
            writer_pool.clone(),
            path,
            meta,
            values.clone(),
        ));
        if tiers[pos + 1..]
            .iter()
            .any(|&u| g.tier_deps(u).contains(&t))
        {
            loaded.insert(t, values);
        }
    }
    Ok(())
}
