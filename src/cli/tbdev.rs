//! Developer tools for the tablebase format: `qibase bench-probe` (probe
//! speed on a warm cache) and `qibase measure-codec` (bits/position of the
//! codec variants, and raw u16 dumps for the external compressors).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rayon::prelude::*;

use super::{game_by_id, CliError, CliResult};
use crate::game::Game;
use crate::tablebase::codec::{build_symbols, value_codes, Coder};
use crate::tablebase::writer::encode_tier;
use crate::tablebase::{tier_path, Encoding, Tablebase, TierFile, WriteOptions};
use crate::with_game;

#[derive(Args, Debug)]
pub struct MeasureArgs {
    pub game: String,
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Also write each tier's raw u16 LE values to DUMP/<tier>.u16.
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// Block sizes to try (positions).
    #[arg(long, value_delimiter = ',', default_value = "4096,16384,65536,262144")]
    pub block_sizes: Vec<u32>,
    /// zstd levels to try.
    #[arg(long, value_delimiter = ',', default_value = "3,9,19")]
    pub levels: Vec<i32>,
}

fn entropy(counts: &[u64]) -> f64 {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return 0.0;
    }
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n as f64;
            -(c as f64) * p.log2()
        })
        .sum()
}

pub fn measure(a: &MeasureArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let mut rows: Vec<(String, u64, Vec<f64>)> = Vec::new();
        let mut configs = Vec::new();
        for &bs in &a.block_sizes {
            for &l in &a.levels {
                configs.push((bs, l));
            }
        }
        let mut total_pos = 0u64;
        let mut total_bits = vec![0f64; configs.len() + 3];
        for t in g.tiers(None) {
            let path = tier_path(&a.dir, g.id(), &g.tier_name(t));
            if !path.exists() {
                continue;
            }
            let f = TierFile::open(&path, g.id(), g.rules_hash(), t)?;
            let values = f.read_all()?;
            let n = values.len() as u64;
            if let Some(d) = &a.dump {
                std::fs::create_dir_all(d).map_err(|e| CliError::failure(e.to_string()))?;
                let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                std::fs::write(d.join(format!("{}.u16", g.tier_name(t))), raw)
                    .map_err(|e| CliError::failure(e.to_string()))?;
            }
            // Order-0 and order-1 entropy of the symbol stream (used slots).
            let symbols = build_symbols(&values);
            let codes = value_codes(&symbols);
            let mut buf = Vec::new();
            let mut coder = Coder::new(0);
            let _ = &mut coder;
            crate::tablebase::codec::symbolize(&values, &symbols, &codes, &mut buf);
            let mut c0 = vec![0u64; 256];
            let mut c1 = vec![0u64; 256 * 256];
            let mut prev = 0u8;
            for &b in &buf {
                c0[b as usize] += 1;
                c1[prev as usize * 256 + b as usize] += 1;
                prev = b;
            }
            let h0 = entropy(&c0);
            let h1: f64 = c1.chunks(256).map(entropy).sum();
            let mut bits = vec![h0, h1, f.file_len() as f64 * 8.0];
            for &(bs, level) in &configs {
                let opts = WriteOptions {
                    encoding: Encoding::SymbolsZstd,
                    block_size: bs,
                    level,
                };
                let enc = encode_tier(f.meta(), &values, &opts);
                bits.push(enc.len() as f64 * 8.0);
            }
            for (tb, b) in total_bits.iter_mut().zip(&bits) {
                *tb += b;
            }
            total_pos += n;
            rows.push((g.tier_name(t), n, bits));
        }
        let mut head = format!(
            "{:>8} {:>12} {:>7} {:>7} {:>7}",
            "tier", "positions", "H0", "H1", "file"
        );
        for (bs, l) in &configs {
            head += &format!(" {:>9}", format!("{}k/{l}", bs / 1024));
        }
        println!("{head}");
        rows.push(("total".into(), total_pos, total_bits));
        for (name, n, bits) in rows {
            let mut line = format!("{name:>8} {n:>12}");
            for (k, b) in bits.iter().enumerate() {
                let w = if k < 3 { 7 } else { 9 };
                line += &format!(" {:>w$.3}", b / n.max(1) as f64);
            }
            println!("{line}");
        }
        Ok(())
    })
}

#[derive(Args, Debug)]
pub struct BenchProbeArgs {
    pub game: String,
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Number of random probes per thread.
    #[arg(long, default_value_t = 2_000_000)]
    pub probes: u64,
    /// Threads (default 1: the goal is per core).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
}

/// Random probes of used slots in the solved tiers present, on a warm cache.
pub fn bench_probe(a: &BenchProbeArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let tb = Tablebase::open(g, &a.dir);
        // Sample positions from the tiers present.
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let tiers = super::verify::present_tiers(g, &a.dir)?;
        let sample = 1 << 16;
        let mut positions = Vec::with_capacity(sample);
        while positions.len() < sample {
            let t = tiers[(next() % tiers.len() as u64) as usize];
            let i = next() % g.tier_size(t);
            let p = g.unrank(t, i);
            if g.rank(t, &p) == i {
                positions.push(p);
            }
        }
        // Warm the cache.
        let t0 = Instant::now();
        for p in &positions {
            tb.probe(p)?;
        }
        let warm = t0.elapsed().as_secs_f64();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(a.threads.max(1))
            .build()
            .map_err(|e| CliError::failure(e.to_string()))?;
        let per = a.probes;
        let t0 = Instant::now();
        let sum: u64 = pool.install(|| {
            (0..a.threads.max(1))
                .into_par_iter()
                .map(|k| {
                    let mut s = 0u64;
                    let mut j = k * 7919;
                    for _ in 0..per {
                        j = (j + 40_503) % positions.len();
                        s += tb
                            .probe(&positions[j])
                            .map(|v| v.pack() as u64)
                            .unwrap_or(0);
                    }
                    s
                })
                .sum()
        });
        let secs = t0.elapsed().as_secs_f64();
        let total = per * a.threads.max(1) as u64;
        println!(
            "{} sampled positions from {} tier(s); first pass (cold) {:.3} s",
            positions.len(),
            tiers.len(),
            warm
        );
        println!(
            "warm: {total} probes in {secs:.3} s on {} thread(s): {:.2} M probes/s ({:.2} M/s per thread) [checksum {sum}]",
            a.threads.max(1),
            total as f64 / secs / 1e6,
            total as f64 / secs / 1e6 / a.threads.max(1) as f64
        );
        Ok(())
    })
}
