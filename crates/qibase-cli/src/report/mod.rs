//! `qibase report`: the research report of a solved game, from its tablebase.
//!
//! * [`games`] — what the report needs to know about each game beyond the
//!   [`Game`] trait: how many real positions a slot stands for, how to swap
//!   the side to move, heat-map layers, the rules in brief;
//! * [`stats`] — one pass over every tier: counts, histograms, heat maps,
//!   mutual zugzwangs, the lock-flag effect, reachable values;
//! * [`checkpoint`] — the pass's progress saved, so a stopped report
//!   resumes;
//! * [`reach`] — breadth-first search from the start over the dense index
//!   space, one bitset per tier;
//! * [`svg`] — hand-written SVG figures;
//! * [`markdown`] — the text of the report.
//!
//! Output is deterministic: the same tablebase gives byte-identical files.

pub mod checkpoint;
pub mod games;
pub mod markdown;
pub mod reach;
pub mod stats;
pub mod svg;
pub mod variants;

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use qibase::analysis::{analyse, principal_variation, LookupError, Oracle};
use qibase::{Game, Rules, TierKey};
// Tiers of at most this many bytes of values (the solve plan's figure) are
// loaded whole by `Probe`; larger ones are read a block at a time from
// their files (the lines of the largest games pass through tiers of 15 GB
// and more).
use qibase::solver::WHOLE_TIER_BYTES;
use qibase::tablebase::TierStore;
use qibase::{Packed, Value};

use crate::hint::{hint, lookup_hint, solve_command};
use checkpoint::Checkpoint;
pub use games::ReportGame;

/// Where to read and write.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Tablebase directory (`<dir>/<game>/<tier>.qtb`).
    pub dir: PathBuf,
    /// Output directory for `<game>.md` and the SVG figures.
    pub out: PathBuf,
    /// Where to look for the tablebase of a companion game (the other cannon
    /// chess board), default `dir`.
    pub compare_dir: Option<PathBuf>,
    /// Show no progress bar.
    pub quiet: bool,
    /// Save the pass's progress at most this often (zero: after every
    /// tier), so that a stopped report resumes.
    pub checkpoint_every: std::time::Duration,
}

/// Check that every tier of `g` is solved in `dir`; a one-line error otherwise.
pub fn check_complete<G: Game>(g: &G, dir: &Path) -> Result<(), String> {
    let store = TierStore::new(g, dir);
    for t in g.tiers(None) {
        let name = g.tier_name(t);
        if !store.has_file(t) && store.compact_path(t).exists() {
            return Err(format!(
                "the report reads fast tables, and {} holds tier {name} of {} in the compact format only (`qibase unpack {} --dir {} --out DIR` gives them back)",
                dir.display(),
                g.id(),
                g.id(),
                dir.display()
            ));
        }
        if !store.has_file(t) {
            return Err(format!(
                "no complete tablebase of {} in {}: tier {name} is missing (run `{}`)",
                g.id(),
                dir.display(),
                solve_command(g.id(), None, dir)
            ));
        }
        store.meta(t).map_err(|e| hint(&e))?;
    }
    Ok(())
}

/// A line of play: each move and the position after it.
pub type Line<G> = Vec<(<G as Rules>::Move, <G as Rules>::Pos)>;

/// Probes positions, loading whole tiers on demand and keeping them, or,
/// for tiers over [`WHOLE_TIER_BYTES`], looking them up in their files.
/// Move values and lines go through [`qibase::analysis`], so the report's
/// move order and principal variations are the ones `query` shows.
pub struct Probe<'g, G: Game> {
    g: &'g G,
    store: TierStore<'g, G>,
    cache: RefCell<HashMap<TierKey, Vec<Packed>>>,
    files: qibase::tablebase::Tablebase<'g, G>,
    /// Tiers over this many bytes of values are read from their files.
    whole_tier_bytes: u64,
}

impl<'g, G: Game> Probe<'g, G> {
    pub fn new(g: &'g G, dir: &Path) -> Self {
        Probe::with_whole_tier_bytes(g, dir, WHOLE_TIER_BYTES)
    }

    /// A probe that loads whole only the tiers of at most `limit` bytes.
    fn with_whole_tier_bytes(g: &'g G, dir: &Path, limit: u64) -> Self {
        Probe {
            g,
            store: TierStore::new(g, dir),
            cache: RefCell::new(HashMap::new()),
            files: qibase::tablebase::Tablebase::open(g, dir),
            whole_tier_bytes: limit,
        }
    }

    /// The stored value of `p` (side to move's view), the error in the
    /// command line's words.
    pub fn value(&self, p: &G::Pos) -> Result<Value, String> {
        self.lookup(p).map_err(|e| lookup_hint(&e))
    }

