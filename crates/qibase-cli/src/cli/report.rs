//! `qibase report`: write `reports/<game>.md` and its SVG figures from a
//! complete tablebase.

use std::path::PathBuf;

use clap::Args;

use super::{game_by_id, CliError, CliResult};
use crate::report::{generate, ReportOptions};
use qibase::with_game;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Output directory for the report and its figures.
    #[arg(long, default_value = "reports")]
    pub out: PathBuf,
    /// Where to find the tablebase of the companion game compared in the
    /// report (the other cannon-chess board); default: --dir.
    #[arg(long)]
    pub compare_dir: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(a: &ReportArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    let opts = ReportOptions {
        dir: a.dir.clone(),
        out: a.out.clone(),
        compare_dir: a.compare_dir.clone(),
        quiet: a.quiet,
        checkpoint_every: crate::report::checkpoint::DEFAULT_EVERY,
    };
    // The report, its figures and its checkpoint: one writer at a time.
    let _lock = super::lock_dir(&a.out)?;
    let t0 = std::time::Instant::now();
    let files = with_game!(any, |g| generate(g, &opts)).map_err(CliError::failure)?;
    for f in &files {
        println!("wrote {}", f.display());
    }
    println!(
        "report of {}: {} files in {:.1} s",
        a.game,
        files.len(),
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}
