//! `qibase-dev ceiling`: how fast this machine could do one propagation
//! level of a game's largest tier if it did only the unavoidable work,
//! to see how far the solver is from it.
//!
//! Kernels, each timed `--reps` times (the median is reported), on
//! `--threads` threads: `seq` (one sequential pass over the tier's state
//! words, the bandwidth bound), `random-naive` (random updates in place),
//! `random-solver` (the solver's message combining), `random-best` (the
//! best variant of it found) and `unmoves` (the parents of random used
//! slots, with and without their ranks). The model line adds the cheapest
//! random pattern's time per update to the ranked un-moves' time per
//! parent: the ceiling for one parent update of a real level. See
//! docs/performance.md, *The machine's ceiling*.

mod memory;
mod unmoves;

use memory::{combined, random_naive, seq, state_words, Combining};

use std::time::Instant;

use clap::{Args, ValueEnum};

use qibase::{with_game, TierKey, Tiers};
use qibase_cli::cli::solve::thread_pool;
use qibase_cli::cli::{game_by_id, CliError, CliResult};

#[derive(Args, Debug)]
pub struct CeilingArgs {
    /// Game whose largest tier sets the sizes.
    #[arg(default_value = "three-cannons")]
    pub game: String,
    /// Take the largest tier of the subset with at most N pieces a side
    /// (cannon games: soldiers) instead of the whole game's.
    #[arg(long)]
    pub max_pieces: Option<u32>,
    /// State words of the memory kernels (default: the tier's slots).
    #[arg(long)]
    pub slots: Option<usize>,
    /// Random updates of the random kernels (default: twice the slots).
    #[arg(long)]
    pub updates: Option<u64>,
    /// Random used slots of the tier that `unmoves` un-moves.
    #[arg(long, default_value_t = 1 << 20)]
    pub positions: usize,
    /// Kernels to run, comma-separated (default: all).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub kernels: Vec<Kernel>,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Runs of each kernel; the median is reported.
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Print the model line: the ceiling for one parent update.
    #[arg(long)]
    pub model: bool,
    /// The solver's measured ns per update (wall) on the tier, which the
    /// model line (printed with it) compares with the ceiling.
    #[arg(long)]
    pub solver_ns: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kernel {
    Seq,
    RandomNaive,
    RandomSolver,
    RandomBest,
    Unmoves,
}

/// State words at most: 2 bytes each, so 4 GiB, leaving room for
/// `random-best`'s round of messages (2.5 GiB) within 8 GiB.
const MAX_SLOTS: usize = 2 << 30;

pub fn run(a: &CeilingArgs) -> CliResult {
    if a.reps == 0 || a.positions == 0 {
        return Err(CliError::input("--reps and --positions must be at least 1"));
    }
    let any = game_by_id(&a.game)?;
    let pool = thread_pool(Some(a.threads))?;
    with_game!(any, |g| pool.install(|| measure(g, a)))
}

/// The largest tier (the first of the largest), with at most `max_pieces`.
fn largest_tier<G: Tiers>(g: &G, max_pieces: Option<u32>) -> Option<TierKey> {
    g.tiers(max_pieces)
        .into_iter()
        .rev()
        .max_by_key(|&t| g.tier_size(t))
}

fn measure<G: Tiers>(g: &G, a: &CeilingArgs) -> CliResult {
    let t = largest_tier(g, a.max_pieces)
        .ok_or_else(|| CliError::input(format!("{} has no tiers", a.game)))?;
    let n = a.slots.unwrap_or(g.tier_size(t) as usize);
    if !(1 << 16..=MAX_SLOTS).contains(&n) {
        return Err(CliError::input(format!(
            "{n} slots: the kernels take 2^16 to {MAX_SLOTS}"
        )));
    }
    let updates = a.updates.unwrap_or(2 * n as u64);
    let on = |k: Kernel| a.kernels.is_empty() || a.kernels.contains(&k);
    println!(
        "{} tier {} ({} slots); kernels on {n} slots ({:.2} GiB of state words), {updates} random updates, {} threads, median of {} runs",
        a.game,
        g.tier_name(t),
        g.tier_size(t),
        2.0 * n as f64 / (1u64 << 30) as f64,
        rayon::current_num_threads(),
        a.reps
    );
    println!(
        "{:<18} {:>12} {:>10} {:>12}  runs (s)",
        "kernel", "updates", "ns/update", "M updates/s"
    );
    let mut random_ns: Vec<f64> = Vec::new();
    if [
        Kernel::Seq,
        Kernel::RandomNaive,
        Kernel::RandomSolver,
        Kernel::RandomBest,
    ]
    .into_iter()
    .any(on)
    {
        let mut words = state_words(n);
        if on(Kernel::Seq) {
            timed(a.reps, "seq", || seq(&mut words));
        }
        let seed = 0xCE11;
        if on(Kernel::RandomNaive) {
            let tasks = rayon::current_num_threads();
            random_ns.push(timed(a.reps, "random-naive", || {
                random_naive(&words, updates, tasks, seed)
            }));
        }
        for (k, name, c) in [
            (Kernel::RandomSolver, "random-solver", Combining::SOLVER),
            (Kernel::RandomBest, "random-best", Combining::BEST),
        ] {
            if on(k) {
                random_ns.push(timed(a.reps, name, || combined(&words, updates, c, seed)));
            }
        }
    }
    let mut per_parent = None;
    if on(Kernel::Unmoves) {
        per_parent = Some(measure_unmoves(g, t, a)?);
    }
    if a.model || a.solver_ns.is_some() {
        print_model(&random_ns, per_parent, a.solver_ns);
    }
    Ok(())
}

/// Time `kernel` `reps` times and print its line; the median ns per update.
fn timed(reps: usize, name: &str, mut kernel: impl FnMut() -> u64) -> f64 {
    let mut runs = Vec::with_capacity(reps);
    let mut work = 0;
    for _ in 0..reps {
        let t0 = Instant::now();
        work = kernel();
        runs.push(t0.elapsed().as_secs_f64());
    }
    let s = median(&runs);
    let ns = 1e9 * s / work.max(1) as f64;
    println!(
        "{name:<18} {work:>12} {ns:>10.2} {:>12.1}  {}",
        1e3 / ns,
        list(&runs)
    );
    ns
}

/// The `unmoves` lines; the ranked un-moves' ns per parent.
fn measure_unmoves<G: Tiers>(g: &G, t: TierKey, a: &CeilingArgs) -> Result<f64, CliError> {
    let slots = unmoves::used_sample(g, t, a.positions, 0xCE11);
    if slots.is_empty() {
        return Err(CliError::failure("no used slot found in the tier"));
    }
    let mut ranked_ns = 0.0;
    for (name, ranked) in [("unmoves, ranked", true), ("unmoves, unranked", false)] {
        let mut runs = Vec::with_capacity(a.reps);
        let mut parents = 0;
        for _ in 0..a.reps {
            let t0 = Instant::now();
            parents = if ranked {
                unmoves::ranked(g, t, &slots)
            } else {
                unmoves::unranked(g, t, &slots)
            };
            runs.push(t0.elapsed().as_secs_f64());
        }
        let s = median(&runs);
        let per_parent = 1e9 * s / parents.max(1) as f64;
        println!(
            "{name:<18} {} positions, {parents} parents ({:.2} each): {:.1} ns/position, {per_parent:.2} ns/parent  {}",
            slots.len(),
            parents as f64 / slots.len() as f64,
            1e9 * s / slots.len() as f64,
            list(&runs)
        );
        if ranked {
            ranked_ns = per_parent;
        }
    }
    Ok(ranked_ns)
}

/// The ceiling for one parent update: the cheapest random pattern plus the
/// ranked un-moves, and the solver's share of it if its rate is given.
fn print_model(random_ns: &[f64], per_parent: Option<f64>, solver_ns: Option<f64>) {
    let (Some(best), Some(unmove)) = (random_ns.iter().copied().reduce(f64::min), per_parent)
    else {
        println!("model: needs a random kernel and unmoves");
        return;
    };
    let ceiling = best + unmove;
    print!(
        "model: ceiling {ceiling:.2} ns/update ({best:.2} random + {unmove:.2} unmoves), {:.1} M updates/s",
        1e3 / ceiling
    );
    match solver_ns {
        Some(s) => println!(
            "; solver {s:.2} ns/update: {:.0} % of the ceiling",
            100.0 * ceiling / s
        ),
        None => println!(),
    }
}

fn median(runs: &[f64]) -> f64 {
    let mut v = runs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn list(runs: &[f64]) -> String {
    let s: Vec<String> = runs.iter().map(|r| format!("{r:.3}")).collect();
    s.join(" ")
}
