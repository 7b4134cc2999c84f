//! Solving with bounded memory (`SolveOptions::memory`): tiers larger
//! than the budget are solved out of core, their state words in a file
//! and held a window at a time ([`tier`]); every finished tier a later
//! tier reads is kept as a raw file of values, read in blocks, never
//! loaded whole.
//!
//! The budget is shared out so that the out-of-core solve's buffers stay
//! within it:
//! * 3/8 for the window: its state words and, during the initial pass,
//!   two accumulators per slot (6 bytes a slot);
//! * 1/4 for a level's round of parent updates (and their coded copy),
//!   or the initial pass's batch of lower-tier requests;
//! * 1/4 for the queues of decided positions held before they spill;
//! * 1/8 for the rest (a part of a level's queue being sent, read
//!   buffers).
//!
//! A window holds whole regions (the cache-sized pieces the levels
//! update), so the smallest budget that can solve a tier is the one whose
//! window holds one region: [`Plan::for_tier`] says how much that is.

mod batch;
mod check;
mod checkpoint;
mod files;
mod grouping;
mod levels;
mod run;
mod tier;

use std::path::{Path, PathBuf};

pub use check::check_tier_out_of_core;
pub(super) use files::RawArray;
pub(super) use run::{human_bytes, solve_tiers_spilled};

pub(super) use tier::{solve_spilled, RawLower, Start};

use super::exchange::region_count;
use super::propagate::{region_shift, Tuning};
use crate::tablebase::TbError;

/// Bytes of a window per slot (a state word and two accumulators).
const WINDOW_BYTES_PER_SLOT: u64 = 6;
/// Bytes a position sent in a level may take: about ten parents, each a
/// message and its coded copy, with room for positions with more.
const BYTES_PER_SENT_POSITION: u64 = 64;
/// Bytes a lower-tier request of the initial pass takes: 16 (a
/// `(u64, u32)`, padded) and as much for its copy grouped by block (each
/// chunk's vector gives back its unused room before the batch is grouped).
const BYTES_PER_REQUEST: u64 = 32;
/// Bytes per queued slot number (the wider of the two kinds).
const BYTES_PER_QUEUED: u64 = 8;

/// How an out-of-core tier is cut up under a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    /// Slots per region (log 2) and regions of the tier.
    pub shift: u32,
    pub regions: usize,
    /// Regions per window, and windows.
    pub window_regions: usize,
    pub windows: usize,
    /// Positions sent per round of a level.
    pub round: usize,
    /// Lower-tier requests per batch of the initial pass (about).
    pub requests: usize,
    /// Queued slot numbers held in memory before they go to disk.
    pub queue_cap: usize,
    /// How often the levels leave a checkpoint to resume from (and at
    /// the last level, and when asked to stop). Each one costs a sync of
    /// the state file; between two, the first overwrite of each region
    /// costs a copy of its old words to the undo log, so checkpoints far
    /// apart cost the least on the large early levels.
    pub checkpoint_every: std::time::Duration,
}

/// The default time between two checkpoints of an out-of-core tier: at
/// most this much of a tier's levels is lost when a solve is killed.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(600);

/// A budget too small for a tier: the smallest that would do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TooSmall {
    pub need: u64,
    pub region_slots: u64,
}

impl Plan {
    /// The plan of a tier of `n` slots under `budget` bytes.
    pub fn for_tier(n: u64, budget: u64) -> Result<Plan, TooSmall> {
        let shift = region_shift(n as usize);
        let region_bytes = WINDOW_BYTES_PER_SLOT << shift;
        let window_regions = (budget / 8 * 3 / region_bytes) as usize;
        if window_regions == 0 {
            return Err(TooSmall {
                need: region_bytes.div_ceil(3) * 8,
                region_slots: 1 << shift,
            });
        }
        let regions = region_count(n as usize, shift);
        let window_regions = window_regions.min(regions);
        Ok(Plan {
            shift,
            regions,
            window_regions,
            windows: regions.div_ceil(window_regions),
            round: (budget / 4 / BYTES_PER_SENT_POSITION).max(1) as usize,
            requests: (budget / 4 / BYTES_PER_REQUEST).max(1) as usize,
            queue_cap: (budget / 4 / BYTES_PER_QUEUED).max(1) as usize,
            checkpoint_every: CHECKPOINT_EVERY,
        })
    }
}

