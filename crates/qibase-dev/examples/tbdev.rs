//! Development tool for the tablebase format (not part of the product CLI):
//! measures what the format 5 coder makes of solved tiers at several block
//! sizes, section by section, with the time to encode, and optionally dumps
//! each tier's raw u16 LE values for external compressors
//! (`zstd -19`, `xz -9`).
//!
//! ```text
//! cargo run --release --example tbdev -- GAME --dir DIR [--dump OUT] [--block-sizes 256,512,1024] [--read-only]
//! ```

use std::path::PathBuf;
use std::time::Instant;

use qibase::games::AnyGame;
use qibase::tablebase::internals::writer::encode_tier;
use qibase::tablebase::{TierStore, WriteOptions};
use qibase::with_game;
use qibase::Tiers;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut game = None;
    let mut dir = PathBuf::from("tablebases");
    let mut dump: Option<PathBuf> = None;
    let mut sizes = vec![256u32, 512, 1024, 4096];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--dir" => dir = it.next().ok_or("--dir needs a value")?.into(),
            "--read-only" => sizes.clear(),
            "--dump" => dump = Some(it.next().ok_or("--dump needs a value")?.into()),
            "--block-sizes" => {
                sizes = it
                    .next()
                    .ok_or("--block-sizes needs a value")?
                    .split(',')
                    .map(|s| s.parse().map_err(|_| format!("bad block size '{s}'")))
                    .collect::<Result<_, _>>()?
            }
            g if game.is_none() => game = Some(g.to_string()),
            other => return Err(format!("unexpected argument '{other}'")),
        }
    }
    let any = AnyGame::from_id(game.as_deref().ok_or("name a game")?).map_err(|e| e.to_string())?;
    with_game!(any, |g| {
        let mut used_total = 0u64;
        // per block size: (wdl bytes, rem bytes, header bytes, index bytes, encode s)
        let mut totals = vec![(0u64, 0u64, 0u64, 0u64, 0f64); sizes.len()];
        let mut raw_all = Vec::new();
        let mut read_secs = 0f64;
        let store = TierStore::new(g, &dir);
        for t in g.tiers(None) {
            if !store.has_file(t) {
                continue;
            }
            let t0 = Instant::now();
            let f = store.open(t).map_err(|e| e.to_string())?;
            let (meta, values) = (f.meta().clone(), f.read_all().map_err(|e| e.to_string())?);
            read_secs += t0.elapsed().as_secs_f64();
            if dump.is_some() {
                raw_all.extend(values.iter().flat_map(|v| v.to_bits().to_le_bytes()));
            }
            let used = meta.positions - meta.stats.unused;
            used_total += used;
            let mut line = format!("{:>8} {:>11}", g.tier_name(t), used);
            for (k, &bs) in sizes.iter().enumerate() {
                let t0 = Instant::now();
                let enc = encode_tier(
                    &meta,
                    &values,
                    &WriteOptions {
                        block_size: bs,
                        ..WriteOptions::default()
                    },
                )
                .map_err(|_| "a section larger than 4 GiB".to_string())?;
                let secs = t0.elapsed().as_secs_f64();
                let h = &enc.header;
                let tot = &mut totals[k];
                tot.0 += h.wdl_len;
                tot.1 += h.rem_len;
                tot.2 += enc.head.len() as u64;
                tot.3 += enc.index.len() as u64;
                tot.4 += secs;
                line += &format!(
                    "  {bs}: {:.3} {:.3} {:.3}",
                    h.wdl_len as f64 * 8.0 / used.max(1) as f64,
                    h.rem_len as f64 * 8.0 / used.max(1) as f64,
                    enc.file_len() as f64 * 8.0 / used.max(1) as f64
                );
            }
            println!("{line}");
        }
        println!("whole-tier reads (read, check, decode all blocks in parallel): {read_secs:.3} s");
        println!("bits per used slot over {used_total} used slots (WDL stream, remoteness stream, header, index, total; encode seconds):");
        let b = |x: u64| x as f64 * 8.0 / used_total.max(1) as f64;
        for (k, &bs) in sizes.iter().enumerate() {
            let (w, r, h, i, s) = totals[k];
            println!(
                "  block {bs:>6}: WDL {:.3}  rem {:.3}  header {:.3}  index {:.3}  total {:.3}  (WDL section incl. its index half {:.3}); encode {s:.2} s",
                b(w),
                b(r),
                b(h),
                b(i),
                b(w + r + h + i),
                b(w + i / 2)
            );
        }
        if let Some(d) = dump {
            std::fs::write(&d, &raw_all).map_err(|e| format!("{}: {e}", d.display()))?;
            println!(
                "raw u16 LE values of all tiers: {} ({} bytes)",
                d.display(),
                raw_all.len()
            );
        }
        Ok(())
    })
}
