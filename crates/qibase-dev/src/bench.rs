//! `qibase bench`: measure move generation and a full solve from scratch
//! (into a temporary directory that is removed afterwards): per tier the
//! time of the initial pass, the propagation and the (background) write,
//! and the solver's random memory accesses per second against the
//! machine's random-access limit.

use std::time::Instant;

use clap::Args;

use crate::access::random_atomic_rate;
use qibase::peak_rss_bytes;
use qibase::solver::{SolveOptions, TierReport};
use qibase::with_game;
use qibase::Rules;
use qibase_cli::cli::solve::{print_table, thread_pool};
use qibase_cli::cli::{game_by_id, CliError, CliResult};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Game id.
    pub game: String,
    /// Only the closed subset with at most N pieces a side (cannon games: soldiers).
    #[arg(long)]
    pub max_pieces: Option<u32>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Perft depth for the move-generation figure (0: skip it).
    #[arg(long, default_value_t = 6)]
    pub perft_depth: u32,
    /// Seconds for each random-access measurement (0: skip them).
    #[arg(long, default_value_t = 1.5)]
    pub access_seconds: f64,
}

pub fn run(a: &BenchArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    if !(a.access_seconds >= 0.0 && a.access_seconds <= 600.0) {
        return Err(CliError::input(
            "--access-seconds must be between 0 and 600",
        ));
    }
    let pool = thread_pool(a.threads)?;
    if a.perft_depth > 0 {
        with_game!(any, |g| {
            let t0 = Instant::now();
            let p = g.start();
            let nodes: u64 = (1..=a.perft_depth).map(|d| qibase::perft(g, &p, d)).sum();
            let s = t0.elapsed().as_secs_f64();
            println!(
                "move generation: perft 1..={} from the start: {nodes} nodes in {s:.3} s ({:.1} M nodes/s, 1 thread)",
                a.perft_depth,
                nodes as f64 / s.max(1e-9) / 1e6
            );
        });
    }
    let dir = std::env::temp_dir().join(format!("qibase-bench-{}-{}", a.game, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bars = qibase_cli::cli::progress::SolveBars::new(true);
    let opts = SolveOptions {
        max_pieces: a.max_pieces,
        observer: &bars,
        ..SolveOptions::new(&dir)
    };
    let t0 = Instant::now();
    let result = pool.install(|| any.solve(&opts));
    let wall = t0.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    let reports = result.map_err(|e| CliError::failure(format!("bench: {e}")))?;
    print_table(&a.game, &reports);
    print_phases(&reports);

    let threads = pool.current_num_threads();
    let solved: Vec<&TierReport> = reports.iter().filter(|r| !r.skipped).collect();
    let slots: u64 = solved.iter().map(|r| r.slots).sum();
    let sum = |f: fn(&TierReport) -> f64| solved.iter().map(|r| f(r)).sum::<f64>();
    let init = sum(|r| r.stats.init_seconds);
    let propagate = sum(|r| r.stats.propagate_seconds);
    let write = sum(|r| r.stats.write_seconds);
    let wait = sum(|r| r.write_wait_seconds);
    let touches: u64 = solved.iter().map(|r| r.touches).sum();
    let peak = peak_rss_bytes().map_or("unknown".into(), |b| {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    });
    println!(
        "solve: {slots} slots in {wall:.2} s wall ({:.2} M slots/s), {threads} threads, peak memory {peak}",
        slots as f64 / wall.max(1e-9) / 1e6
    );
    println!(
        "phases: initial pass {init:.2} s, propagation {propagate:.2} s, writing {write:.2} s in the background ({wait:.2} s waited for)"
    );
    let touch_rate = touches as f64 / (init + propagate).max(1e-9);
    println!(
        "random touches: {touches} ({:.2} a slot), {:.1} M/s over the initial pass and propagation",
        touches as f64 / slots.max(1) as f64,
        touch_rate / 1e6
    );

    if a.access_seconds > 0.0 {
        let largest = solved.iter().map(|r| r.slots).max().unwrap_or(0) as usize;
        let rate = |t: usize, pf: bool| random_atomic_rate(largest, t, a.access_seconds, pf);
        let one = rate(1, false);
        let all = rate(threads, false);
        let all_pf = rate(threads, true);
        println!(
            "random-access limit on {largest} 16-bit words: {:.1} M atomic ops/s with 1 thread, {:.1} M/s with {threads} ({:.1} M/s prefetching ahead)",
            one / 1e6,
            all / 1e6,
            all_pf / 1e6
        );
        println!(
            "solver at {:.0} % of the random-access limit ({:.0} % of the prefetching rate)",
            100.0 * touch_rate / all.max(1e-9),
            100.0 * touch_rate / all_pf.max(1e-9)
        );
    }
    Ok(())
}

/// Per tier: the solver's phases and its random memory accesses.
fn print_phases(reports: &[TierReport]) {
    println!(
        "{:>8} {:>10} {:>10} {:>10} {:>10} {:>14} {:>10}",
        "tier", "init s", "propag. s", "write s", "waited s", "touches", "M touch/s"
    );
    for r in reports.iter().filter(|r| !r.skipped) {
        let s = &r.stats;
        let busy = s.init_seconds + s.propagate_seconds;
        println!(
            "{:>8} {:>10.2} {:>10.2} {:>10.2} {:>10.2} {:>14} {:>10.1}",
            r.name,
            s.init_seconds,
            s.propagate_seconds,
            s.write_seconds,
            r.write_wait_seconds,
            r.touches,
            r.touches as f64 / busy.max(1e-9) / 1e6
        );
    }
}
