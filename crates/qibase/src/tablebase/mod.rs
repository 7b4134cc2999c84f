//! Tablebase files: one compressed file per tier, written atomically, read
//! back whole by the solver (lower tiers) and probed position by position
//! by `query`, `play` and `report`.
//!
//! The format (version 5) is documented in `docs/tablebase-format.md`:
//! a fixed preamble (magic, format version, header length), a postcard
//! header (game, variant, rules hash, tier, slots, block size, the static
//! WDL context model, stats) with its checksum, a block index (two 4-byte
//! offsets and two checksums per block), then the blocks: small, each
//! decodable on its own, each its WDL stream (rANS, four slots per
//! symbol) followed by its remoteness stream (Rice codes, one slot found
//! by counting bits). Format 3 and 4 files are read only to be converted.
//!
//! * [`header`] — layout, header, index;
//! * [`checksum`] — xxh3 checksums;
//! * [`rans`] — the static-model entropy coder;
//! * [`model`] — the per-tier context model and block coding;
//! * [`rice`] — the remoteness stream of a block (format 5);
//! * [`writer`] — atomic writing;
//! * [`reader`] — memory-mapped reading, whole-tier decoding, probes;
//! * [`cache`] — the block cache shared by all tiers;
//! * [`v2`] — reading format 2 files for `qibase convert`;
//! * [`error`] — [`TbError`], one line naming the file.

pub mod cache;
pub mod checksum;
pub mod error;
pub mod header;
pub mod model;
pub mod rans;
pub mod reader;
pub mod rice;
pub mod v2;
pub mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::game::{Game, TierKey};
use crate::value::{Packed, Value, Wdl};

pub use error::{TbError, TbErrorKind};
pub use header::FORMAT_VERSION;
pub use reader::{file_version, read_v2, TierFile};
pub use writer::{write_tier_with, WriteOptions};

use error::{err, err_kind};

/// Statistics of one solved tier, stored in its header.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct TierStats {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Index slots that hold no position (symmetry reduction).
    pub unused: u64,
    pub max_win: u16,
    pub max_loss: u16,
    pub seconds: f64,
    pub threads: usize,
    /// Peak resident memory of the solving process when the tier was done
    /// (bytes; 0 if unknown).
    pub peak_rss: u64,
    /// Seconds of the solver's initial pass, of its propagation and of
    /// writing the file (0 when unknown). The header records the encoding
    /// part of the write (modelling, entropy coding, checksums), which is
    /// all of it but the sequential disk write that the header itself
    /// precedes; the solver's report has the whole write.
    pub init_seconds: f64,
    pub propagate_seconds: f64,
    pub write_seconds: f64,
}

/// What the header of a tier file says about the tier.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TierMeta {
    pub game: String,
    /// The canonical variant string (for a preset game just its id).
    pub variant: String,
    pub rules_hash: u64,
    pub tier: TierKey,
    pub tier_name: String,
    pub positions: u64,
    pub stats: TierStats,
}

/// `<dir>/<game>/<tier>.qtb`; a variant's `:` is written `@` in the
/// directory name (`three-cannons@immobility=static`), which every common
/// file system accepts. Preset ids are unchanged.
pub fn tier_path(dir: &Path, game_id: &str, tier_name: &str) -> PathBuf {
    dir.join(game_id.replace(':', "@"))
        .join(format!("{tier_name}.qtb"))
}

/// Write a tier file atomically (temp file, fsync, rename) in the default
/// encoding. Unused slots (packed 0) are "don't care": they read back as
/// some other value.
pub fn write_tier(path: &Path, meta: &TierMeta, values: &[Packed]) -> Result<(), TbError> {
    write_tier_with(path, meta, values, &WriteOptions::default()).map(|_| ())
}

/// Check a tier file's header, index and length (cheap: no block is read);
/// a valid header means a finished tier.
pub fn read_tier_meta(
    path: &Path,
    game: &str,
    rules_hash: u64,
    tier: TierKey,
) -> Result<TierMeta, TbError> {
    Ok(TierFile::open(path, game, rules_hash, tier)?.meta().clone())
}

