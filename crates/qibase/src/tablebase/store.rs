//! [`TierStore`]: the tier files of one game in one directory, and the one
//! place that opens a tier with every check (game, rules, tier, slot
//! count) and reads whole tiers. The solver (lower tiers), `verify`, the
//! report and the prober ([`super::Tablebase`]) all go through it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::compact::{compact_path, CompactFile};
use super::{tier_path, Missing, TbError, TierFile, TierMeta};
use crate::game::{Game, TierKey};
use crate::tier_values::TierValues;
use crate::value::Packed;

/// The tier files of `game` under `dir` (`<dir>/<game>/<tier>.qtb`).
pub struct TierStore<'g, G: Game> {
    game: &'g G,
    dir: PathBuf,
}

impl<'g, G: Game> TierStore<'g, G> {
    /// The store of `game`'s tiers under `dir`; nothing is read yet.
    pub fn new(game: &'g G, dir: &Path) -> TierStore<'g, G> {
        TierStore {
            game,
            dir: dir.to_path_buf(),
        }
    }

    /// The game.
    pub fn game(&self) -> &'g G {
        self.game
    }

    /// The tablebase directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where tier `t`'s file is (or would be).
    pub fn path(&self, t: TierKey) -> PathBuf {
        tier_path(&self.dir, self.game.id(), &self.game.tier_name(t))
    }

    /// Whether tier `t` has a file (checked or not).
    pub fn has_file(&self, t: TierKey) -> bool {
        self.path(t).exists()
    }

    /// The pieces a side of the smallest closed subset that holds tier
    /// `t`: `None` when only the whole game does.
    fn subset_of(&self, t: TierKey) -> Option<u32> {
        let g = self.game;
        let full = g
            .tiers(None)
            .iter()
            .map(|&t| g.tier_max_pieces(t))
            .max()
            .unwrap_or(0);
        let need = g.tier_max_pieces(t);
        (need < full).then_some(need)
    }

    /// The error of tier `t` having no file at `path`.
    fn not_solved(&self, t: TierKey, path: PathBuf) -> TbError {
        TbError::NotSolved {
            path,
            dir: self.dir.clone(),
            game: self.game.id().to_string(),
            missing: Missing::Tier {
                name: self.game.tier_name(t),
                max_pieces: self.subset_of(t),
            },
        }
    }

    /// Open tier `t`'s file, checking its header, its length, and that
    /// it holds this tier of this game under these rules with the tier's
    /// slot count. No block is read.
    ///
    /// # Errors
    /// [`TbError::NotSolved`] (with the subset whose solve makes it) if
    /// there is no file; otherwise as [`TierFile::open`], and
    /// [`TbError::Foreign`] for a file with another slot count (made by a
    /// qibase that numbers the tier differently).
    pub fn open(&self, t: TierKey) -> Result<TierFile, TbError> {
        let g = self.game;
        let path = self.path(t);
        let f = TierFile::open(&path, g.id(), g.rules_hash(), t).map_err(|e| match e {
            TbError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                self.not_solved(t, path.clone())
            }
            e => e,
        })?;
        f.meta().check(
            &path,
            g.id(),
            g.rules_hash(),
            t,
            Some(g.tier_size(t)),
            false,
        )?;
        Ok(f)
    }

    /// What tier `t`'s header says (a valid header means a finished tier).
    ///
    /// # Errors
    /// As [`TierStore::open`].
    pub fn meta(&self, t: TierKey) -> Result<TierMeta, TbError> {
        Ok(self.open(t)?.meta().clone())
    }

    /// Tier `t`'s packed values, every block decoded (in parallel) and
    /// every checksum checked. Unused slots read back as draws.
    ///
    /// # Errors
    /// As [`TierStore::open`], and [`TierFile::read_all`]'s errors.
    pub fn load(&self, t: TierKey) -> Result<Vec<Packed>, TbError> {
        self.open(t)?.read_all()
    }

    /// Where tier `t`'s compact file is (or would be).
    pub fn compact_path(&self, t: TierKey) -> PathBuf {
        compact_path(&self.dir, self.game.id(), &self.game.tier_name(t))
    }

    /// Whether tier `t` has a file in either format.
    pub fn has_any_file(&self, t: TierKey) -> bool {
        self.has_file(t) || self.compact_path(t).exists()
    }

    /// Open tier `t`'s compact file, with the checks of
    /// [`TierStore::open`].
    ///
    /// # Errors
    /// As [`CompactFile::open`], and [`TbError::Foreign`] for a file with
    /// another slot count.
    pub fn open_compact(&self, t: TierKey) -> Result<CompactFile, TbError> {
        let g = self.game;
        let path = self.compact_path(t);
        let c = CompactFile::open(&path, g.id(), g.rules_hash(), t)?;
        c.header()
            .meta
            .check(&path, g.id(), g.rules_hash(), t, Some(g.tier_size(t)), true)?;
        Ok(c)
    }

    /// Tier `t`'s packed values, from its fast file or, where it has none,
    /// from its compact file: resolved with the values of the tiers it
    /// depends on, which are loaded the same way first. Every tier loaded
    /// is put in `held` (and taken from there when it is already in it),
    /// so a caller going through the tiers in order decodes each once and
    /// keeps what later tiers need.
    ///
    /// # Errors
    /// As [`TierStore::load`] and [`CompactFile::open`], for `t` or a
    /// tier it depends on; [`TbError::NotSolved`] when neither file
    /// exists.
    pub fn load_held(
        &self,
        t: TierKey,
        held: &mut HashMap<TierKey, Arc<Vec<Packed>>>,
    ) -> Result<Arc<Vec<Packed>>, TbError> {
        if let Some(v) = held.get(&t) {
            return Ok(v.clone());
        }
        let values = if self.has_file(t) || !self.compact_path(t).exists() {
            Arc::new(self.load(t)?)
        } else {
            let c = self.open_compact(t)?;
            let deps: Vec<(TierKey, Arc<Vec<Packed>>)> = self
                .game
                .tier_deps(t)
                .into_iter()
                .map(|d| Ok((d, self.load_held(d, held)?)))
                .collect::<Result<_, TbError>>()?;
            let mut lower = TierValues::new();
            for (d, v) in &deps {
                lower.add(*d, v);
            }
            Arc::new(c.resolve(self.game, &lower)?)
        };
        held.insert(t, values.clone());
        Ok(values)
    }
}
