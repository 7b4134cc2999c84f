//! `qibase bench`: measure move generation and a full solve from scratch
//! (into a temporary directory that is removed afterwards).

use std::time::Instant;

use clap::Args;

use super::solve::{self, SolveArgs};
use super::{game_by_id, CliError, CliResult};
use crate::game::Game;
use crate::with_game;

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
    /// Perft depth for the move-generation figure.
    #[arg(long, default_value_t = 6)]
    pub perft_depth: u32,
}

pub fn run(a: &BenchArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let t0 = Instant::now();
        let p = g.start();
        let nodes: u64 = (1..=a.perft_depth)
            .map(|d| super::rules::perft(g, &p, d))
            .sum();
        let s = t0.elapsed().as_secs_f64();
        println!(
            "move generation: perft 1..={} from the start: {nodes} nodes in {s:.3} s ({:.1} M nodes/s, 1 thread)",
            a.perft_depth,
            nodes as f64 / s.max(1e-9) / 1e6
        );
    });
    let dir = std::env::temp_dir().join(format!("qibase-bench-{}-{}", a.game, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let result = solve::run(&SolveArgs {
        games: vec![a.game.clone()],
        all: false,
        dir: dir.clone(),
        threads: a.threads,
        max_pieces: a.max_pieces,
        quiet: false,
        estimate: false,
    });
    let _ = std::fs::remove_dir_all(&dir);
    result.map_err(|e| CliError {
        message: format!("bench: {}", e.message),
        code: e.code,
    })
}
