//! `qibase verify` (checksums + local consistency of every stored value)
//! and `qibase info` (what is on disk).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{game_by_id, CliError, CliResult};
use crate::hint::{hint, solve_command};
use qibase::tablebase::{game_dir, TbError, TierStore};
use qibase::verify::{verify_game, CheckReport, TierCheck, VerifyObserver};
use qibase::with_game;
use qibase::{Game, Notation, TierKey, Tiers};

/// The exit status of a verify that met only I/O errors (module docs).
pub const IO_ERROR_STATUS: i32 = 3;

#[derive(Args, Debug)]
#[command(after_help = "Exit status:
  0  every value checked is consistent
  1  values are inconsistent, or a file is damaged, missing or of other rules
  2  bad input, or another process is writing the directory (--memory)
  3  nothing inconsistent was found, but a file could not be read or written
     (an I/O error: a full disk, a read error): some tiers were not checked")]
pub struct VerifyArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Check only this tier (repeatable; e.g. `--tier 7v6 --tier 7v7`):
    /// its lower tiers are read but not checked. Default: every tier present.
    #[arg(long = "tier", value_name = "TIER")]
    pub tiers: Vec<String>,
    /// Hold at most about SIZE of memory (e.g. 16GiB): a tier whose values
    /// and those of the tiers it reads do not fit is checked out of core,
    /// its values and theirs copied to scratch files in the tablebase
    /// directory (2 bytes a slot) and read in batches (docs/out-of-core.md).
    #[arg(long, value_name = "SIZE", value_parser = super::solve::parse_size)]
    pub memory: Option<u64>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// The tiers named by `--tier` among `present` (all of them when none is
/// named), or a one-line error for a name the game does not have or a
/// tier with no file.
fn chosen_tiers<G: Game>(
    g: &G,
    present: Vec<TierKey>,
    names: &[String],
    dir: &std::path::Path,
) -> Result<Vec<TierKey>, CliError> {
    if names.is_empty() {
        return Ok(present);
    }
    let all = g.tiers(None);
    let mut wanted = Vec::new();
    for name in names {
        let Some(t) = all.iter().copied().find(|&t| g.tier_name(t) == *name) else {
            let known: Vec<String> = all.iter().map(|&t| g.tier_name(t)).collect();
            return Err(CliError::input(format!(
                "{} has no tier '{name}' (its tiers: {})",
                g.id(),
                known.join(", ")
            )));
        };
        if !present.contains(&t) {
            return Err(CliError::failure(format!(
                "tier {name} of {} has no file in {}",
                g.id(),
                game_dir(dir, g.id()).display()
            )));
        }
        wanted.push(t);
    }
    // In solve order, each once.
    Ok(present.into_iter().filter(|t| wanted.contains(t)).collect())
}

/// The tiers of `g` that have a file in `dir` (fast or compact), or an
/// error naming the command that makes them.
pub fn present_tiers<G: Game>(g: &G, dir: &std::path::Path) -> Result<Vec<TierKey>, CliError> {
    let store = TierStore::new(g, dir);
    let tiers: Vec<TierKey> = g
        .tiers(None)
        .into_iter()
        .filter(|&t| store.has_any_file(t))
        .collect();
    if tiers.is_empty() {
        return Err(CliError::failure(format!(
            "no tier files of {} in {} (`{}` makes them)",
            g.id(),
            game_dir(dir, g.id()).display(),
            solve_command(g.id(), None, dir)
        )));
    }
    Ok(tiers)
}

pub fn verify(a: &VerifyArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let t0 = Instant::now();
        let tiers = chosen_tiers(g, present_tiers(g, &a.dir)?, &a.tiers, &a.dir)?;
        // Out of core, the check writes scratch files in the game's
        // directory: one writer at a time.
        let _lock = match a.memory {
            Some(_) => Some(super::lock_dir(&game_dir(&a.dir, g.id()))?),
            None => None,
        };
        let store = TierStore::new(g, &a.dir);
        let printer = Printer {
            g,
            quiet: a.quiet,
            bar: Mutex::new(ProgressBar::hidden()),
        };
        let sum = verify_game(&store, &tiers, a.memory, &printer);
        let problems = sum.problems;
        println!(
            "{problems} inconsistencies ({} positions in {} tier file(s), {:.1} s)",
            sum.positions,
            tiers.len(),
            t0.elapsed().as_secs_f64()
        );
        if problems > 0 {
            return Err(CliError::failure(format!(
                "verify found {problems} inconsistencies in {}",
                game_dir(&a.dir, g.id()).display()
            )));
        }
        if sum.io_errors > 0 {
            return Err(CliError {
                message: format!(
                    "{} tier(s) of {} not checked: a file could not be read or written (see above); nothing inconsistent was found in the rest",
                    sum.io_errors,
                    game_dir(&a.dir, g.id()).display()
                ),
                code: IO_ERROR_STATUS,
            });
        }
        Ok(())
    })
}

