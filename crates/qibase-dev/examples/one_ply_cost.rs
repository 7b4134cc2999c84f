//! Development measurement (not a test, not the product CLI): what the two
//! size levers of the tablebase issue would cost a lookup, measured on a
//! solved table instead of estimated.
//!
//! * *Remoteness for one side to move only*: the other side's value comes
//!   from a one-ply search, every child's full value looked up.
//! * *Capture-decided don't-cares*: a slot whose best capture into a lower
//!   tier gives its value is not stored; a lookup must first probe its
//!   captures' WDL in the lower tiers.
//!
//! ```text
//! cargo run --release --example one_ply_cost -- GAME DIR [N]
//! ```
//! Positions are drawn uniformly from every used slot; the block cache is
//! 16 MiB, as in `qibase bench-probe`, so almost every lookup is cold.
//! Times are wall times per position, after a warm-up pass that maps the
//! files' pages.
//! The one-ply search must give back each position's stored value (it is
//! checked, so the figure is that of a correct recovery).
use std::path::PathBuf;
use std::time::Instant;

use qibase::games::AnyGame;
use qibase::tablebase::BlockCache;
use qibase::tablebase::Tablebase;
use qibase::with_game;
use qibase::Value;
use qibase::{Notation, Rules, Tiers};
use qibase_dev::bench_probe::sample;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let any = AnyGame::from_id(&args[0]).expect("a game id");
    let dir = PathBuf::from(&args[1]);
    let n: usize = args.get(2).map_or(100_000, |s| s.parse().expect("a count"));
    assert!(BlockCache::configure(16 << 20));
    with_game!(any, |g| {
        let tb = Tablebase::open(g, &dir);
        let tiers = g.tiers(None);
        for &t in &tiers {
            tb.tier_file(t).expect("every tier solved");
        }
        let mut moves = Vec::new();
        let sets: Vec<Vec<_>> = (1..=3).map(|k| sample(g, &tiers, n, k)).collect();
        // Map the files' pages first: a fresh process's first touches are
        // page faults, which a long-running reader does not pay.
        for p in sample(g, &tiers, n, 4) {
            tb.probe(&p).expect("probe");
        }

        let t0 = Instant::now();
        let mut sum = 0u64;
        for p in &sets[0] {
            sum += tb.probe(p).expect("probe").pack().to_bits() as u64;
        }
        let direct = t0.elapsed().as_secs_f64();

        let (mut children, mut decisive) = (0usize, 0usize);
        let t0 = Instant::now();
        for p in &sets[1] {
            let v = if let Some(end) = g.game_end(p) {
                end.value
            } else {
                moves.clear();
                g.moves(p, &mut moves);
                children += moves.len();
                moves
                    .iter()
                    .map(|m| Value::of_move_to(tb.probe(&g.apply(p, m)).expect("probe")))
                    .max()
                    .expect("a position that has not ended has a move")
            };
            decisive += (v != Value::Draw) as usize;
            sum += v.pack().to_bits() as u64;
        }
        let search = t0.elapsed().as_secs_f64();
        // The recovery is right: it gives the stored values.
        for p in sets[1].iter().take(2000) {
            if g.game_end(p).is_none() {
                moves.clear();
                g.moves(p, &mut moves);
                let v = moves
                    .iter()
                    .map(|m| Value::of_move_to(tb.probe(&g.apply(p, m)).unwrap()))
                    .max()
                    .unwrap();
                assert_eq!(v, tb.probe(p).unwrap(), "{}", g.format_pos(p));
            }
        }

        let mut captures = 0usize;
        let t0 = Instant::now();
        for p in &sets[2] {
            let t = g.tier_of(p);
            sum += tb.probe_wdl(p).expect("probe") as u64;
            if g.game_end(p).is_none() {
                moves.clear();
                g.moves(p, &mut moves);
                for m in &moves {
                    let c = g.apply(p, m);
                    if g.tier_of(&c) != t {
                        captures += 1;
                        sum += tb.probe_wdl(&c).expect("probe") as u64;
                    }
                }
            }
        }
        let capture = t0.elapsed().as_secs_f64();
        let per = |s: f64| s * 1e9 / n as f64;
        println!(
            "{}: {n} positions [{sum}]\n\
             direct full-value lookup        {:>9.0} ns\n\
             one-ply recovery (all children) {:>9.0} ns  ({:.1} children each, {:.0} % decisive)\n\
             WDL + captures' WDL             {:>9.0} ns  ({:.2} captures each)",
            g.id(),
            per(direct),
            per(search),
            children as f64 / n as f64,
            decisive as f64 * 100.0 / n as f64,
            per(capture),
            captures as f64 / n as f64
        );
    });
}