/// Read a whole tier's packed values, decoding the blocks in parallel and
/// checking every checksum. Unused slots come back as arbitrary values.
pub fn read_tier_values(
    path: &Path,
    game: &str,
    rules_hash: u64,
    tier: TierKey,
) -> Result<Vec<Packed>, TbError> {
    TierFile::open(path, game, rules_hash, tier)?.read_all()
}

/// The `qibase solve` command that makes tier `t` of `g` in `dir`.
pub fn solve_command<G: Game>(g: &G, t: TierKey, dir: &Path) -> String {
    let full = g
        .tiers(None)
        .iter()
        .map(|&t| g.tier_max_pieces(t))
        .max()
        .unwrap_or(0);
    let need = g.tier_max_pieces(t);
    let mut cmd = format!("qibase solve {}", g.id());
    if need < full {
        cmd += &format!(" --max-pieces {need}");
    }
    if dir != Path::new("tablebases") {
        cmd += &format!(" --dir {}", dir.display());
    }
    cmd
}

/// Read access to a game's solved tiers: files opened on demand, blocks
/// decoded on demand and cached. Safe to share between threads.
pub struct Tablebase<'g, G: Game> {
    game: &'g G,
    dir: PathBuf,
    /// The open files, by tier key (keys are small integers): a lookup is
    /// an index and an atomic load, with no lock and no reference count
    /// touched, so threads probing at once do not contend.
    files: Vec<OnceLock<Arc<TierFile>>>,
}

