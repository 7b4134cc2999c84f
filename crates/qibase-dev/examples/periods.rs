//! Development measurement (not a test, not the product CLI): how much a
//! slot's remoteness repeats the remoteness `P` slots before it, for a
//! few distances `P`. Whole-file compressors find long-range repetition
//! in some tables (two-cannons: zstd -19 3.24, xz -9 2.67 bits per used
//! slot, against format 5's 5.07), which a coder of one block at a time
//! cannot see; this shows at which distances it lies.
//!
//! `cargo run --release --example periods -- GAME DIR [TIER_NAME]`
//!
//! Per distance: over the used decisive slots whose slot `P` before is
//! used and decisive of the same class, the share with the same
//! remoteness, and the order-0 entropy (bits) of the difference.
use std::collections::HashMap;
use std::path::PathBuf;

use qibase::games::AnyGame;
use qibase::tablebase::TierStore;
use qibase::with_game;
use qibase::Tiers;

const PERIODS: [usize; 14] = [1, 2, 3, 4, 8, 16, 32, 64, 78, 128, 156, 256, 312, 1024];

fn entropy(h: &HashMap<i32, u64>) -> f64 {
    let n: u64 = h.values().sum();
    h.values()
        .map(|&c| {
            let p = c as f64 / n as f64;
            -p * p.log2()
        })
        .sum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let any = AnyGame::from_id(&args[0]).expect("a game id");
    let dir = PathBuf::from(&args[1]);
    with_game!(any, |g| {
        let store = TierStore::new(g, &dir);
        for t in g.tiers(None) {
            let name = g.tier_name(t);
            if args.get(2).is_some_and(|want| *want != name) {
                continue;
            }
            // Raw words of the packing (qibase::Packed: draw 1,
            // loss 2 + 2r, win 3 + 2r): the measurement reads their bits.
            let vals: Vec<u16> = store
                .load(t)
                .expect("a tier file that decodes")
                .iter()
                .map(|p| p.to_bits())
                .collect();
            if vals.len() < 1 << 20 {
                continue;
            }
            let mut used = vec![false; vals.len()];
            let mut buf = Vec::new();
            g.used_slots(t, 0..vals.len() as u64, &mut buf);
            for &(i, _) in &buf {
                used[i as usize] = true;
            }
            let decisive = |i: usize| used[i] && vals[i] >= 2;
            let mut own: HashMap<i32, u64> = HashMap::new();
            for i in (0..vals.len()).filter(|&i| decisive(i)) {
                *own.entry(vals[i] as i32).or_default() += 1;
            }
            println!(
                "{name}: {} slots; remoteness entropy given the class {:.2} bits",
                vals.len(),
                entropy(&own)
            );
            for p in PERIODS {
                let (mut same, mut pairs) = (0u64, 0u64);
                let mut diff: HashMap<i32, u64> = HashMap::new();
                for i in p..vals.len() {
                    let (a, b) = (vals[i], vals[i - p]);
                    if decisive(i) && decisive(i - p) && a & 1 == b & 1 {
                        pairs += 1;
                        same += (a == b) as u64;
                        *diff.entry((a as i32 - b as i32) / 2).or_default() += 1;
                    }
                }
                println!(
                    "  P = {p:>5}: {:5.1} % of {pairs} pairs equal, difference entropy {:.2} bits",
                    same as f64 * 100.0 / pairs.max(1) as f64,
                    entropy(&diff)
                );
            }
        }
    });
}
