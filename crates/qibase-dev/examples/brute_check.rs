//! Check the small tiers of a solved table against the reference solver
//! ([`qibase::reference`], forward value iteration over an explicit list of
//! positions): every stored position of the closed subset with at most
//! MAX_PIECES pieces a side (cannon games: soldiers) must have the same value
//! and remoteness in the table as by brute force.
//!
//! `cargo run --release -p qibase-dev --example brute_check -- GAME DIR MAX_PIECES`
//!
//! The reference solver needs tens of bytes per position: keep the subset
//! to a few tens of millions of slots (`qibase solve GAME --max-pieces N
//! --estimate` lists them). Exits non-zero on a difference, a missing or
//! damaged table, or bad arguments.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use qibase::games::AnyGame;
use qibase::reference::solve_forward;
use qibase::tablebase::TierStore;
use qibase::Game;
use qibase::Value;

fn check<G: Game>(g: &G, dir: &Path, max: u32) -> Result<u64, String> {
    let started = Instant::now();
    let reference = solve_forward(g, Some(max));
    let store = TierStore::new(g, dir);
    let mut differ = 0u64;
    let mut k = 0;
    for t in g.tiers(Some(max)) {
        let stored = store.load(t).map_err(|e| e.to_string())?;
        let (mut positions, mut tier_differ) = (0u64, 0u64);
        while k < reference.slots.len() && reference.slots[k].0 == t {
            let i = reference.slots[k].1 as usize;
            let got = Value::unpack(stored[i]);
            if got != Some(reference.values[k]) {
                if differ + tier_differ < 10 {
                    eprintln!(
                        "{}: table {} brute force {}",
                        g.format_pos(&reference.positions[k]),
                        got.map_or("no value".to_string(), |v| v.to_string()),
                        reference.values[k]
                    );
                }
                tier_differ += 1;
            }
            positions += 1;
            k += 1;
        }
        println!(
            "{:>6}: {positions:>10} positions, {tier_differ} differ",
            g.tier_name(t)
        );
        differ += tier_differ;
    }
    println!(
        "brute-check {} up to {max} a side: {} positions in {} tiers, {differ} differ ({:.1} s)",
        g.id(),
        reference.slots.len(),
        g.tiers(Some(max)).len(),
        started.elapsed().as_secs_f64()
    );
    Ok(differ)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 3 {
        eprintln!("usage: brute_check GAME DIR MAX_PIECES");
        return ExitCode::from(2);
    }
    let Ok(max) = args[2].parse::<u32>() else {
        eprintln!("MAX_PIECES must be a number, not '{}'", args[2]);
        return ExitCode::from(2);
    };
    let game = match AnyGame::from_id(&args[0]) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let dir = Path::new(&args[1]);
    let result = qibase::with_game!(game, |g| check(g, dir, max));
    match result {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
