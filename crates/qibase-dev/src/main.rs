//! `qibase-dev`: the measurement tools (solver, lookup and HTTP benchmarks).
//! They stay out of the `qibase` binary and out of the test suite; see the
//! *Tools* section of docs/performance.md for how to run them.

use clap::{Parser, Subcommand};
use qibase_cli::cli::CliError;
use qibase_dev::{bench, bench_c, bench_http, bench_probe, ceiling, levels, soak};

#[derive(Parser)]
#[command(name = "qibase-dev", about = "qibase's benchmarks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Move generation speed and a solve from scratch in a temporary directory.
    Bench(bench::BenchArgs),
    /// Uniform random lookups per second per thread: cold WDL, cold full value, repeated.
    BenchProbe(bench_probe::BenchProbeArgs),
    /// Lookups through the C library's `qb_probe` against the Rust prober, cold and repeated.
    BenchC(bench_c::BenchCArgs),
    /// Load generator for `qibase serve`: random query requests on loopback,
    /// requests/s and latency percentiles.
    BenchHttp(bench_http::BenchHttpArgs),
    /// The machine's bound on one propagation level of a game's largest
    /// tier: memory kernels and un-moves alone, against the solver.
    Ceiling(ceiling::CeilingArgs),
    /// The difficulty levels against each other: win/draw/loss tables and
    /// an Elo ladder, as Markdown.
    Levels(levels::LevelsArgs),
    /// The server under mixed load on loopback while a tier is replaced
    /// and another damaged: wrong answers, errors, memory and rate.
    Soak(soak::SoakArgs),
}

fn main() {
    if let Err(e) = qibase::check_cpu() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    let cli = Cli::parse();
    let result: Result<(), CliError> = match &cli.command {
        Command::Bench(a) => bench::run(a),
        Command::BenchProbe(a) => bench_probe::bench_probe(a),
        Command::BenchC(a) => bench_c::run(a),
        Command::BenchHttp(a) => bench_http::run(a),
        Command::Ceiling(a) => ceiling::run(a),
        Command::Levels(a) => levels::run(a),
        Command::Soak(a) => soak::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(e.code);
    }
}
