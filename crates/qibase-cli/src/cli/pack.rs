//! `qibase pack` and `qibase unpack`: a game's tables in the compact
//! format for shipping, and back to the fast format byte for byte.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{game_by_id, CliError, CliResult};
use qibase::tablebase::compact::TierPacking;
use qibase::{with_game, Tiers};

#[derive(Args, Debug)]
pub struct PackArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Directory of the tables to read.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Directory to write the other format's tables to.
    #[arg(long)]
    pub out: PathBuf,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Which way to convert.
#[derive(Clone, Copy)]
pub enum Direction {
    Pack,
    Unpack,
}

pub fn run(a: &PackArgs, dir: Direction) -> CliResult {
    if a.out == a.dir {
        return Err(CliError::failure(
            "--out must be another directory than --dir",
        ));
    }
    let any = game_by_id(&a.game)?;
    let (id, tiers) = with_game!(any, |g| (g.id().to_string(), g.tiers(None).len()));
    let _lock = super::lock_dir(&qibase::tablebase::game_dir(&a.out, &id))?;
    let t0 = Instant::now();
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::new(tiers as u64);
        b.set_style(
            ProgressStyle::with_template("[{elapsed_precise}] {bar:30} {pos}/{len} tiers {msg}")
                .expect("template"),
        );
        b
    };
    let mut line = |r: &TierPacking| {
        let [h, w, rem] = r.compact_bytes;
        let text = format!(
            "{:>8} {:>14} used slots  fast {:>12} B  compact {:>11} B (WDL {:>5.3}, remoteness {:>5.3} bits/slot){}",
            r.name,
            r.used,
            r.fast_bytes,
            h + w + rem,
            bits(w, r.used),
            bits(rem, r.used),
            if r.kept { "  (already done)" } else { "" }
        );
        if a.quiet {
            println!("{text}");
        } else {
            bar.println(text);
        }
        bar.set_message(r.name.clone());
        bar.inc(1);
    };
    let report = match dir {
        Direction::Pack => any.pack(&a.dir, &a.out, &mut line),
        Direction::Unpack => any.unpack(&a.dir, &a.out, &mut line),
    }
    .map_err(CliError::from)?;
    bar.finish_and_clear();
    let used: u64 = report.iter().map(|r| r.used).sum();
    let fast: u64 = report.iter().map(|r| r.fast_bytes).sum();
    let parts = report.iter().fold([0u64; 3], |mut s, r| {
        for (x, y) in s.iter_mut().zip(r.compact_bytes) {
            *x += y;
        }
        s
    });
    let total: u64 = parts.iter().sum();
    println!(
        "{} {} tiers of {} in {:.1} s: {used} used slots, fast {fast} B ({:.2} bits/slot), compact {total} B ({:.2} bits/slot: WDL {:.2}, remoteness {:.2}), {:.1}x smaller",
        match dir {
            Direction::Pack => "packed",
            Direction::Unpack => "unpacked",
        },
        report.len(),
        id,
        t0.elapsed().as_secs_f64(),
        bits(fast, used),
        bits(total, used),
        bits(parts[1], used),
        bits(parts[2], used),
        fast as f64 / total.max(1) as f64,
    );
    Ok(())
}

/// Bits per used slot.
fn bits(bytes: u64, used: u64) -> f64 {
    8.0 * bytes as f64 / used.max(1) as f64
}
