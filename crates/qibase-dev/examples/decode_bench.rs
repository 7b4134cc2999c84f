//! Development measurement of tier-file decoding (not a test, not the
//! product CLI): `decode_bench DIR/GAME` decodes every tier file of the
//! directory whole, as the solver reads its lower tiers (in parallel on
//! all threads, every checksum checked), and prints the wall time and the
//! rate. (`examples/tbdev --dump` writes the raw arrays for external
//! compressors.)
use std::path::Path;
use std::time::Instant;

use qibase::tablebase::internals::parse_layout;
use qibase::tablebase::TierFile;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: decode_bench DIR/GAME");
    let mut files: Vec<_> = std::fs::read_dir(Path::new(&dir))
        .expect("a directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "qtb"))
        .collect();
    files.sort();
    let (mut slots, mut bytes, mut sum) = (0u64, 0u64, 0u64);
    let t0 = Instant::now();
    for path in &files {
        let raw = std::fs::read(path).expect("readable");
        let meta = parse_layout(path, &raw).expect("a tier file").header.meta;
        let f = TierFile::open(path, &meta.game, meta.rules_hash, meta.tier).expect("open");
        let values = f.read_all().expect("decodes");
        slots += values.len() as u64;
        bytes += f.file_len();
        sum += values
            .iter()
            .step_by(4099)
            .map(|&v| v.to_bits() as u64)
            .sum::<u64>();
    }
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "{} files, {slots} slots, {bytes} bytes decoded in {dt:.2} s: {:.1} M slots/s [{sum}]",
        files.len(),
        slots as f64 / dt / 1e6
    );
}
