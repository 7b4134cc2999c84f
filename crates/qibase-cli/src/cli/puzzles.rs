//! `qibase puzzles`: select puzzles from the solved tables into a JSON file
//! (the selection is the library's, `qibase::puzzles`).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{game_by_id, CliError, CliResult};
use crate::api;
use qibase::puzzles::{select, PuzzleError, PuzzleOptions, PuzzleSet};
use qibase::tablebase::Tablebase;
use qibase::with_game;
use qibase::Rules;

#[derive(Args, Debug)]
pub struct PuzzlesArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// How many puzzles (fewer if the walks find fewer).
    #[arg(long)]
    pub count: usize,
    /// Seed of the walks and the selection: the same seed and tables give
    /// the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where the walks start (default: the start position); e.g. a
    /// position inside a `--max-pieces` subset.
    #[arg(long)]
    pub from: Option<String>,
    /// The JSON file to write (replaced atomically).
    #[arg(long)]
    pub out: PathBuf,
}

fn puzzle_error(e: PuzzleError) -> CliError {
    match e {
        PuzzleError::Options(s) => CliError::input(s),
        PuzzleError::Lookup(e) => e.into(),
        e => CliError::failure(e.to_string()),
    }
}

pub fn run(a: &PuzzlesArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    if a.count == 0 {
        return Err(CliError::input("--count must be at least 1"));
    }
    // The directory of the file (its temporary file beside it).
    let parent = match a.out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let _lock = super::lock_dir(parent)?;
    let set = with_game!(any, |g| {
        let start = match &a.from {
            Some(s) => api::parse_position(g, s).map_err(CliError::input)?,
            None => g.start(),
        };
        let oracle = Tablebase::open(g, &a.dir);
        let opts = PuzzleOptions::new(a.count, a.seed, vec![start]);
        select(g, &oracle, &opts).map_err(puzzle_error)?
    });
    write_atomically(&a.out, &set)?;
    let mut grades = [0usize; 5];
    for p in &set.puzzles {
        grades[(p.difficulty.grade.clamp(1, 5) - 1) as usize] += 1;
    }
    println!(
        "{} puzzles of {} (seed {}; grades 1-5: {}) written to {}",
        set.puzzles.len(),
        set.game,
        set.seed,
        grades.map(|n| n.to_string()).join(" "),
        a.out.display()
    );
    Ok(())
}

/// Write `set` as pretty JSON to a temporary file next to `out`, then
/// rename it over `out`: a reader sees the old file or the new one.
fn write_atomically(out: &Path, set: &PuzzleSet) -> CliResult {
    let text = serde_json::to_string_pretty(set)
        .map_err(|e| CliError::failure(format!("cannot encode the puzzles: {e}")))?;
    let name = out
        .file_name()
        .ok_or_else(|| CliError::input(format!("--out {} names no file", out.display())))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = out.with_file_name(tmp_name);
    let fail = |e: std::io::Error, what: &Path| {
        CliError::failure(format!("cannot write {}: {e}", what.display()))
    };
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.write_all(b"\n")?;
            f.sync_all()
        })
        .map_err(|e| fail(e, &tmp))
        .and_then(|_| std::fs::rename(&tmp, out).map_err(|e| fail(e, out)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
