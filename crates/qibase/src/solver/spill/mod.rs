//! Solving with bounded memory (`SolveOptions::memory`): tiers larger
//! than the budget are solved out of core, their state words in a file
//! and held a window at a time ([`tier`]); every finished tier a later
//! tier reads is kept as a raw file of values, read in blocks, never
//! loaded whole.
//!
//! How the budget is shared out between the window and the buffers is
//! the plan's ([`super::plan`]).

mod batch;
mod checkpoint;
mod files;
mod levels;
mod run;
mod tier;

use std::path::{Path, PathBuf};

pub(crate) use batch::BatchSlots;
pub(crate) use files::RawArray;
pub(crate) use run::raw_from_file;
pub(super) use run::Budgeted;

pub(super) use tier::{solve_spilled, RawLower, Start};

pub(super) use super::plan::Plan;
use crate::tablebase::TbError;

/// The scratch directory of an out-of-core solve of `g` in `dir`
/// (`DIR/GAME/.spill`).
pub(super) fn scratch_dir<G: crate::game::Game>(g: &G, dir: &Path) -> PathBuf {
    crate::tablebase::game_dir(dir, g.id()).join(".spill")
}

/// The tier whose checkpoint an interrupted out-of-core solve of `g` in
/// `dir` left, if any.
pub(super) fn checkpoint_in<G: crate::game::Game>(g: &G, dir: &Path) -> Option<String> {
    let dir = scratch_dir(g, dir);
    std::fs::read_dir(&dir).ok()?.find_map(|e| {
        let name = e.ok()?.file_name().into_string().ok()?;
        let tier = name.strip_suffix(".work")?;
        checkpoint::exists(&dir.join(&name)).then(|| tier.to_string())
    })
}

/// The tier an interrupted out-of-core solve of `g` in `dir` left a
/// checkpoint of, and the level it resumes at (what `qibase info` shows).
pub fn interrupted_solve<G: crate::game::Game>(g: &G, dir: &Path) -> Option<(String, u64)> {
    let tier = checkpoint_in(g, dir)?;
    let level = checkpoint::next_level(&scratch_dir(g, dir).join(format!("{tier}.work")))?;
    Some((tier, level))
}

/// The directory of a solve's scratch files. What an earlier solve left
/// there is removed, except a tier's checkpoint (its `<tier>.work`
/// directory with a level record) and that tier's state file
/// (`<tier>.raw`), which a resume reads; the same holds when it is
/// dropped, and an empty directory is removed.
pub(super) struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    pub fn new(dir: PathBuf) -> Result<Scratch, TbError> {
        std::fs::create_dir_all(&dir)
            .map_err(|e| TbError::io(&dir, "cannot create spill directory", e))?;
        let s = Scratch { dir };
        s.clean()
            .map_err(|e| TbError::io(&s.dir, "cannot clear spill directory", e))?;
        Ok(s)
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The work directory of tier `name` (its scratch files and checkpoint).
    pub fn work(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.work"))
    }

    /// The state file of tier `name` while it is solved out of core.
    pub fn raw(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.raw"))
    }

    /// Forget tier `name`'s checkpoint and state file.
    pub fn discard(&self, name: &str) {
        let _ = std::fs::remove_dir_all(self.work(name));
        let _ = std::fs::remove_file(self.raw(name));
    }

    /// Remove everything but checkpoints and their state files.
    fn clean(&self) -> std::io::Result<()> {
        let kept: Vec<String> = std::fs::read_dir(&self.dir)?
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                let tier = name.strip_suffix(".work")?.to_string();
                checkpoint::exists(&self.work(&tier)).then_some(tier)
            })
            .collect();
        for e in std::fs::read_dir(&self.dir)? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            let keep = kept
                .iter()
                .any(|t| name == format!("{t}.work") || name == format!("{t}.raw"));
            if keep {
                continue;
            }
            if e.file_type()?.is_dir() {
                std::fs::remove_dir_all(e.path())?;
            } else {
                std::fs::remove_file(e.path())?;
            }
        }
        Ok(())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = self.clean();
        // Fails, as meant, while a checkpoint is kept in it.
        let _ = std::fs::remove_dir(&self.dir);
    }
}