/// How a tier is solved under a memory budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetPlan {
    /// It fits: solved in memory.
    InMemory,
    /// Solved out of core, its state words held in this many windows.
    OutOfCore {
        /// Windows of whole regions, held one at a time.
        windows: usize,
    },
    /// The budget cannot hold one of its regions and their buffers.
    TooSmall {
        /// The smallest budget that can, in bytes.
        need: u64,
        /// Slots of one of the tier's regions.
        region_slots: u64,
    },
}

/// How a tier of `slots` index slots, whose lower tiers have `dep_slots`
/// slots in all, is solved under `budget` bytes (what `solve` with that
/// budget does; `solve --estimate --memory` prints it).
pub fn plan_under_budget(slots: u64, dep_slots: u64, budget: u64) -> BudgetPlan {
    if in_memory_need(slots, dep_slots, in_memory_tuning(budget).round) <= budget {
        return BudgetPlan::InMemory;
    }
    match Plan::for_tier(slots, budget) {
        Ok(p) => BudgetPlan::OutOfCore { windows: p.windows },
        Err(e) => BudgetPlan::TooSmall {
            need: e.need,
            region_slots: e.region_slots,
        },
    }
}

/// The memory an in-memory solve of a tier of `n` slots with lower tiers
/// of `deps` slots in all takes, about, with rounds of `round` positions:
/// state words, lower values, queues at 4 bytes a slot, a round's
/// messages.
fn in_memory_need(n: u64, deps: u64, round: usize) -> u64 {
    6 * n + 2 * deps + BYTES_PER_SENT_POSITION * round as u64
}

/// The tuning of a tier solved in memory under `budget`: rounds small
/// enough that their messages fit.
pub(super) fn in_memory_tuning(budget: u64) -> Tuning {
    let d = Tuning::default();
    Tuning {
        round: d
            .round
            .min((budget / 4 / BYTES_PER_SENT_POSITION).max(1) as usize),
        ..d
    }
}

/// The scratch directory of an out-of-core solve of `g` under `opts`
/// (`DIR/GAME/.spill`).
pub(super) fn scratch_dir<G: crate::game::Game>(g: &G, opts: &super::SolveOptions) -> PathBuf {
    crate::tablebase::game_dir(&opts.dir, g.id()).join(".spill")
}

/// The tier whose checkpoint an interrupted out-of-core solve of `g`
/// left, if any.
pub(super) fn checkpoint_in<G: crate::game::Game>(
    g: &G,
    opts: &super::SolveOptions,
) -> Option<String> {
    let dir = scratch_dir(g, opts);
    std::fs::read_dir(&dir).ok()?.find_map(|e| {
        let name = e.ok()?.file_name().into_string().ok()?;
        let tier = name.strip_suffix(".work")?;
        checkpoint::exists(&dir.join(&name)).then(|| tier.to_string())
    })
}

/// The tier an interrupted out-of-core solve of `g` in `dir` left a
/// checkpoint of, and the level it resumes at (what `qibase info` shows).
pub fn interrupted_solve<G: crate::game::Game>(g: &G, dir: &Path) -> Option<(String, u64)> {
    let opts = super::SolveOptions {
        dir: dir.to_path_buf(),
        max_pieces: None,
        memory: None,
    };
    let tier = checkpoint_in(g, &opts)?;
    let level = checkpoint::next_level(&scratch_dir(g, &opts).join(format!("{tier}.work")))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_fit_their_budget_and_refuse_one_too_small() {
        for n in [1_000u64, 100_000, 39_215_176, 12_671_781_276] {
            for budget in [1u64 << 20, 64 << 20, 4 << 30] {
                match Plan::for_tier(n, budget) {
                    Ok(p) => {
                        let window = (p.window_regions as u64) << p.shift;
                        assert!(window * WINDOW_BYTES_PER_SLOT <= budget / 8 * 3);
                        assert!(p.windows * p.window_regions >= p.regions);
                        assert!((p.windows - 1) * p.window_regions < p.regions);
                    }
                    Err(e) => {
                        assert!(e.need > budget);
                        assert!(Plan::for_tier(n, e.need).is_ok(), "{n} {e:?}");
                        assert!(Plan::for_tier(n, e.need - 1).is_err(), "{n} {e:?}");
                    }
                }
            }
        }
        // 2^16-slot regions need a mebibyte.
        let e = Plan::for_tier(39_215_176, 512 << 10).unwrap_err();
        assert_eq!(e.region_slots, 1 << 16);
        assert_eq!(e.need, 1 << 20);
    }
}
