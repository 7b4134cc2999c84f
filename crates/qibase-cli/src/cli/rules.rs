//! Commands about the rules: `games`, `show`, `moves`, `perft`.

use std::time::Instant;

use clap::Args;

use super::{game_by_id, CliError, CliResult};
use qibase::games::GAME_IDS;
use qibase::with_game;
use qibase::{Game, Notation, Rules};

/// Total number of positions of a game (every placement, both sides to move).
pub fn total_positions<G: Game>(g: &G) -> u64 {
    g.tiers(None).iter().map(|&t| g.tier_positions(t)).sum()
}

pub fn games() -> CliResult {
    println!(
        "{:<18} {:>14} {:<30} {:<24} game",
        "id", "positions", "board", "material"
    );
    for id in GAME_IDS {
        let any = game_by_id(id)?;
        with_game!(any, |g| {
            println!(
                "{:<18} {:>14} {:<30} {:<24} {}",
                id,
                total_positions(g),
                g.board_desc(),
                g.material_desc(),
                g.title()
            );
        });
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Position string; default: the start position.
    pub position: Option<String>,
}

pub fn show(a: &ShowArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let p = match &a.position {
            Some(s) => g.parse_pos(s).map_err(CliError::from)?,
            None => g.start(),
        };
        print!("{}", g.diagram(&p, None));
        println!("{}", g.format_pos(&p));
        if let Some(end) = g.game_end(&p) {
            println!("game over: {} ({})", g.describe_end(end.reason), end.value);
        }
        Ok(())
    })
}

#[derive(Args, Debug)]
pub struct MovesArgs {
    pub game: String,
    pub position: String,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn moves(a: &MovesArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let p = g.parse_pos(&a.position).map_err(CliError::from)?;
        let end = g.rule_end(&p);
        let mut ms = Vec::new();
        if end.is_none() {
            g.moves(&p, &mut ms);
        }
        let rows: Vec<_> = ms
            .iter()
            .map(|m| {
                let q = g.apply(&p, m);
                (g.format_move(m), g.format_pos(&q), g.game_end(&q))
            })
            .collect();
        if a.json {
            println!("{}", crate::api::to_line(&crate::api::moves(g, &p)));
        } else {
            if let Some(e) = g.game_end(&p) {
                println!("game over: {} ({})", g.describe_end(e.reason), e.value);
            }
            for (m, q, e) in &rows {
                match e {
                    Some(e) => println!(
                        "{m:<8} {q}   ends: {} ({} for the side to move)",
                        g.describe_end(e.reason),
                        e.value
                    ),
                    None => println!("{m:<8} {q}"),
                }
            }
        }
        Ok(())
    })
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    pub game: String,
    pub depth: u32,
    /// Start from this position instead of the start position.
    #[arg(long)]
    pub from: Option<String>,
}

pub fn perft_cmd(a: &PerftArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let p = match &a.from {
            Some(s) => g.parse_pos(s).map_err(CliError::from)?,
            None => g.start(),
        };
        let t0 = Instant::now();
        let mut nodes = 0u64;
        for d in 1..=a.depth {
            let c = qibase::perft(g, &p, d);
            nodes += c;
            println!("{d} {c}");
        }
        let s = t0.elapsed().as_secs_f64();
        eprintln!(
            "perft: {nodes} leaf nodes over all depths in {s:.3} s ({:.1} M nodes/s)",
            nodes as f64 / s.max(1e-9) / 1e6
        );
        Ok(())
    })
}