/// Prints each tier's verdict, with a progress bar while it is checked.
struct Printer<'g, G> {
    g: &'g G,
    quiet: bool,
    bar: Mutex<ProgressBar>,
}

impl<G: Game> VerifyObserver for Printer<'_, G> {
    fn tier_started(&self, name: &str, slots: u64) {
        *self.bar.lock().unwrap() = tier_bar(self.quiet, name, slots);
    }
    fn checked(&self, slots: u64) {
        self.bar.lock().unwrap().inc(slots);
    }
    fn tier_done(&self, t: TierKey, name: &str, check: &TierCheck) {
        self.bar.lock().unwrap().finish_and_clear();
        match check {
            TierCheck::Checked(report) => print_check(self.g, t, name, report),
            TierCheck::Unreadable(e) => println!("{name:>8}  BAD  {}", hint(e)),
            TierCheck::LowerUnreadable(e) => {
                println!(
                    "{name:>8}  SKIP cannot check against a lower tier: {}",
                    hint(e)
                )
            }
        }
    }
}

/// A tier's progress bar over `slots` (hidden with `--quiet`).
fn tier_bar(quiet: bool, name: &str, slots: u64) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(slots);
    b.set_style(
        ProgressStyle::with_template(
            "{prefix:>8} [{elapsed_precise}] {bar:30} {pos}/{len} {per_sec} eta {eta}",
        )
        .unwrap(),
    );
    b.set_prefix(name.to_string());
    b
}

/// Print a tier's verdict and its first inconsistencies.
fn print_check<G: Game>(g: &G, t: TierKey, name: &str, report: &CheckReport) {
    let (checked, bad) = (report.checked, report.inconsistent);
    println!(
        "{name:>8}  {}  {checked} positions checked, {bad} inconsistent",
        if bad == 0 { "ok " } else { "BAD" }
    );
    for e in &report.examples {
        println!(
            "          {}: stored {}, expected {}",
            g.format_pos(&g.unrank(t, e.index)),
            e.stored.map_or("nothing".into(), |v| v.to_string()),
            e.expected
                .map_or("? (a child has no value)".into(), |v| v.to_string())
        );
    }
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
}

/// What `info` shows of one tier's file, in either format.
struct TierSizes {
    meta: qibase::tablebase::TierMeta,
    /// Bytes of the file, of its WDL part and of its remoteness part.
    len: u64,
    wdl: u64,
    rem: u64,
    /// Slots per block of a fast file; `None` for a compact one.
    fast_block: Option<u32>,
}

/// The sizes of tier `t`'s file, fast or compact; `None` if it has none.
fn tier_sizes<G: Game>(store: &TierStore<'_, G>, t: TierKey) -> Option<Result<TierSizes, TbError>> {
    if store.has_file(t) {
        Some(store.open(t).map(|f| {
            // Each section owns its half of the block index.
            let [_, index, wdl, rem] = f.section_bytes();
            TierSizes {
                meta: f.meta().clone(),
                len: f.file_len(),
                wdl: wdl + index / 2,
                rem: rem + index / 2,
                fast_block: Some(f.block_size()),
            }
        }))
    } else if store.compact_path(t).exists() {
        // The two parts; the header counted apart.
        Some(store.open_compact(t).map(|c| {
            let [head, wdl, rem] = c.sizes();
            TierSizes {
                meta: c.header().meta.clone(),
                len: head + wdl + rem,
                wdl,
                rem,
                fast_block: None,
            }
        }))
    } else {
        None
    }
}

