//! [`TierStore`]: the tier files of one game in one directory, and the one
//! place that opens a tier with every check (game, rules, tier, slot
//! count) and reads whole tiers. The solver (lower tiers), `verify`, the
//! report and the prober ([`super::Tablebase`]) all go through it.

use std::path::{Path, PathBuf};

use super::{tier_path, TbError, TierFile, TierMeta};
use crate::game::{Game, TierKey};
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

    /// The `qibase solve` command that makes tier `t` in this directory:
    /// the closed subset up to the tier's material, or the whole game.
    pub fn solve_command(&self, t: TierKey) -> String {
        let g = self.game;
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
        if self.dir != Path::new("tablebases") {
            cmd += &format!(" --dir {}", self.dir.display());
        }
        cmd
    }

    /// Open tier `t`'s file, checking its header, its length, and that
    /// it holds this tier of this game under these rules with the tier's
    /// slot count. No block is read.
    ///
    /// # Errors
    /// [`TbError::NotSolved`] (with the command that makes it) if there is
    /// no file; otherwise as [`TierFile::open`], and
    /// [`TbError::Foreign`] for a file with another slot count (made by a
    /// qibase that numbers the tier differently).
    pub fn open(&self, t: TierKey) -> Result<TierFile, TbError> {
        let g = self.game;
        let path = self.path(t);
        let f = TierFile::open(&path, g.id(), g.rules_hash(), t).map_err(|e| match e {
            TbError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                TbError::NotSolved {
                    path: path.clone(),
                    tier: format!("tier {} of {}", g.tier_name(t), g.id()),
                    command: self.solve_command(t),
                }
            }
            e => e,
        })?;
        if f.meta().positions != g.tier_size(t) {
            return Err(TbError::foreign(
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
}
