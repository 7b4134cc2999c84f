//! Development measurement: where a cold WDL lookup's time goes. Times
//! `TierFile::wdl_in_block` and `value_in_block` (no cache) on one tier file for (a) random slots of one block
//! (tables and data hot), (b) random slots of 64 blocks, (c) random slots
//! of the whole tier.
use std::path::Path;
use std::time::Instant;

use qibase::tablebase::internals::parse_layout;
use qibase::tablebase::TierFile;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: probe_parts FILE.qtb");
    let path = Path::new(&path);
    let raw = std::fs::read(path).expect("readable");
    let meta = parse_layout(path, &raw).expect("a tier file").header.meta;
    let f = TierFile::open(path, &meta.game, meta.rules_hash, meta.tier).expect("open");
    let n = meta.positions;
    let bs = f.block_size() as u64;
    let mut s = 88172645463325252u64;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for (what, span) in [("one block", bs), ("64 blocks", 64 * bs), ("whole tier", n)] {
        let base = (n / 2 / bs) * bs;
        let k = 400_000;
        let idx: Vec<u64> = (0..k).map(|_| (base + rnd() % span) % n).collect();
        time(what, "WDL", &idx, bs, |b, off| {
            f.wdl_in_block(b, off).expect("decodes") as u64
        });
        time(what, "full", &idx, bs, |b, off| {
            f.value_in_block(b, off).expect("decodes").to_bits() as u64
        });
    }
}

/// Time one kind of uncached lookup over the slots `idx` (blocks of `bs`).
fn time(what: &str, kind: &str, idx: &[u64], bs: u64, lookup: impl Fn(usize, usize) -> u64) {
    let t0 = Instant::now();
    let sum: u64 = idx
        .iter()
        .map(|&i| lookup((i / bs) as usize, (i % bs) as usize))
        .sum();
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "{what:>10}: {:.0} ns per {kind} lookup [{sum}]",
        dt * 1e9 / idx.len() as f64
    );
}
