//! What an out-of-core tier leaves on disk so that a solve stopped in its
//! levels (killed, out of disk, asked to stop) resumes from its last
//! checkpoint instead of from the start of the tier: on the largest tiers
//! the levels take hours.
//!
//! The tier's state words are updated in place in its raw file, so the
//! file alone cannot say how far the levels got. Three files in the
//! tier's work directory can:
//! * the *start record*, written once the initial pass is done: the side
//!   table of long lower-tier wins, where the queue of tentative wins lies
//!   in its file (all of it on disk from then on, and only read), and the
//!   pass's seconds and touches;
//! * the *level record*: the next level to run, the checkpoint's epoch,
//!   the touches and seconds so far. It is replaced (write, sync, rename)
//!   at each checkpoint, after the raw file is synced;
//! * the *undo log*: before a region of the raw file is first overwritten
//!   after a checkpoint, its words as they were at the checkpoint are
//!   appended, tagged with the epoch, and synced. A resume writes them
//!   back, so the raw file is again the one the level record describes.
//!
//! The queue of decided positions is not saved: once level `L` is done,
//! the positions waiting in it are exactly those decided with a
//! remoteness above `L`, so a resume rebuilds it from the raw file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use super::files::{QueueIndex, RawArray};
use crate::tablebase::TbError;

/// The version of the records' layout: a resume reads only its own.
const FORMAT: u32 = 1;
const MAGIC: &[u8; 8] = b"QBRESUME";

/// The start record's file in a tier's work directory.
const START: &str = "start";
/// The level record's file.
const LEVEL: &str = "level";
/// The undo log's file.
pub(super) const UNDO: &str = "undo";

/// What the initial pass leaves for the levels.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(in crate::solver) struct StartRecord {
    /// The tier's identity (game, rules, tier, slots): a record of
    /// anything else is not resumed from.
    pub tier: String,
    pub init_seconds: f64,
    pub touches: u64,
    /// Open states whose longest lower-tier win does not fit their word.
    pub saturated: Vec<(u64, u16)>,
    /// The queue of tentative wins, all in its file.
    pub tentative: QueueIndex,
}

/// How far the levels got at the last checkpoint.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub(in crate::solver) struct LevelRecord {
    pub tier: String,
    /// Bumped at each checkpoint; the undo log's records carry it.
    pub epoch: u64,
    /// The first level not done.
    pub next_level: u64,
    pub touches: u64,
    pub propagate_seconds: f64,
}

/// A tier's records, read back for a resume.
#[derive(Clone, Debug)]
pub(in crate::solver) struct Checkpoint {
    pub start: StartRecord,
    pub level: LevelRecord,
}

/// The checkpoint of tier `tier` in `work`, if it has one it can resume
/// from: both records present and of this tier. `None` if there is none
/// or it is of another tier (scratch left by another build or rules: the
/// tier starts over); an error if a record is damaged.
pub(in crate::solver) fn load(work: &Path, tier: &str) -> Result<Option<Checkpoint>, TbError> {
    let (Some(start), Some(level)) = (
        read_record::<StartRecord>(&work.join(START))?,
        read_record::<LevelRecord>(&work.join(LEVEL))?,
    ) else {
        return Ok(None);
    };
    if start.tier != tier || level.tier != tier {
        return Ok(None);
    }
    Ok(Some(Checkpoint { start, level }))
}

/// The level a checkpoint in `work` resumes at, if it has a readable one.
pub(in crate::solver) fn next_level(work: &Path) -> Option<u64> {
    Some(
        read_record::<LevelRecord>(&work.join(LEVEL))
            .ok()??
            .next_level,
    )
}

/// Whether `work` holds a level record (a checkpoint worth keeping).
pub(in crate::solver) fn exists(work: &Path) -> bool {
    work.join(LEVEL).is_file() && work.join(START).is_file()
}

/// Remove the records in `work`, so a new start of the tier cannot be
/// mistaken for the old one's checkpoint.
pub(super) fn forget(work: &Path) -> Result<(), TbError> {
    for name in [LEVEL, START] {
        let path = work.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(TbError::io(&path, "cannot remove checkpoint", e)),
        }
    }
    Ok(())
}

pub(super) fn save_start(work: &Path, r: &StartRecord) -> Result<(), TbError> {
    write_record(&work.join(START), r)
}

pub(super) fn save_level(work: &Path, r: &LevelRecord) -> Result<(), TbError> {
    write_record(&work.join(LEVEL), r)
}

/// A record's file: magic, format, length, postcard body, xxh3 of the body.
fn write_record<T: Serialize>(path: &Path, r: &T) -> Result<(), TbError> {
    let body = postcard::to_allocvec(r).expect("records serialise");
    let mut bytes = Vec::with_capacity(body.len() + 28);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT.to_le_bytes());
    bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&body);
    bytes.extend_from_slice(&xxh3_64(&body).to_le_bytes());
    let tmp = path.with_extension("tmp");
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent() {
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    };
    write().map_err(|e| TbError::io(path, "cannot write checkpoint", e))
}