    /// The stored value of `p` (side to move's view).
    fn lookup(&self, p: &G::Pos) -> Result<Value, LookupError> {
        let g = self.g;
        let t = g.tier_of(p);
        if 2 * g.tier_size(t) > self.whole_tier_bytes {
            return Ok(self.files.probe(p)?);
        }
        let mut cache = self.cache.borrow_mut();
        if let Entry::Vacant(slot) = cache.entry(t) {
            slot.insert(self.store.load(t)?);
        }
        let i = g.rank(t, p) as usize;
        Value::unpack(cache[&t][i]).ok_or_else(|| {
            LookupError::Other(format!(
                "tier {} has no value for position {}",
                g.tier_name(t),
                g.format_pos(p)
            ))
        })
    }

    /// Every legal move with its value from the mover's view, best first
    /// (empty when the game is over).
    pub fn move_values(&self, p: &G::Pos) -> Result<Vec<(G::Move, Value)>, String> {
        Ok(analyse(self.g, self, p)
            .map_err(|e| lookup_hint(&e))?
            .moves
            .into_iter()
            .map(|m| (m.mv, m.value))
            .collect())
    }

    /// The principal variation of `query`, cut to at most `max_plies`.
    pub fn line(&self, p: &G::Pos, max_plies: usize) -> Result<Line<G>, String> {
        let mut pv = principal_variation(self.g, self, p).map_err(|e| lookup_hint(&e))?;
        pv.truncate(max_plies);
        Ok(pv.into_iter().map(|m| (m.mv, m.after)).collect())
    }
}

impl<G: Game> Oracle<G> for Probe<'_, G> {
    fn value(&self, p: &G::Pos) -> Result<Value, LookupError> {
        self.lookup(p)
    }
}

/// Generate `<out>/<game>.md` and its figures; returns the files written.
pub fn generate<G: ReportGame>(g: &G, opts: &ReportOptions) -> Result<Vec<PathBuf>, String> {
    check_complete(g, &opts.dir)?;
    let checkpoint = Checkpoint::new(g, &opts.dir, &opts.out, opts.checkpoint_every)?;
    generate_from(g, opts, checkpoint)
}

