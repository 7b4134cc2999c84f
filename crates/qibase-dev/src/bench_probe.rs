//! `qibase bench-probe`: lookups per second on the solved tables, for
//! positions drawn uniformly from every used slot of the tiers present.
//!
//! Three figures per thread: *cold* WDL and *cold* full-value lookups
//! (each position probed once, with the shared block cache limited to
//! `--cache-mb`, so the working set is the whole table and almost every
//! lookup decodes), and *repeated* lookups (a small set probed over and
//! over: every lookup hits the cache). Rank computation is included.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rayon::prelude::*;

use qibase::tablebase::BlockCache;
use qibase::tablebase::Tablebase;
use qibase::with_game;
use qibase::Rng;
use qibase::{Game, TierKey, Tiers};
use qibase_cli::cli::{game_by_id, CliError, CliResult};

#[derive(Args, Debug)]
pub struct BenchProbeArgs {
    /// Game id.
    pub game: String,
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Cold lookups per thread (each a fresh random position).
    #[arg(long, default_value_t = 200_000)]
    pub probes: usize,
    /// Threads (default 1: the goals are per thread).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Size of the shared block cache during the run (MiB).
    #[arg(long, default_value_t = 16)]
    pub cache_mb: usize,
    /// Decode the whole table into memory first (`Tablebase::preload`).
    #[arg(long)]
    pub preload: bool,
}

/// CPU time of the calling thread (ns), from the kernel's scheduler
/// statistics: on a loaded machine wall time mostly measures the others.
fn thread_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Wall and CPU seconds of `f` on this thread.
pub fn clocked<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let c0 = thread_cpu_ns();
    let t0 = Instant::now();
    let r = f();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 / 1e9,
        _ => wall,
    };
    (r, wall, cpu)
}

/// `n` positions drawn uniformly from the used slots of `tiers` (also the
/// development examples' sampler).
pub fn sample<G: Game>(g: &G, tiers: &[TierKey], n: usize, seed: u64) -> Vec<G::Pos> {
    let sizes: Vec<u64> = tiers.iter().map(|&t| g.tier_size(t)).collect();
    let total: u64 = sizes.iter().sum();
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut k = rng.next_u64() % total;
        let mut j = 0;
        while k >= sizes[j] {
            k -= sizes[j];
            j += 1;
        }
        let t = tiers[j];
        let p = g.unrank(t, k);
        if g.rank(t, &p) == k {
            out.push(p);
        }
    }
    out
}

pub fn bench_probe(a: &BenchProbeArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    let threads = a.threads.max(1);
    if !BlockCache::configure(a.cache_mb << 20) {
        return Err(CliError::failure("block cache already in use"));
    }
    with_game!(any, |g| {
        let tb = Tablebase::open(g, &a.dir);
        let tiers = qibase_cli::cli::verify::present_tiers(g, &a.dir)?;
        // Open every tier first: file opening is not a lookup.
        for &t in &tiers {
            tb.open_tier(t)?;
        }
        if a.preload {
            let t0 = Instant::now();
            let bytes = tb.preload(u64::MAX)?;
            println!(
                "preloaded {:.1} MiB in {:.2} s",
                bytes as f64 / (1 << 20) as f64,
                t0.elapsed().as_secs_f64()
            );
        }
        let slots: u64 = tiers.iter().map(|&t| g.tier_size(t)).sum();
        println!(
            "{} tier(s), {slots} slots; block cache {} MiB; {threads} thread(s)",
            tiers.len(),
            BlockCache::global().capacity_bytes() >> 20
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| CliError::failure(e.to_string()))?;
        let sets: Vec<(Vec<_>, Vec<_>)> = (0..threads)
            .into_par_iter()
            .map(|k| {
                (
                    sample(g, &tiers, a.probes, 2 * k as u64 + 1),
                    sample(g, &tiers, a.probes, 2 * k as u64 + 2),
                )
            })
            .collect();
        // Each closure returns (checksum, wall seconds, CPU seconds) of its thread.
        let timed = |f: &(dyn Fn(usize) -> Result<(u64, f64, f64), CliError> + Sync)| {
            pool.install(|| {
                (0..threads)
                    .into_par_iter()
                    .map(f)
                    .collect::<Result<Vec<_>, CliError>>()
            })
        };
        let report = |what: &str, per: usize, r: &[(u64, f64, f64)]| {
            let wall = r.iter().map(|x| x.1).fold(0.0, f64::max);
            let cpu = r.iter().map(|x| x.2).fold(0.0, f64::max);
            let sum: u64 = r.iter().map(|x| x.0).sum();
            println!(
                "{what:<20} {:>7.3} M lookups/s per thread of CPU time ({:>7.1} ns each); wall {:>7.3} M/s ({} x {per} in {wall:.3} s) [{sum}]",
                per as f64 / cpu / 1e6,
                cpu * 1e9 / per as f64,
                per as f64 / wall / 1e6,
                r.len()
            );
        };
        let wdl = timed(&|k| {
            let (s, wall, cpu) = clocked(|| -> Result<u64, CliError> {
                let mut s = 0u64;
                for p in &sets[k].0 {
                    s += tb.probe_wdl(p)? as u64;
                }
                Ok(s)
            });
            Ok((s?, wall, cpu))
        })?;
        report("cold WDL", a.probes, &wdl);
        let full = timed(&|k| {
            let (s, wall, cpu) = clocked(|| -> Result<u64, CliError> {
                let mut s = 0u64;
                for p in &sets[k].1 {
                    s += tb.probe(p)?.pack().to_bits() as u64;
                }
                Ok(s)
            });
            Ok((s?, wall, cpu))
        })?;
        report("cold full value", a.probes, &full);
        // Compact tables: the half that keeps its remoteness and the half
        // settled by a one-ply search, apart, on fresh positions (the
        // cold full value's would find its blocks in the cache).
        let mut halves = Vec::new();
        for k in 0..threads {
            let mut h = [Vec::new(), Vec::new()];
            for p in &sample(g, &tiers, a.probes, 2 * (threads + k) as u64 + 1) {
                h[tb.stores_full_value(p)? as usize].push(*p);
            }
            halves.push(h);
        }
        if halves.iter().any(|h| !h[0].is_empty()) {
            for (kept, what) in [(1, "cold full, stored"), (0, "cold full, searched")] {
                let n = halves.iter().map(|h| h[kept].len()).min().unwrap_or(0);
                let r = timed(&|k| {
                    let (s, wall, cpu) = clocked(|| -> Result<u64, CliError> {
                        let mut s = 0u64;
                        for p in &halves[k][kept][..n] {
                            s += tb.probe(p)?.pack().to_bits() as u64;
                        }
                        Ok(s)
                    });
                    Ok((s?, wall, cpu))
                })?;
                report(what, n, &r);
            }
        }
        let hot = 1024.min(a.probes);
        let reps = 2_000_000 / hot.max(1);
        let rep = timed(&|k| {
            let set = &sets[k].1[..hot];
            for p in set {
                for _ in 0..3 {
                    tb.probe(p)?;
                }
            }
            let (s, wall, cpu) = clocked(|| -> Result<u64, CliError> {
                let mut s = 0u64;
                for _ in 0..reps {
                    for p in set {
                        s += tb.probe(p)?.pack().to_bits() as u64;
                    }
                }
                Ok(s)
            });
            Ok((s?, wall, cpu))
        })?;
        report("repeated full value", hot * reps, &rep);
        Ok(())
    })
}