fn read_record<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>, TbError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(TbError::io(path, "cannot read checkpoint", e)),
    };
    let damaged = || {
        TbError::Corrupt {
        path: path.to_path_buf(),
        what: "damaged checkpoint of an interrupted solve (remove its directory to solve the tier from the start)".into(),
    }
    };
    if bytes.len() < 28 || &bytes[..8] != MAGIC {
        return Err(damaged());
    }
    if u32::from_le_bytes(bytes[8..12].try_into().unwrap()) != FORMAT {
        // Another build's checkpoint: not this one's to read.
        return Ok(None);
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().unwrap());
    if len != bytes.len() as u64 - 28 {
        return Err(damaged());
    }
    let body = &bytes[20..bytes.len() - 8];
    let sum = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap());
    if xxh3_64(body) != sum {
        return Err(damaged());
    }
    postcard::from_bytes(body).map(Some).map_err(|_| damaged())
}

/// Bytes of an undo record's header: epoch, first word, words.
const UNDO_HEADER: usize = 24;
/// Words an undo record holds at most: records are read and written
/// through buffers of this size, whatever the windows' size.
const UNDO_RECORD_WORDS: u64 = 1 << 22;

/// The words of the raw file's regions as they were at the last
/// checkpoint, for those overwritten since.
pub(super) struct UndoLog {
    file: File,
    path: PathBuf,
    end: u64,
    epoch: u64,
    /// Per region, whether its words at the checkpoint are in the log.
    saved: Vec<bool>,
    /// Whether records were appended since the last sync.
    unsynced: bool,
}

impl UndoLog {
    /// An empty log of checkpoint `epoch` over `regions` regions.
    pub fn create(path: &Path, regions: usize, epoch: u64) -> Result<UndoLog, TbError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| TbError::io(path, "cannot create undo log", e))?;
        Ok(UndoLog {
            file,
            path: path.to_path_buf(),
            end: 0,
            epoch,
            saved: vec![false; regions],
            unsynced: false,
        })
    }

    /// Save the words of regions `regions` (of `1 << shift` slots; the
    /// last may be short) not yet saved since the checkpoint. Call
    /// [`UndoLog::sync`] before overwriting them.
    pub fn save(
        &mut self,
        raw: &RawArray,
        regions: std::ops::Range<usize>,
        shift: u32,
    ) -> Result<(), TbError> {
        let n = raw.len();
        let mut r = regions.start;
        while r < regions.end {
            if self.saved[r] {
                r += 1;
                continue;
            }
            // A run of unsaved regions, cut to the record's size.
            let most = (UNDO_RECORD_WORDS >> shift).max(1) as usize;
            let end = r + self.saved[r..regions.end]
                .iter()
                .take(most)
                .take_while(|&&s| !s)
                .count();
            let (lo, hi) = (((r as u64) << shift).min(n), ((end as u64) << shift).min(n));
            let mut words = vec![0u16; (hi - lo) as usize];
            raw.read(lo, &mut words)?;
            let mut rec = Vec::with_capacity(UNDO_HEADER + 2 * words.len() + 8);
            rec.extend_from_slice(&self.epoch.to_le_bytes());
            rec.extend_from_slice(&lo.to_le_bytes());
            rec.extend_from_slice(&(words.len() as u64).to_le_bytes());
            rec.extend(words.iter().flat_map(|w| w.to_le_bytes()));
            let sum = xxh3_64(&rec);
            rec.extend_from_slice(&sum.to_le_bytes());
            self.file
                .write_all_at(&rec, self.end)
                .map_err(|e| TbError::io(&self.path, "cannot write undo log", e))?;
            self.end += rec.len() as u64;
            self.unsynced = true;
            self.saved[r..end].fill(true);
            r = end;
        }
        Ok(())
    }

    /// Make the saved words durable (nothing to do if none were saved
    /// since the last time: most write-backs of a long tail of small
    /// levels save nothing new).
    pub fn sync(&mut self) -> Result<(), TbError> {
        if !self.unsynced {
            return Ok(());
        }
        self.file
            .sync_data()
            .map_err(|e| TbError::io(&self.path, "cannot sync undo log", e))?;
        self.unsynced = false;
        Ok(())
    }

    /// Start over after checkpoint `epoch`: nothing saved.
    pub fn reset(&mut self, epoch: u64) -> Result<(), TbError> {
        self.file
            .set_len(0)
            .map_err(|e| TbError::io(&self.path, "cannot truncate undo log", e))?;
        self.end = 0;
        self.epoch = epoch;
        self.unsynced = false;
        self.saved.fill(false);
        Ok(())
    }
}

