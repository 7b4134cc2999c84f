//! Compare two solves slot by slot, skipping the unused slots (which hold
//! don't-care values): two solves of one game (identity checks between
//! builds), or the tables of two readings of one game's rules, which must
//! number their positions alike (same board and material).
//!
//! `cargo run --release --example compare_tables -- GAME DIR_A DIR_B [MAX_PIECES] [--b VARIANT_B]`
//!
//! Per tier it prints the used slots, the slots whose rule ends differ
//! between the two readings, the slots whose values differ, how many of
//! those have no rule-end difference (an unexplained difference), and how
//! many have an in-tier predecessor (a position from which play can reach
//! them). With one game every difference is unexplained. Exits non-zero on
//! an unexplained difference, a missing or damaged table, or numberings
//! that differ.

use std::path::Path;
use std::process::ExitCode;

use qibase::games::AnyGame;
use qibase::tablebase::TierStore;
use qibase::Game;
use qibase::Value;
use rayon::prelude::*;

#[derive(Default, Clone, Copy)]
struct Tally {
    used: u64,
    ends_differ: u64,
    values_differ: u64,
    unexplained: u64,
    with_predecessor: u64,
}

impl Tally {
    fn add(self, o: Tally) -> Tally {
        Tally {
            used: self.used + o.used,
            ends_differ: self.ends_differ + o.ends_differ,
            values_differ: self.values_differ + o.values_differ,
            unexplained: self.unexplained + o.unexplained,
            with_predecessor: self.with_predecessor + o.with_predecessor,
        }
    }
}

fn compare<G: Game>(a: &G, da: &Path, b: &G, db: &Path, max: Option<u32>) -> Result<Tally, String> {
    let tiers = a.tiers(max);
    if tiers != b.tiers(max) {
        return Err("the two readings have different tiers".into());
    }
    let mut total = Tally::default();
    for t in tiers {
        let n = a.tier_size(t);
        if n != b.tier_size(t) {
            return Err(format!("tier {}: sizes differ", a.tier_name(t)));
        }
        let read = |g: &G, dir: &Path| TierStore::new(g, dir).load(t).map_err(|e| e.to_string());
        let (va, vb) = (read(a, da)?, read(b, db)?);
        const CHUNK: u64 = 1 << 16;
        let tally = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let mut slots = Vec::new();
                let mut parents = Vec::new();
                a.used_slots(t, c * CHUNK..((c + 1) * CHUNK).min(n), &mut slots);
                let mut s = Tally::default();
                for (i, p) in &slots {
                    // The same slot must hold the same position in both.
                    assert_eq!(b.rank(t, p), *i, "the numberings differ");
                    s.used += 1;
                    let end = |g: &G| g.rule_end(p).map(|e| e.value);
                    let ends_differ = end(a) != end(b);
                    s.ends_differ += ends_differ as u64;
                    let (x, y) = (
                        Value::unpack(va[*i as usize]),
                        Value::unpack(vb[*i as usize]),
                    );
                    if x != y {
                        s.values_differ += 1;
                        s.unexplained += !ends_differ as u64;
                        parents.clear();
                        a.unmoves(p, &mut parents);
                        b.unmoves(p, &mut parents);
                        s.with_predecessor += !parents.is_empty() as u64;
                    }
                }
                s
            })
            .reduce(Tally::default, Tally::add);
        println!(
            "{:>6}: {:>12} used, {:>10} rule ends differ, {:>10} values differ ({} unexplained, {} with an in-tier predecessor)",
            a.tier_name(t),
            tally.used,
            tally.ends_differ,
            tally.values_differ,
            tally.unexplained,
            tally.with_predecessor
        );
        total = total.add(tally);
    }
    Ok(total)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let variant_b = match args.iter().position(|a| a == "--b") {
        Some(k) if k + 1 < args.len() => {
            let v = args.remove(k + 1);
            args.remove(k);
            Some(v)
        }
        Some(_) => {
            eprintln!("--b needs a variant");
            return ExitCode::from(2);
        }
        None => None,
    };
    if args.len() < 3 || args.len() > 4 {
        eprintln!("usage: compare_tables GAME DIR_A DIR_B [MAX_PIECES] [--b VARIANT_B]");
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
    let game = |s: &str| AnyGame::from_id(s).map_err(|e| eprintln!("{e}"));
    let (Ok(a), Ok(b)) = (
        game(&args[0]),
        game(variant_b.as_deref().unwrap_or(&args[0])),
    ) else {
        return ExitCode::from(2);
    };
    let (da, db) = (Path::new(&args[1]), Path::new(&args[2]));
    let result = match (&a, &b) {
        (AnyGame::Cannons(a), AnyGame::Cannons(b)) => compare(a, da, b, db, max),
        (AnyGame::CannonChess(a), AnyGame::CannonChess(b)) => compare(a, da, b, db, max),
        (AnyGame::Weiming(a), AnyGame::Weiming(b)) => compare(a, da, b, db, max),
        _ => Err("the two variants belong to different game families".into()),
    };
    match result {
        Ok(t) => {
            println!(
                "all tiers: {} used slots, {} rule ends differ, {} values differ, {} unexplained, {} with an in-tier predecessor",
                t.used, t.ends_differ, t.values_differ, t.unexplained, t.with_predecessor
            );
            if t.values_differ == 0 {
                println!("identical: every used slot has the same value");
            }
            if t.unexplained == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