impl<'g, G: Game> Tablebase<'g, G> {
    /// No file is touched until a probe needs it.
    pub fn open(game: &'g G, dir: &Path) -> Tablebase<'g, G> {
        Tablebase {
            game,
            dir: dir.to_path_buf(),
            files: {
                let keys = game
                    .tiers(None)
                    .into_iter()
                    .max()
                    .map_or(0, |k| k as usize + 1);
                (0..keys.min(1 << 16)).map(|_| OnceLock::new()).collect()
            },
        }
    }

    pub fn game(&self) -> &'g G {
        self.game
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path_of(&self, t: TierKey) -> PathBuf {
        tier_path(&self.dir, self.game.id(), &self.game.tier_name(t))
    }

    /// The open file of tier `t` (opened and header-checked on first use).
    pub fn tier_file(&self, t: TierKey) -> Result<Arc<TierFile>, TbError> {
        self.file(t).cloned()
    }

    /// The open file of tier `t`, borrowed (the probes' path).
    #[inline]
    fn file(&self, t: TierKey) -> Result<&Arc<TierFile>, TbError> {
        if let Some(f) = self.files.get(t as usize).and_then(OnceLock::get) {
            return Ok(f);
        }
        self.open_file(t)
    }

    #[cold]
    fn open_file(&self, t: TierKey) -> Result<&Arc<TierFile>, TbError> {
        let Some(cell) = self.files.get(t as usize) else {
            return Err(err_kind(
                TbErrorKind::NotSolved,
                &self.path_of(t),
                format!("tier key {t} is not a tier of {}", self.game.id()),
            ));
        };
        if cell.get().is_none() {
            // Two threads may both open it; the first one stored wins.
            let _ = cell.set(Arc::new(self.open_tier(t)?));
        }
        Ok(cell.get().expect("set above"))
    }

    /// Open and check tier `t`'s file.
    fn open_tier(&self, t: TierKey) -> Result<TierFile, TbError> {
        let g = self.game;
        let path = self.path_of(t);
        if !path.exists() {
            return Err(err_kind(
                TbErrorKind::NotSolved,
                &path,
                format!(
                    "tier {} of {} is not solved (no such file; `{}` makes it)",
                    g.tier_name(t),
                    g.id(),
                    solve_command(g, t, &self.dir)
                ),
            ));
        }
        let f = TierFile::open(&path, g.id(), g.rules_hash(), t)?;
        if f.meta().positions != g.tier_size(t) {
            return Err(err_kind(
                TbErrorKind::Foreign,
                &path,
                format!(
                    "file has {} positions but tier {} has {}: made by another qibase, solve again",
                    f.meta().positions,
                    g.tier_name(t),
                    g.tier_size(t)
                ),
            ));
        }
        Ok(f)
    }

    /// Decode every solved tier of the game whole into memory (for a
    /// server); later probes read RAM. Returns the bytes held. Stops with
    /// an error if they would exceed `max_bytes`.
    pub fn preload(&self, max_bytes: u64) -> Result<u64, TbError> {
        let g = self.game;
        let mut total = 0u64;
        for t in g.tiers(None) {
            if !self.path_of(t).exists() {
                continue;
            }
            let f = self.tier_file(t)?;
            total += f.meta().positions * 2;
            if total > max_bytes {
                return Err(err_kind(
                    TbErrorKind::Io,
                    f.path(),
                    format!("preloading the tables needs more than {max_bytes} bytes of memory"),
                ));
            }
            f.preload()?;
        }
        Ok(total)
    }

    /// Win, draw or loss of `p` (side to move's view), from the WDL section.
    pub fn probe_wdl(&self, p: &G::Pos) -> Result<Wdl, TbError> {
        let t = self.game.tier_of(p);
        self.file(t)?.get_wdl(self.game.rank(t, p))
    }

    /// The exact value of `p` (side to move's view).
    pub fn probe(&self, p: &G::Pos) -> Result<Value, TbError> {
        let t = self.game.tier_of(p);
        let f = self.file(t)?;
        let packed = f.get(self.game.rank(t, p))?;
        Value::unpack(packed).ok_or_else(|| {
            err(
                f.path(),
                "position has no stored value (unused slot: corrupt table)",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(n: u64) -> TierMeta {
        TierMeta {
            game: "test".into(),
            variant: "test".into(),
            rules_hash: 42,
            tier: 7,
            tier_name: "t7".into(),
            positions: n,
            stats: TierStats::default(),
        }
    }

    #[test]
    fn file_round_trip_and_cached_probes() {
        let dir = std::env::temp_dir().join(format!("qibase-tbunit-{}", std::process::id()));
        let path = tier_path(&dir, "test", "t7");
        let n = 200_003u64;
        let values: Vec<Packed> = (0..n)
            .map(|i| match i % 11 {
                0 => 0,
                1..=5 => 1,
                k => (2 + (i * k) % 300) as Packed,
            })
            .collect();
        for opts in [
            WriteOptions::default(),
            WriteOptions { block_size: 1000 },
            WriteOptions { block_size: 1 },
            WriteOptions {
                block_size: 100_000,
            },
        ] {
            let len = write_tier_with(&path, &meta(n), &values, &opts).unwrap();
            assert_eq!(len, std::fs::metadata(&path).unwrap().len());
            // Everything comes back, the encoding time recorded on top.
            let mut read = read_tier_meta(&path, "test", 42, 7).unwrap();
            assert!(read.stats.write_seconds > 0.0);
            read.stats.write_seconds = 0.0;
            assert_eq!(read, meta(n));
            let back = read_tier_values(&path, "test", 42, 7).unwrap();
            let f = TierFile::open(&path, "test", 42, 7).unwrap();
            // Blocks larger than a cache slot decode on every probe: sample fewer.
            let step = if opts.block_size > 4096 { 997 } else { 7 };
            for i in (0..n as usize).rev().step_by(step) {
                if values[i] != 0 {
                    assert_eq!(back[i], values[i]);
                    // First miss, second miss (admitted), then a hit.
                    for _ in 0..3 {
                        assert_eq!(f.get(i as u64).unwrap(), values[i]);
                    }
                    let v = Value::unpack(values[i]).unwrap();
                    assert_eq!(f.get_wdl(i as u64).unwrap(), v.wdl());
                }
            }
            assert!(f.get(n).is_err());
            assert!(read_tier_meta(&path, "other", 42, 7).is_err());
            assert!(read_tier_meta(&path, "test", 43, 7).is_err());
            assert!(read_tier_meta(&path, "test", 42, 8).is_err());
        }
        // Empty tier, wrong length refused, no temp file left behind.
        write_tier(&path, &meta(0), &[]).unwrap();
        assert!(read_tier_values(&path, "test", 42, 7).unwrap().is_empty());
        assert!(write_tier(&path, &meta(5), &[1, 1]).is_err());
        let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 1, "{left:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