/// Write the words of checkpoint `epoch` saved in the undo log at `path`
/// back into `raw`, and sync it. The records of one checkpoint cover
/// distinct regions (each is saved once), so their order does not matter
/// and they are read one at a time. Records of other epochs (left when a
/// checkpoint was made but the log not yet emptied) are skipped, and so
/// is a torn last record (its region was never overwritten: the log is
/// synced first). Returns the words restored.
pub(super) fn replay(path: &Path, raw: &RawArray, epoch: u64) -> Result<u64, TbError> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(TbError::io(path, "cannot read undo log", e)),
    };
    let size = file
        .metadata()
        .map_err(|e| TbError::io(path, "cannot read undo log", e))?
        .len();
    let read = |at: u64, buf: &mut [u8]| {
        file.read_exact_at(buf, at)
            .map_err(|e| TbError::io(path, "cannot read undo log", e))
    };
    let mut restored = 0;
    let mut at = 0u64;
    let mut rec = Vec::new();
    let mut words = Vec::new();
    while at + UNDO_HEADER as u64 <= size {
        let mut header = [0u8; UNDO_HEADER];
        read(at, &mut header)?;
        let field = |k: usize| u64::from_le_bytes(header[8 * k..8 * k + 8].try_into().unwrap());
        let (e, lo, len) = (field(0), field(1), field(2));
        let whole = UNDO_HEADER as u64 + 2 * len + 8;
        if len > UNDO_RECORD_WORDS || at + whole > size {
            break;
        }
        rec.clear();
        rec.extend_from_slice(&header);
        rec.resize(whole as usize, 0);
        read(at + UNDO_HEADER as u64, &mut rec[UNDO_HEADER..])?;
        let (body, sum) = rec.split_at(rec.len() - 8);
        if xxh3_64(body) != u64::from_le_bytes(sum.try_into().unwrap())
            || lo.checked_add(len).is_none_or(|h| h > raw.len())
        {
            break;
        }
        if e == epoch {
            words.clear();
            words.extend(
                body[UNDO_HEADER..]
                    .chunks_exact(2)
                    .map(|w| u16::from_le_bytes([w[0], w[1]])),
            );
            raw.write(lo, &words)?;
            restored += len;
        }
        at += whole;
    }
    raw.sync()?;
    Ok(restored)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("qibase-ckpt-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn records_round_trip_and_damage_is_named() {
        let d = dir("records");
        assert!(load(&d, "k3").unwrap().is_none(), "nothing yet");
        let start = StartRecord {
            tier: "k3".into(),
            init_seconds: 1.5,
            touches: 7,
            saturated: vec![(3, 200)],
            tentative: QueueIndex::default(),
        };
        let level = LevelRecord {
            tier: "k3".into(),
            epoch: 2,
            next_level: 9,
            touches: 11,
            propagate_seconds: 0.25,
        };
        save_start(&d, &start).unwrap();
        assert!(load(&d, "k3").unwrap().is_none(), "no level record yet");
        save_level(&d, &level).unwrap();
        let c = load(&d, "k3").unwrap().unwrap();
        assert_eq!((c.start, c.level), (start, level));
        assert!(load(&d, "k4").unwrap().is_none(), "another tier's");
        // One flipped byte of the body.
        let mut b = std::fs::read(d.join(LEVEL)).unwrap();
        b[22] ^= 1;
        std::fs::write(d.join(LEVEL), &b).unwrap();
        let e = load(&d, "k3").unwrap_err();
        assert!(e.to_string().contains("damaged checkpoint"), "{e}");
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn the_undo_log_restores_the_checkpoint_words() {
        let d = dir("undo");
        let raw = RawArray::zeroed(&d.join("raw"), 10).unwrap();
        raw.write(0, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).unwrap();
        // Regions of 4 slots: 0..4, 4..8, 8..10.
        let mut undo = UndoLog::create(&d.join(UNDO), 3, 5).unwrap();
        undo.save(&raw, 1..3, 2).unwrap();
        undo.sync().unwrap();
        raw.write(4, &[40, 50, 60, 70, 80, 90]).unwrap();
        // Saved once: a second overwrite keeps the checkpoint's words.
        undo.save(&raw, 0..3, 2).unwrap();
        raw.write(0, &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        // A torn record at the end is skipped.
        let len = std::fs::metadata(d.join(UNDO)).unwrap().len();
        let f = OpenOptions::new().write(true).open(d.join(UNDO)).unwrap();
        f.write_all_at(&5u64.to_le_bytes(), len).unwrap();
        assert_eq!(replay(&d.join(UNDO), &raw, 5).unwrap(), 10);
        let mut out = [0u16; 10];
        raw.read(0, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        // Another epoch's records are not replayed.
        raw.write(0, &[9; 10]).unwrap();
        assert_eq!(replay(&d.join(UNDO), &raw, 6).unwrap(), 0);
        raw.read(0, &mut out).unwrap();
        assert_eq!(out, [9; 10]);
        undo.reset(6).unwrap();
        assert_eq!(std::fs::metadata(d.join(UNDO)).unwrap().len(), 0);
        drop(raw);
        std::fs::remove_dir_all(d).unwrap();
    }
}
