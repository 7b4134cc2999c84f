//! [`Tablebase`]: read access to a game's solved tiers for lookups, files
//! opened on first use (through [`TierStore`]), blocks decoded on demand
//! and cached in the process-wide [`BlockCache`](super::BlockCache).
//!
//! A tier may also be in the compact format ([`super::compact`]), read
//! with no flag: where a tier has no fast file but a compact one, probes
//! settle what the compact file leaves out with the game's moves (the
//! best capture, the rules, a one-ply search for the half whose
//! remoteness is not kept).

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

mod compact;

use super::compact::{compact_path, CompactFile};
use super::{Mismatch, Missing, TbError, TierFile, TierStore};
use crate::game::{Game, TierKey};
use crate::value::{Value, Wdl};

/// An open tier: a fast file or a compact one.
enum Source {
    Fast(Arc<TierFile>),
    Compact(Arc<CompactFile>),
}

/// Read access to a game's solved tiers. Safe to share between threads.
pub struct Tablebase<'g, G: Game> {
    store: TierStore<'g, G>,
    /// The open files, by tier key (keys are small integers): a lookup is
    /// an index and an atomic load, with no lock and no reference count
    /// touched, so threads probing at once do not contend.
    files: Vec<OnceLock<Source>>,
}

impl<'g, G: Game> Tablebase<'g, G> {
    /// The tablebase of `game` under `dir`. No file is touched until a
    /// probe needs it.
    pub fn open(game: &'g G, dir: &Path) -> Tablebase<'g, G> {
        let keys = game
            .tiers(None)
            .into_iter()
            .max()
            .map_or(0, |k| k as usize + 1);
        Tablebase {
            store: TierStore::new(game, dir),
            files: (0..keys.min(1 << 16)).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The game.
    pub fn game(&self) -> &'g G {
        self.store.game()
    }

    /// The tablebase directory.
    pub fn dir(&self) -> &Path {
        self.store.dir()
    }

    /// The store the files are opened through.
    pub fn store(&self) -> &TierStore<'g, G> {
        &self.store
    }

    /// Where tier `t`'s file is.
    pub fn path_of(&self, t: TierKey) -> PathBuf {
        self.store.path(t)
    }

    /// The open fast file of tier `t` (opened and checked on first use).
    ///
    /// # Errors
    /// As [`TierStore::open`]; [`TbError::Foreign`] for a tier held in the
    /// compact format only (which has no slot-level file access).
    pub fn tier_file(&self, t: TierKey) -> Result<Arc<TierFile>, TbError> {
        match self.source(t)? {
            Source::Fast(f) => Ok(f.clone()),
            Source::Compact(c) => Err(TbError::foreign(c.path(), Mismatch::CompactOnly, true)),
        }
    }

    /// Open tier `t` in whichever format it is, checking its file.
    ///
    /// # Errors
    /// [`TbError::NotSolved`] if it has no file; the errors of opening it.
    pub fn open_tier(&self, t: TierKey) -> Result<(), TbError> {
        self.source(t).map(|_| ())
    }

    /// Whether `p`'s full value is read from its tier's file without a
    /// one-ply search: always for a fast file, and for the half of a
    /// compact tier that keeps its remoteness (every slot of a tier
    /// without halves). For benchmarks and diagnostics.
    ///
    /// # Errors
    /// As [`Tablebase::open_tier`].
    pub fn stores_full_value(&self, p: &G::Pos) -> Result<bool, TbError> {
        let g = self.game();
        let t = g.tier_of(p);
        Ok(match self.source(t)? {
            Source::Fast(_) => true,
            Source::Compact(c) => c.keeps(g, g.rank(t, p)),
        })
    }

    /// The open file of tier `t`, borrowed (the probes' path).
    #[inline]
    fn source(&self, t: TierKey) -> Result<&Source, TbError> {
        if let Some(f) = self.files.get(t as usize).and_then(OnceLock::get) {
            return Ok(f);
        }
        self.open_file(t)
    }

    #[cold]
    fn open_file(&self, t: TierKey) -> Result<&Source, TbError> {
        let Some(cell) = self.files.get(t as usize) else {
            return Err(TbError::NotSolved {
                path: self.path_of(t),
                dir: self.dir().to_path_buf(),
                game: self.game().id().to_string(),
                missing: Missing::NoTier { key: t },
            });
        };
        if cell.get().is_none() {
            let g = self.game();
            let compact = compact_path(self.dir(), g.id(), &g.tier_name(t));
            let source = if !self.store.has_file(t) && compact.exists() {
                Source::Compact(Arc::new(self.store.open_compact(t)?))
            } else {
                Source::Fast(Arc::new(self.store.open(t)?))
            };
            // Two threads may both open it; the first one stored wins.
            let _ = cell.set(source);
        }
        Ok(cell.get().expect("set above"))
    }

    /// Decode every solved tier of the game whole into memory (for a
    /// server); later probes read RAM. Returns the bytes held.
    ///
    /// # Errors
    /// As [`TierStore::open`] and [`TierFile::read_all`]; [`TbError::Io`]
    /// (out of memory) if the tiers would take more than `max_bytes`.
    pub fn preload(&self, max_bytes: u64) -> Result<u64, TbError> {
        let g = self.game();
        let mut total = 0u64;
        for t in g.tiers(None) {
            if !self.store.has_file(t) {
                continue;
            }
            let Source::Fast(f) = self.source(t)? else {
                continue;
            };
            total += f.meta().positions * 2;
            if total > max_bytes {
                return Err(TbError::io(
                    f.path(),
                    "cannot preload the tables",
                    std::io::Error::new(
                        std::io::ErrorKind::OutOfMemory,
                        format!("they need more than {max_bytes} bytes of memory"),
                    ),
                ));
            }
            f.preload()?;
        }
        Ok(total)
    }

    /// Win, draw or loss of `p` (side to move's view), from the WDL stream.
    ///
    /// # Errors
    /// [`TbError::NotSolved`] if `p`'s tier has no file; the errors of
    /// [`TierStore::open`] and [`TierFile::get_wdl`].
    pub fn probe_wdl(&self, p: &G::Pos) -> Result<Wdl, TbError> {
        let g = self.game();
        let t = g.tier_of(p);
        match self.source(t)? {
            Source::Fast(f) => f.get_wdl(g.rank(t, p)),
            Source::Compact(_) => self.compact_wdl(p),
        }
    }

    /// The exact value of `p` (side to move's view).
    ///
    /// # Errors
    /// As [`Tablebase::probe_wdl`], and [`TbError::Corrupt`] if `p`'s slot
    /// holds no value.
    pub fn probe(&self, p: &G::Pos) -> Result<Value, TbError> {
        let g = self.game();
        let t = g.tier_of(p);
        let f = match self.source(t)? {
            Source::Fast(f) => f,
            Source::Compact(c) => return self.compact_value(p, t, c),
        };
        let packed = f.get(g.rank(t, p))?;
        Value::unpack(packed).ok_or_else(|| {
            TbError::corrupt(
                f.path(),
                "position has no stored value (unused slot: corrupt table)",
            )
        })
    }
}