pub fn info(a: &InfoArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        println!(
            "{} ({}) in {}",
            g.title(),
            g.id(),
            game_dir(&a.dir, g.id()).display()
        );
        println!(
            "{:>8} {:>12} {:>12} {:>11} {:>7} {:>7} {:>7} {:>11} {:>11} {:>11} {:>7} {:>8} {:>8} {:>7}",
            "tier",
            "slots",
            "used",
            "file bytes",
            "WDL b",
            "rem b",
            "all b",
            "wins",
            "losses",
            "draws",
            "max win",
            "max loss",
            "solve s",
            "write s"
        );
        let (mut used_all, mut bytes, mut present, mut bad) = (0u64, 0u64, 0usize, 0usize);
        let (mut wdl_all, mut rem_all) = (0u64, 0u64);
        let mut real = 0u64;
        let mut missing = Vec::new();
        let mut block = None;
        let all = g.tiers(None);
        let bits = |b: u64, n: u64| b as f64 * 8.0 / n.max(1) as f64;
        let store = TierStore::new(g, &a.dir);
        let mut compact = 0usize;
        for &t in &all {
            let name = g.tier_name(t);
            let Some(opened) = tier_sizes(&store, t) else {
                missing.push(name);
                continue;
            };
            match opened {
                Ok(z) => {
                    let (m, s) = (&z.meta, &z.meta.stats);
                    let used = m.positions - s.unused;
                    let (write, format) = match z.fast_block {
                        Some(_) => (format!("{:.3}", s.write_seconds), ""),
                        None => ("-".to_string(), "  compact"),
                    };
                    println!(
                        "{name:>8} {:>12} {used:>12} {:>11} {:>7.3} {:>7.3} {:>7.3} {:>11} {:>11} {:>11} {:>7} {:>8} {:>8.2} {write:>7}{format}",
                        m.positions,
                        z.len,
                        bits(z.wdl, used),
                        bits(z.rem, used),
                        bits(z.len, used),
                        s.wins,
                        s.losses,
                        s.draws,
                        s.max_win,
                        s.max_loss,
                        s.seconds,
                    );
                    used_all += used;
                    wdl_all += z.wdl;
                    rem_all += z.rem;
                    real += g.tier_positions(t);
                    bytes += z.len;
                    present += 1;
                    match z.fast_block {
                        Some(b) => block = Some(b),
                        None => compact += 1,
                    }
                }
                Err(e) => {
                    println!("{name:>8}  BAD  {}", hint(&e));
                    bad += 1;
                }
            }
        }
        println!(
            "{present} of {} tiers present, {used_all} used slots, {bytes} bytes: {:.3} bits per used slot \
             (WDL section {:.3}, remoteness section {:.3}, headers {:.3})",
            all.len(),
            bits(bytes, used_all),
            bits(wdl_all, used_all),
            bits(rem_all, used_all),
            bits(bytes - wdl_all - rem_all, used_all)
        );
        println!(
            "they stand for {real} positions (every placement, both sides to move): {:.3} bits/position",
            bits(bytes, real)
        );
        if let Some(bs) = block {
            println!(
                "format {}, {bs} slots per block: WDL rANS-coded over a static context model, remoteness in Rice codes",
                qibase::tablebase::FORMAT_VERSION
            );
        }
        if compact > 0 {
            println!(
                "{compact} tier(s) in the compact format: a WDL part with free values where a capture or a rule decides, and a remoteness part for one side to move where the tier has halves (`qibase unpack` restores the fast files)"
            );
        }
        if !missing.is_empty() {
            let shown: Vec<_> = missing.iter().take(12).cloned().collect();
            println!(
                "missing tiers ({}): {}{}",
                missing.len(),
                shown.join(" "),
                if missing.len() > shown.len() {
                    " …"
                } else {
                    ""
                }
            );
        }
        if let Some((tier, level)) = qibase::solver::interrupted_solve(g, &a.dir) {
            println!(
                "tier {tier} is being solved out of core: its last checkpoint is at level {level} (`qibase solve {} --memory SIZE` resumes it there)",
                g.id()
            );
        }
        if bad > 0 {
            return Err(CliError::failure(format!("{bad} tier file(s) unreadable")));
        }
        Ok(())
    })
}
