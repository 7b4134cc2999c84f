//! `qibase verify` (checksums + local consistency of every stored value)
//! and `qibase info` (what is on disk).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{game_by_id, CliError, CliResult};
use crate::game::{Game, TierKey};
use crate::solver::{check_tier, Lower};
use crate::tablebase::{tier_path, TbError, TierFile};
use crate::value::Packed;
use crate::with_game;

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// The tiers of `g` that have a file in `dir`, or an error naming the
/// command that makes them.
pub fn present_tiers<G: Game>(g: &G, dir: &std::path::Path) -> Result<Vec<TierKey>, CliError> {
    let tiers: Vec<TierKey> = g
        .tiers(None)
        .into_iter()
        .filter(|&t| tier_path(dir, g.id(), &g.tier_name(t)).exists())
        .collect();
    if tiers.is_empty() {
        return Err(CliError::failure(format!(
            "no tier files of {} in {} (`qibase solve {}{}` makes them)",
            g.id(),
            dir.join(g.id()).display(),
            g.id(),
            if dir == std::path::Path::new("tablebases") {
                String::new()
            } else {
                format!(" --dir {}", dir.display())
            }
        )));
    }
    Ok(tiers)
}

pub fn verify(a: &VerifyArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        let t0 = Instant::now();
        let tiers = present_tiers(g, &a.dir)?;
        let load = |t: TierKey| -> Result<Vec<Packed>, TbError> {
            let path = tier_path(&a.dir, g.id(), &g.tier_name(t));
            TierFile::open(&path, g.id(), g.rules_hash(), t)?.read_all()
        };
        let mut cache: HashMap<TierKey, Arc<Vec<Packed>>> = HashMap::new();
        let mut problems = 0u64;
        let mut positions = 0u64;
        for (k, &t) in tiers.iter().enumerate() {
            let name = g.tier_name(t);
            let values = match cache
                .get(&t)
                .cloned()
                .map(Ok)
                .unwrap_or_else(|| load(t).map(Arc::new))
            {
                Ok(v) => v,
                Err(e) => {
                    println!("{name:>8}  BAD  {e}");
                    problems += 1;
                    continue;
                }
            };
            let mut lower = HashMap::new();
            let mut missing = None;
            for d in g.tier_deps(t) {
                let v = match cache.get(&d) {
                    Some(v) => v.clone(),
                    None => match load(d) {
                        Ok(v) => Arc::new(v),
                        Err(e) => {
                            missing = Some(e);
                            break;
                        }
                    },
                };
                lower.insert(d, v);
            }
            if let Some(e) = missing {
                println!("{name:>8}  SKIP cannot check against a lower tier: {e}");
                problems += 1;
                continue;
            }
            let bar = if a.quiet {
                ProgressBar::hidden()
            } else {
                let b = ProgressBar::new(values.len() as u64);
                b.set_style(
                    ProgressStyle::with_template(
                        "{prefix:>8} [{elapsed_precise}] {bar:30} {pos}/{len} {per_sec} eta {eta}",
                    )
                    .unwrap(),
                );
                b.set_prefix(name.clone());
                b
            };
            let mut deps = Lower::new();
            for (d, v) in &lower {
                deps.add(*d, v);
            }
            let report = check_tier(g, t, &values, &deps, 5, &|k| bar.inc(k));
            bar.finish_and_clear();
            let (checked, bad) = (report.checked, report.inconsistent);
            let examples = report.examples.iter().map(|e| {
                format!(
                    "{}: stored {}, expected {}",
                    g.format_pos(&g.unrank(t, e.index)),
                    e.stored.map_or("nothing".into(), |v| v.to_string()),
                    e.expected
                        .map_or("? (a child has no value)".into(), |v| v.to_string())
                )
            });
            positions += checked;
            problems += bad;
            println!(
                "{name:>8}  {}  {checked} positions checked, {bad} inconsistent",
                if bad == 0 { "ok " } else { "BAD" }
            );
            for e in examples {
                println!("          {e}");
            }
            // Keep what later tiers need.
            cache.insert(t, values);
            for (d, v) in lower {
                cache.insert(d, v);
            }
            let needed: Vec<TierKey> = tiers[k + 1..]
                .iter()
                .flat_map(|&u| g.tier_deps(u))
                .collect();
            cache.retain(|key, _| needed.contains(key));
        }
        println!(
            "{problems} inconsistencies ({positions} positions in {} tier file(s), {:.1} s)",
            tiers.len(),
            t0.elapsed().as_secs_f64()
        );
        if problems > 0 {
            return Err(CliError::failure(format!(
                "verify found {problems} inconsistencies in {}",
                a.dir.join(g.id()).display()
            )));
        }
        Ok(())
    })
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Game id (see `qibase games`).
    pub game: String,
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
}

pub fn info(a: &InfoArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    with_game!(any, |g| {
        println!(
            "{} ({}) in {}",
            g.title(),
            g.id(),
            a.dir.join(g.id()).display()
        );
        println!(
            "{:>8} {:>12} {:>12} {:>9} {:>11} {:>11} {:>11} {:>11} {:>7} {:>8} {:>9}",
            "tier",
            "slots",
            "file bytes",
            "bits/used",
            "wins",
            "losses",
            "draws",
            "unused",
            "max win",
            "max loss",
            "seconds"
        );
        let (mut pos, mut bytes, mut present, mut bad) = (0u64, 0u64, 0usize, 0usize);
        let mut real = 0u64;
        let mut missing = Vec::new();
        let mut enc = None;
        let all = g.tiers(None);
        for &t in &all {
            let name = g.tier_name(t);
            let path = tier_path(&a.dir, g.id(), &name);
            if !path.exists() {
                missing.push(name);
                continue;
            }
            match TierFile::open(&path, g.id(), g.rules_hash(), t) {
                Ok(f) => {
                    let m = f.meta();
                    let s = &m.stats;
                    let used = m.positions - s.unused;
                    println!(
                        "{name:>8} {:>12} {:>12} {:>9.3} {:>11} {:>11} {:>11} {:>11} {:>7} {:>8} {:>9.2}",
                        m.positions,
                        f.file_len(),
                        f.file_len() as f64 * 8.0 / used.max(1) as f64,
                        s.wins,
                        s.losses,
                        s.draws,
                        s.unused,
                        s.max_win,
                        s.max_loss,
                        s.seconds
                    );
                    pos += used;
                    real += g.tier_positions(t);
                    bytes += f.file_len();
                    present += 1;
                    enc = Some((f.header().encoding.name(), f.header().block_size));
                }
                Err(e) => {
                    println!("{name:>8}  BAD  {e}");
                    bad += 1;
                }
            }
        }
        println!(
            "{present} of {} tiers present, {pos} stored positions, {bytes} bytes, {:.3} bits/stored position",
            all.len(),
            bytes as f64 * 8.0 / pos.max(1) as f64
        );
        println!(
            "they stand for {real} positions (every placement, both sides to move): {:.3} bits/position",
            bytes as f64 * 8.0 / real.max(1) as f64
        );
        if let Some((e, bs)) = enc {
            println!("encoding {e}, {bs} positions per block");
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
        if bad > 0 {
            return Err(CliError::failure(format!("{bad} tier file(s) unreadable")));
        }
        Ok(())
    })
}