fn generate_from<G: ReportGame>(
    g: &G,
    opts: &ReportOptions,
    mut checkpoint: Checkpoint,
) -> Result<Vec<PathBuf>, String> {
    let bar = if opts.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0).with_style(
            ProgressStyle::with_template(
                "report [{elapsed_precise}] {bar:30} {pos}/{len} slots, {msg} eta {eta}",
            )
            .expect("a valid template"),
        )
    };
    let pass = stats::run(g, &opts.dir, &bar, &mut checkpoint)?;
    // The rest reads positions one by one (values of the start's moves,
    // lines, examples): short, but it loads the tiers they pass through.
    bar.set_message("values, lines and examples");
    let probe = Probe::new(g, &opts.dir);
    let doc = markdown::build(g, &pass, &probe, opts)?;
    drop(probe);
    bar.finish_and_clear();
    std::fs::create_dir_all(&opts.out)
        .map_err(|e| format!("cannot create {}: {e}", opts.out.display()))?;
    let mut written = Vec::new();
    let mut write = |name: &str, text: &str| -> Result<(), String> {
        // Through a temporary file and a rename, so that a reader (or an
        // interrupted run) never sees half a report.
        let path = opts.out.join(name);
        let tmp = opts.out.join(format!("{name}.tmp-{}", std::process::id()));
        let result = std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {}: {e}", path.display()));
        if result.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        result?;
        written.push(path);
        Ok(())
    };
    write(
        &format!("{}.md", markdown::file_stem(g.id())),
        &doc.markdown,
    )?;
    for (name, svg) in &doc.figures {
        write(name, svg)?;
    }
    checkpoint.clear()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use qibase::games::AnyGame;
    use qibase::solver::SolveOptions;
    use qibase::Tiers;

    fn report_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let name = e.file_name().into_string().unwrap();
                let bytes = std::fs::read(e.path()).unwrap_or_default();
                (name, bytes)
            })
            .collect();
        v.sort();
        v
    }

    /// A report stopped after some tiers resumes from its saved progress
    /// and writes the files of a report never stopped; damaged progress is
    /// an error, not a silent start over; another version's progress is
    /// dropped.
    #[test]
    fn a_stopped_report_resumes_to_the_same_files() {
        let base = std::env::temp_dir().join(format!("qibase-resume-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let any = AnyGame::from_id("two-cannons:board=4x3,soldiers=5").unwrap();
        let AnyGame::Cannons(g) = &any else {
            unreachable!()
        };
        let tiers = g.tiers(None).len();
        assert!(tiers >= 4, "a game of several tiers");
        let tb = base.join("tb");
        // The library's compiled solver: `solve_game` here would compile
        // the solver again in this test build.
        any.solve(&SolveOptions::new(&tb)).unwrap();
        let opts = |out: &str| ReportOptions {
            dir: tb.clone(),
            out: base.join(out),
            compare_dir: None,
            quiet: true,
            checkpoint_every: std::time::Duration::ZERO,
        };
        let whole = opts("whole");
        generate(g, &whole).unwrap();
        let expected = report_files(&whole.out);
        assert!(
            expected.iter().all(|(n, _)| !n.starts_with('.')),
            "a finished report leaves no progress: {:?}",
            expected.iter().map(|f| &f.0).collect::<Vec<_>>()
        );

        let resumed = opts("resumed");
        let checkpoint =
            |o: &ReportOptions| Checkpoint::new(g, &o.dir, &o.out, o.checkpoint_every).unwrap();
        let stop = 2;
        let err = generate_from(g, &resumed, checkpoint(&resumed).stop_after(stop)).unwrap_err();
        assert_eq!(err, format!("stopped after {stop} tiers"));
        let progress = resumed
            .out
            .join(".two-cannons@board=4x3,soldiers=5.report-progress");
        let saved = report_files(&progress);
        let bits: Vec<&String> = saved
            .iter()
            .map(|f| &f.0)
            .filter(|n| n.ends_with(".bits"))
            .collect();
        assert_eq!(
            bits.len(),
            tiers - stop,
            "one bitset per tier left: {bits:?}"
        );
        assert!(bits.iter().all(|n| n.starts_with(&format!("g{stop}-"))));

        // A truncated bitset or a flipped byte of the state stops the
        // resume with an error naming the directory.
        let restore = || {
            for (name, bytes) in &saved {
                std::fs::write(progress.join(name), bytes).unwrap();
            }
        };
        let bits_path = progress.join(bits[0]);
        let len = std::fs::metadata(&bits_path).unwrap().len();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&bits_path)
            .unwrap()
            .set_len(len - 1)
            .unwrap();
        let err = generate(g, &resumed).unwrap_err();
        assert!(
            err.starts_with("damaged progress of an interrupted report"),
            "{err}"
        );
        restore();
        let state = progress.join("state");
        let mut bytes = std::fs::read(&state).unwrap();
        bytes[20] ^= 0x40;
        std::fs::write(&state, bytes).unwrap();
        let err = generate(g, &resumed).unwrap_err();
        assert!(err.contains("checksum mismatch"), "{err}");
        restore();

        generate(g, &resumed).unwrap();
        assert_eq!(report_files(&resumed.out), expected);

        // Progress saved by another version is dropped, and the report
        // made from the start.
        let again = opts("again");
        generate_from(g, &again, checkpoint(&again).stop_after(stop)).unwrap_err();
        let state = again
            .out
            .join(".two-cannons@board=4x3,soldiers=5.report-progress/state");
        let mut bytes = std::fs::read(&state).unwrap();
        bytes[8] ^= 0x7f;
        std::fs::write(&state, bytes).unwrap();
        // Not even read: its bitsets are gone.
        for (name, _) in report_files(state.parent().unwrap()) {
            if name.ends_with(".bits") {
                std::fs::remove_file(state.with_file_name(name)).unwrap();
            }
        }
        generate(g, &again).unwrap();
        assert_eq!(report_files(&again.out), expected);
        let _ = std::fs::remove_dir_all(&base);
    }

    /// Tiers read from their files give the values, move values and lines
    /// of tiers loaded whole.
    #[test]
    fn probes_of_files_and_of_whole_tiers_agree() {
        let dir = std::env::temp_dir().join(format!("qibase-probe-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let any = AnyGame::from_id("weiming").unwrap();
        let AnyGame::Weiming(g) = &any else {
            unreachable!()
        };
        any.solve(&SolveOptions::new(&dir)).unwrap();
        let whole = Probe::new(g, &dir);
        let files = Probe::with_whole_tier_bytes(g, &dir, 0);
        let start = g.start();
        let line = whole.line(&start, 40).unwrap();
        assert!(line.len() > 3, "a line to follow");
        assert_eq!(files.line(&start, 40).unwrap(), line);
        for (_, p) in
            std::iter::once((None, start)).chain(line.into_iter().map(|(m, p)| (Some(m), p)))
        {
            assert_eq!(files.value(&p).unwrap(), whole.value(&p).unwrap());
            assert_eq!(
                files.move_values(&p).unwrap(),
                whole.move_values(&p).unwrap()
            );
        }
        assert!(!whole.cache.borrow().is_empty() && files.cache.borrow().is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
