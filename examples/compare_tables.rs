//! Compare two solves of one game value for value, slot by slot, skipping
//! the unused slots (which hold don't-care values).
//!
//! `cargo run --release --example compare_tables -- GAME DIR_A DIR_B [MAX_PIECES]`
//!
//! Prints one line per tier and exits non-zero if any used slot differs,
//! or a tier file is missing or unreadable in either directory.

use std::path::Path;
use std::process::ExitCode;

use qibase::game::Game;
use qibase::games::AnyGame;
use qibase::tablebase::{read_tier_values, tier_path};
use qibase::with_game;
use rayon::prelude::*;

fn compare<G: Game>(g: &G, a: &Path, b: &Path, max: Option<u32>) -> Result<u64, String> {
    let mut differing = 0u64;
    for t in g.tiers(max) {
        let name = g.tier_name(t);
        let read = |dir: &Path| {
            read_tier_values(&tier_path(dir, g.id(), &name), g.id(), g.rules_hash(), t)
                .map_err(|e| e.to_string())
        };
        let (va, vb) = (read(a)?, read(b)?);
        let n = g.tier_size(t);
        if va.len() as u64 != n || vb.len() as u64 != n {
            return Err(format!(
                "tier {name}: lengths {} and {} for {n} slots",
                va.len(),
                vb.len()
            ));
        }
        const CHUNK: u64 = 1 << 16;
        let (used, diff) = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut slots = Vec::new();
                g.used_slots(t, c * CHUNK..((c + 1) * CHUNK).min(n), &mut slots);
                let diff = slots
                    .iter()
                    .filter(|(i, _)| va[*i as usize] != vb[*i as usize])
                    .count() as u64;
                (slots.len() as u64, diff)
            })
            .reduce(|| (0, 0), |x, y| (x.0 + y.0, x.1 + y.1));
        println!("{name}: {n} slots, {used} used, {diff} differ");
        differing += diff;
    }
    Ok(differing)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 || args.len() > 4 {
        eprintln!("usage: compare_tables GAME DIR_A DIR_B [MAX_PIECES]");
        return ExitCode::from(2);
    }
    let max = match args.get(3).map(|s| s.parse::<u32>()) {
        None => None,
        Some(Ok(m)) => Some(m),
        Some(Err(_)) => {
            eprintln!("MAX_PIECES must be a number, not '{}'", args[3]);
            return ExitCode::from(2);
        }
    };
    let any = match AnyGame::from_id(&args[0]) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let (a, b) = (Path::new(&args[1]), Path::new(&args[2]));
    match with_game!(any, |g| compare(g, a, b, max)) {
        Ok(0) => {
            println!("identical: every used slot has the same value");
            ExitCode::SUCCESS
        }
        Ok(d) => {
            println!("{d} used slots differ");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
