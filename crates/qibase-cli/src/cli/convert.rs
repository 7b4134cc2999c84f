//! `qibase convert`: rewrite a game's format 2, 3 and 4 tier files in the
//! current format, without solving again (the values are decoded and
//! re-encoded; every old checksum is checked on the way). The old formats
//! stored a value in every slot, so the unused slots (indices that are no
//! position) are found again from the game's numbering and written as
//! don't-cares.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{game_by_id, CliError, CliResult};
use qibase::game::{Game, Tiers};
use qibase::tablebase::{file_version, read_v2, tier_path, write_tier, TierFile, FORMAT_VERSION};
use qibase::with_game;

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Tablebase directory to read.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Where to write the converted files (default: replace them in --dir,
    /// one file at a time, atomically).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(a: &ConvertArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    let out_dir = a.out.clone().unwrap_or_else(|| a.dir.clone());
    with_game!(any, |g| {
        let t0 = Instant::now();
        let tiers = super::verify::present_tiers(g, &a.dir)?;
        let bar = if a.quiet {
            ProgressBar::hidden()
        } else {
            let b = ProgressBar::new(tiers.len() as u64);
            b.set_style(
                ProgressStyle::with_template(
                    "convert [{elapsed_precise}] {bar:30} {pos}/{len} tiers {msg}",
                )
                .expect("valid progress template"),
            );
            b
        };
        let (mut converted, mut current, mut before, mut after) = (0usize, 0usize, 0u64, 0u64);
        for &t in &tiers {
            let name = g.tier_name(t);
            bar.set_message(name.clone());
            let src = tier_path(&a.dir, g.id(), &name);
            let dst = tier_path(&out_dir, g.id(), &name);
            let size = std::fs::metadata(&src).map(|m| m.len()).unwrap_or(0);
            match file_version(&src)? {
                Some(v) if v == FORMAT_VERSION => {
                    // Already current: check it, copy it if the output is elsewhere.
                    TierFile::open(&src, g.id(), g.rules_hash(), t)?;
                    if dst != src {
                        if let Some(p) = dst.parent() {
                            std::fs::create_dir_all(p).map_err(|e| {
                                CliError::failure(format!("{}: cannot create directory: {e}", p.display()))
                            })?;
                        }
                        std::fs::copy(&src, &dst).map_err(|e| {
                            CliError::failure(format!("{}: cannot copy: {e}", dst.display()))
                        })?;
                    }
                    current += 1;
                    before += size;
                    after += size;
                }
                Some(v @ (2..=4)) => {
                    let (mut meta, mut values) = if v == 2 {
                        read_v2(&src)?
                    } else {
                        // Opening checks game, rules and tier; the whole
                        // read checks every block.
                        let f = TierFile::open_old(&src, g.id(), g.rules_hash(), t)?;
                        (f.meta().clone(), f.read_all()?)
                    };
                    if meta.game != g.id() || meta.rules_hash != g.rules_hash() || meta.tier != t {
                        return Err(CliError::failure(format!(
                            "{}: file holds tier {} of '{}' (rules hash {:016x}), not tier {name} of {} ({:016x})",
                            src.display(),
                            meta.tier_name,
                            meta.game,
                            meta.rules_hash,
                            g.id(),
                            g.rules_hash()
                        )));
                    }
                    if meta.positions != g.tier_size(t) {
                        return Err(CliError::failure(format!(
                            "{}: file has {} positions but tier {name} has {}",
                            src.display(),
                            meta.positions,
                            g.tier_size(t)
                        )));
                    }
                    if v == 2 {
                        meta.variant = g.id().to_string();
                    }
                    mark_unused(g, t, &mut values);
                    write_tier(&dst, &meta, &values)?;
                    converted += 1;
                    before += size;
                    after += std::fs::metadata(&dst).map(|m| m.len()).unwrap_or(0);
                }
                Some(v) => {
                    return Err(CliError::failure(format!(
                        "{}: tablebase format version {v}: cannot convert it (this qibase converts versions 2, 3 and 4)",
                        src.display()
                    )))
                }
                None => {
                    return Err(CliError::failure(format!(
                        "{}: not a qibase tablebase file (bad magic)",
                        src.display()
                    )))
                }
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        println!(
            "converted {converted} tier file(s) of {} to format {FORMAT_VERSION} ({current} already current) in {}: {before} -> {after} bytes ({:.1} %), {:.1} s",
            g.id(),
            out_dir.join(g.id()).display(),
            after as f64 * 100.0 / before.max(1) as f64,
            t0.elapsed().as_secs_f64()
        );
        Ok(())
    })
}

/// Set the tier's unused slots to the don't-care value (packed 0), in
/// parallel over ranges of slots.
fn mark_unused<G: Game>(g: &G, t: qibase::game::TierKey, values: &mut [qibase::value::Packed]) {
    use rayon::prelude::*;
    const CHUNK: usize = 1 << 16;
    values
        .par_chunks_mut(CHUNK)
        .enumerate()
        .for_each_init(Vec::new, |used, (c, part)| {
            let lo = (c * CHUNK) as u64;
            used.clear();
            g.used_slots(t, lo..lo + part.len() as u64, used);
            let mut next = used.iter().map(|&(i, _)| (i - lo) as usize).peekable();
            for (k, v) in part.iter_mut().enumerate() {
                if next.peek() == Some(&k) {
                    next.next();
                } else {
                    *v = 0;
                }
            }
        });
}
