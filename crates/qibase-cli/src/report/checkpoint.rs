//! The report's pass over a large game takes hours (the 6×5 two-cannons:
//! 19 G slots), so it saves its progress and a run that is stopped resumes
//! at the first tier it had not finished, with the same output as a run
//! that was never stopped.
//!
//! What a resume needs after the tiers done so far: their results, and the
//! reachability bits of every tier still to do (the tiers done have marked
//! their capture targets in them). Both go to a directory next to the
//! report, `<out>/.<game>.report-progress/`:
//! * `g<N>-<tier>.bits`: the bitset of a tier still to do, its words in
//!   little-endian order, as of generation `N` (the number of tiers done);
//! * `state`: a magic word and the layout's version, then the tiers'
//!   results and the identity of the tables they were computed from (each
//!   tier file's header and length) as a postcard body, then the body's
//!   xxh3. It is replaced (write, sync,
//!   rename) once the generation's bit files are synced, so it never names
//!   files that are not complete; older generations are removed after.
//!
//! Saving costs a write of the bitsets left (at most an eighth of a byte
//! per slot), so it happens after a tier only when the last save is a
//! while back. Progress of other tables, another game or another format is
//! dropped with a notice; a damaged state is an error that says what to
//! remove.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use super::reach::Reach;
use super::stats::TierResult;
use super::ReportGame;
use qibase::tablebase::{TierMeta, TierStore};
use qibase::TierKey;

/// The start of `state`.
const MAGIC: &[u8; 8] = b"QBREPORT";
/// The layout of `state`; a state of another layout is not resumed from.
const FORMAT: u32 = 1;
/// Bytes of `state` around its body: magic, format, checksum.
const FRAME: usize = 8 + 4 + 8;

/// How often a long report saves its progress by default.
pub const DEFAULT_EVERY: Duration = Duration::from_secs(600);

/// The tables a report was computed from: per tier, its header and its
/// file's length. A re-solved tier differs at least in its measured
/// seconds.
type TablesId = Vec<(TierMeta, u64)>;

#[derive(Serialize, Deserialize)]
struct State {
    game: String,
    tables: TablesId,
    /// Results of the tiers done, in the pass's order (most material first).
    done: Vec<TierResult>,
}

/// Saves and restores the pass's progress.
pub struct Checkpoint {
    dir: PathBuf,
    every: Duration,
    last_save: Instant,
    tables: TablesId,
    game: String,
    /// Tests: stop with an error once this many tiers are done and saved.
    stop_after: Option<usize>,
}

impl Checkpoint {
    /// The progress directory of `g`'s report in `out`; saves at most once
    /// per `every` (zero: after every tier).
    pub fn new<G: ReportGame>(
        g: &G,
        tables: &Path,
        out: &Path,
        every: Duration,
    ) -> Result<Checkpoint, String> {
        let store = TierStore::new(g, tables);
        let mut id = Vec::new();
        for t in g.tiers(None) {
            let file = store.open(t).map_err(|e| crate::hint::hint(&e))?;
            id.push((file.meta().clone(), file.file_len()));
        }
        Ok(Checkpoint {
            dir: out.join(format!(
                ".{}.report-progress",
                super::markdown::file_stem(g.id())
            )),
            every,
            last_save: Instant::now(),
            tables: id,
            game: g.id().to_string(),
            stop_after: None,
        })
    }

    /// Stop with an error after `n` tiers, their progress saved (tests).
    #[cfg(test)]
    pub fn stop_after(mut self, n: usize) -> Checkpoint {
        self.stop_after = Some(n);
        self
    }

