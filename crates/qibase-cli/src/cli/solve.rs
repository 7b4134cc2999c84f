//! `qibase solve`: run the retrograde solver and write tablebases.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::{estimate, CliError, CliResult};
use qibase::games::VariantSizes;
use qibase::games::GAME_IDS;
use qibase::peak_rss_bytes;
use qibase::solver::{SolveError, SolveOptions, TierReport};

#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Game ids or variants to solve (`GAME:key=value,…`; see `qibase games` and `qibase --help`).
    pub games: Vec<String>,
    /// Solve every game.
    #[arg(long)]
    pub all: bool,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Only the closed subset with at most N pieces a side (cannon games: at most N soldiers).
    #[arg(long)]
    pub max_pieces: Option<u32>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
    /// Print positions, slots, the largest tier and the memory needed, and
    /// solve nothing.
    #[arg(long)]
    pub estimate: bool,
    /// With --estimate: the memory and exchange of each of N ranks of an
    /// MPI job (docs/cluster.md).
    #[arg(long, requires = "estimate", value_parser = clap::value_parser!(u64).range(1..))]
    pub ranks: Option<u64>,
    /// Hold at most about SIZE of memory (e.g. 512MiB, 4GiB): tiers that do
    /// not fit are solved out of core, through scratch files in the
    /// tablebase directory, to the same tables (docs/out-of-core.md).
    /// With --estimate: how each tier would be solved under that budget.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, conflicts_with = "ranks")]
    pub memory: Option<u64>,
}

/// A size in bytes: a number with an optional unit (B, K/KiB, M/MiB,
/// G/GiB, T/TiB; powers of 1024).
pub(super) fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" | "kb" => 10,
        "m" | "mib" | "mb" => 20,
        "g" | "gib" | "gb" => 30,
        "t" | "tib" | "tb" => 40,
        _ => {
            return Err(format!(
                "unknown unit in {s:?}: use B, KiB, MiB, GiB or TiB"
            ))
        }
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (e.g. 512MiB)"))?;
    let b = x * (1u64 << shift) as f64;
    if !(1.0..1.8e19).contains(&b) {
        return Err(format!("{s:?} is out of range: at least 1 byte"));
    }
    Ok(b as u64)
}

pub fn run(a: &SolveArgs, join: Option<super::ranks::JoinJob>) -> CliResult {
    let ids: Vec<String> = if a.all {
        GAME_IDS.iter().map(|s| s.to_string()).collect()
    } else {
        a.games.clone()
    };
    if ids.is_empty() {
        return Err(CliError::input("name at least one game to solve, or --all"));
    }
    // The estimate answers also for a variant too large to build.
    let sizes = ids
        .iter()
        .map(|id| VariantSizes::of(id).map_err(CliError::from))
        .collect::<Result<Vec<_>, _>>()?;
    let estimates: Vec<_> = sizes
        .iter()
        .map(|v| estimate::check(v, a.max_pieces, a.memory))
        .collect();
    if a.estimate {
        for (v, e) in sizes.iter().zip(&estimates) {
            estimate::print(v, e, a.ranks);
            estimate::print_budget(e);
        }
        return Ok(());
    }
    // Refuse what cannot be solved here before anything is solved (with
    // a memory budget, the budget decides what fits).
    for (id, e) in ids.iter().zip(&estimates) {
        e.fits_here(id)?;
    }
    // Built once, by the estimate; `fits_here` has refused
    // the variants that cannot be built.
    let games: Vec<_> = sizes
        .into_iter()
        .map(|v| v.into_game().expect("refused above"))
        .collect();
    let pool = thread_pool(a.threads)?;
    // Alone, or one rank of an MPI job: then rank 0 alone shows progress,
    // prints the tables and writes the files.
    let ranks = super::ranks::Ranks::start(join)?;
    let ex = ranks.exchange();
    let lead = ex.rank() == 0;
    let bars = super::progress::SolveBars::new(!a.quiet && lead);
    let opts = SolveOptions {
        max_pieces: a.max_pieces,
        memory: a.memory,
        observer: &bars,
        exchange: ex,
        ..SolveOptions::new(&a.dir)
    };
    let t0 = Instant::now();
    let (mut solved, mut slots, mut exchanged) = (0u64, 0u64, 0u64);
    for (id, any) in ids.iter().zip(&games) {
        let reports = pool.install(|| any.solve(&opts)).map_err(|e| {
            // Decided by all ranks together: every rank has it.
            let collective = matches!(
                e,
                SolveError::Limit(_)
                    | SolveError::Stopped { .. }
                    | SolveError::RanksDisagree { .. }
                    | SolveError::MemoryTooSmall { .. }
                    | SolveError::MemoryWithRanks { .. }
            );
            ranks.fail(e.into(), collective)
        })?;
        if lead {
            print_table(id, &reports);
        }
        for r in reports.iter().filter(|r| !r.skipped) {
            solved += r.positions;
            slots += r.slots;
            exchanged += r.exchanged_bytes;
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let peak = peak_rss_bytes().map_or("unknown".into(), |b| {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    });
    let workers = if ex.ranks() > 1 {
        format!(
            "{} ranks of {} threads, {:.1} MiB exchanged, peak memory of rank 0",
            ex.ranks(),
            pool.current_num_threads(),
            exchanged as f64 / (1u64 << 20) as f64
        )
    } else {
        format!("{} threads, peak memory", pool.current_num_threads())
    };
    if lead {
        println!(
            "solved {solved} positions ({slots} index slots) in {secs:.2} s ({:.2} M positions/s, {:.2} M slots/s), {workers} {peak}",
            solved as f64 / secs.max(1e-9) / 1e6,
            slots as f64 / secs.max(1e-9) / 1e6,
        );
    }
    Ok(())
}

/// The solver's worker threads (`None`: one per core).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, CliError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        if n == 0 {
            return Err(CliError::input("--threads must be at least 1"));
        }
        builder = builder.num_threads(n);
    }
    builder
        .build()
        .map_err(|e| CliError::failure(format!("cannot start threads: {e}")))
}

/// Per tier: index slots and, among the slots holding a position, how many
/// are wins, losses and draws for the side to move; for a solve by several
/// MPI ranks, also the bytes they sent each other.
pub fn print_table(id: &str, reports: &[TierReport]) {
    let shared = reports.iter().any(|r| r.exchanged_bytes > 0);
    let spilled = reports.iter().any(|r| r.windows > 0);
    println!("{id}");
    print!(
        "{:>8} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8} {:>9} {:>10}",
        "tier", "slots", "wins", "losses", "draws", "max win", "max loss", "seconds", "M slots/s"
    );
    print!("{}", if shared { "   MiB sent" } else { "" });
    println!("{}", if spilled { "   windows" } else { "" });
    for r in reports {
        let s = &r.stats;
        let rate = if r.skipped {
            "(done)".to_string()
        } else {
            format!("{:.2}", r.slots as f64 / s.seconds.max(1e-9) / 1e6)
        };
        print!(
            "{:>8} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8} {:>9.2} {:>10}",
            r.name, r.slots, s.wins, s.losses, s.draws, s.max_win, s.max_loss, s.seconds, rate
        );
        if shared {
            print!(" {:>10.1}", r.exchanged_bytes as f64 / (1u64 << 20) as f64);
        }
        if spilled {
            // 0: the tier fitted the budget and was solved in memory.
            print!(" {:>9}", r.windows);
        }
        println!();
    }
}