    /// The results of the tiers a previous run finished, with `reach`
    /// restored to where it stood; empty if there is nothing to resume.
    /// `order` is the pass's order of tiers.
    pub fn resume<G: ReportGame>(
        &self,
        g: &G,
        order: &[TierKey],
        reach: &mut Reach,
    ) -> Result<Vec<TierResult>, String> {
        let path = self.dir.join("state");
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let damaged = |what: &str| {
            format!(
                "damaged progress of an interrupted report in {} ({what}): remove the directory to start the report over",
                self.dir.display()
            )
        };
        if bytes.len() < FRAME || &bytes[..8] != MAGIC {
            return Err(damaged("not a report's progress"));
        }
        let drop_it = |of: &str| -> Result<Vec<TierResult>, String> {
            eprintln!(
                "the saved progress in {} is of {of}: the report starts over",
                self.dir.display()
            );
            self.clear()?;
            Ok(Vec::new())
        };
        if bytes[8..12] != FORMAT.to_le_bytes() {
            return drop_it("another version of qibase");
        }
        let (body, sum) = bytes[12..].split_at(bytes.len() - FRAME);
        if xxh3_64(body).to_le_bytes() != sum {
            return Err(damaged("checksum mismatch"));
        }
        let state: State = postcard::from_bytes(body).map_err(|_| damaged("unreadable state"))?;
        if state.game != self.game || state.tables != self.tables {
            return drop_it("other tables");
        }
        let n = state.done.len();
        if n > order.len() || state.done.iter().zip(order).any(|(r, &t)| r.tier != t) {
            return Err(damaged("tiers out of order"));
        }
        for &t in &order[n..] {
            let path = self.bits_path(n, g, t);
            let want = reach.word_count(t);
            let file =
                File::open(&path).map_err(|e| damaged(&format!("{}: {e}", path.display())))?;
            let len = file
                .metadata()
                .map_err(|e| damaged(&format!("{}: {e}", path.display())))?
                .len();
            if len != 8 * want as u64 {
                return Err(damaged(&format!("{} has a wrong length", path.display())));
            }
            let mut words = Vec::with_capacity(want);
            let mut r = BufReader::with_capacity(1 << 20, file);
            let mut w = [0u8; 8];
            for _ in 0..want {
                r.read_exact(&mut w)
                    .map_err(|e| damaged(&format!("{}: {e}", path.display())))?;
                words.push(u64::from_le_bytes(w));
            }
            reach.restore(t, words);
        }
        Ok(state.done)
    }

    /// Called after each tier: saves the progress if it is due.
    pub fn after_tier<G: ReportGame>(
        &mut self,
        g: &G,
        order: &[TierKey],
        done: &[TierResult],
        reach: &Reach,
    ) -> Result<(), String> {
        if self.last_save.elapsed() >= self.every && done.len() < order.len() {
            self.save(g, order, done, reach)?;
            self.last_save = Instant::now();
        }
        if self.stop_after == Some(done.len()) {
            return Err(format!("stopped after {} tiers", done.len()));
        }
        Ok(())
    }

    fn save<G: ReportGame>(
        &self,
        g: &G,
        order: &[TierKey],
        done: &[TierResult],
        reach: &Reach,
    ) -> Result<(), String> {
        let io = |p: &Path, e: std::io::Error| {
            format!("cannot save the report's progress to {}: {e}", p.display())
        };
        std::fs::create_dir_all(&self.dir).map_err(|e| io(&self.dir, e))?;
        let n = done.len();
        for &t in &order[n..] {
            let path = self.bits_path(n, g, t);
            let write = || -> std::io::Result<()> {
                let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
                for word in reach.words(t) {
                    w.write_all(&word.to_le_bytes())?;
                }
                w.into_inner().map_err(|e| e.into_error())?.sync_all()
            };
            write().map_err(|e| io(&path, e))?;
        }
        let state = State {
            game: self.game.clone(),
            tables: self.tables.clone(),
            done: done.to_vec(),
        };
        let body = postcard::to_allocvec(&state).expect("the state serialises");
        let mut bytes = Vec::with_capacity(body.len() + FRAME);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT.to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes.extend_from_slice(&xxh3_64(&body).to_le_bytes());
        let path = self.dir.join("state");
        let tmp = self.dir.join("state.tmp");
        let write = || -> std::io::Result<()> {
            let mut f = File::create(&tmp)?;
            f.write_all(&bytes)?;
            f.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            File::open(&self.dir)?.sync_all()
        };
        write().map_err(|e| io(&path, e))?;
        // The state names generation `n` now: the older ones are garbage.
        let current = format!("g{n}-");
        for e in std::fs::read_dir(&self.dir).map_err(|e| io(&self.dir, e))? {
            let e = e.map_err(|e| io(&self.dir, e))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".bits") && !name.starts_with(&current) {
                std::fs::remove_file(e.path()).map_err(|err| io(&e.path(), err))?;
            }
        }
        Ok(())
    }

    /// Remove the saved progress (the report is written, or the progress
    /// is of other tables).
    pub fn clear(&self) -> Result<(), String> {
        match std::fs::remove_dir_all(&self.dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(format!("cannot remove {}: {e}", self.dir.display())),
        }
    }

    fn bits_path<G: ReportGame>(&self, generation: usize, g: &G, t: TierKey) -> PathBuf {
        self.dir
            .join(format!("g{generation}-{}.bits", g.tier_name(t)))
    }
}
