//! A whole solve under a memory budget: tier by tier as in memory, each
//! tier solved in memory when it fits the budget and out of core when
//! not (as the plan says); the values of finished tiers that later tiers
//! read kept as raw scratch files (made from the tier files when a
//! resumed solve skips a tier).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::checkpoint::{self, Checkpoint};
use super::{solve_spilled, RawArray, RawLower, Scratch, Start};
use crate::game::{Game, TierKey};
use crate::solver::driver::{Callbacks, Mode, Solved, Step};
use crate::solver::in_memory::solve_in_core;
use crate::solver::plan::{How, Plan};
use crate::solver::write::Write;
use crate::solver::SolveError;
use crate::tablebase::{self, TbError, TierMeta, TierStore};
use crate::tier_values::TierValues;
use crate::value::Packed;

/// A solve under a memory budget, in one process.
pub(in crate::solver) struct Budgeted<'a, G: Game> {
    store: &'a TierStore<'a, G>,
    scratch: Scratch,
    /// The tier being solved: its state file, and the checkpoint an
    /// earlier solve left of it, to resume from.
    raw_path: PathBuf,
    resumed: Option<(RawArray, Checkpoint)>,
}

impl<'a, G: Game> Budgeted<'a, G> {
    /// The mode of a solve of the game in `game_dir`, its scratch files
    /// in `game_dir/.spill`.
    pub fn new(store: &'a TierStore<'a, G>, game_dir: &Path) -> Result<Self, SolveError> {
        Ok(Budgeted {
            store,
            scratch: Scratch::new(game_dir.join(".spill"))?,
            raw_path: PathBuf::new(),
            resumed: None,
        })
    }

    /// What names the tier's checkpoint as this solve's.
    fn identity(&self, at: &Step) -> String {
        let g = self.store.game();
        format!(
            "{} {} {:016x} {} {}",
            g.id(),
            g.variant_spec(),
            g.rules_hash(),
            at.plan.name,
            at.plan.slots
        )
    }

    /// Tier `at.tier` solved in memory with `tuning`, its lower tiers read
    /// whole from their raw files, its values into its raw file.
    fn in_memory(
        &self,
        at: &Step,
        raws: &HashMap<TierKey, Arc<RawArray>>,
        tuning: crate::solver::propagate::Tuning,
        cb: &Callbacks,
    ) -> Result<Option<Solved<RawArray>>, SolveError> {
        let g = self.store.game();
        let held: Vec<(TierKey, Vec<Packed>)> = g
            .tier_deps(at.tier)
            .into_iter()
            .map(|d| Ok((d, read_whole(&raws[&d])?)))
            .collect::<Result<_, TbError>>()?;
        let mut lower = TierValues::new();
        for (d, v) in &held {
            lower.add(*d, v);
        }
        let Some(solved) = solve_in_core(g, at.tier, &lower, tuning, cb)? else {
            return Ok(None);
        };
        drop(lower);
        drop(held);
        let raw = RawArray::zeroed(&self.raw_path, at.plan.slots)?;
        raw.write(0, Packed::slice_as_bits(&solved.out))?;
        Ok(Some(Solved {
            out: raw,
            stats: solved.stats,
            touches: solved.touches,
            windows: 0,
            resumed_seconds: 0.0,
        }))
    }

    /// Tier `at.tier` solved out of core under `plan`, fresh or resumed.
    fn out_of_core(
        &mut self,
        at: &Step,
        raws: &mut HashMap<TierKey, Arc<RawArray>>,
        plan: &Plan,
        cb: &Callbacks,
    ) -> Result<Option<Solved<RawArray>>, SolveError> {
        let (g, name, slots) = (self.store.game(), &at.plan.name, at.plan.slots);
        let work = self.scratch.work(name);
        let (mut raw, start) = match self.resumed.take() {
            Some((raw, c)) => {
                cb.observer.tier_resumed(name, c.level.next_level);
                (raw, Start::Resume(c))
            }
            None => {
                self.scratch.discard(name);
                std::fs::create_dir_all(&work)
                    .map_err(|e| TbError::io(&work, "cannot create spill directory", e))?;
                // The lower tiers no later tier reads are handed over
                // whole: the solve deletes their raw files once its
                // initial pass is done with them.
                let lower = RawLower {
                    tiers: g
                        .tier_deps(at.tier)
                        .into_iter()
                        .map(|d| {
                            let raw = if at.walk.read_from(d, at.k + 1) {
                                raws[&d].clone()
                            } else {
                                raws.remove(&d).expect("loaded")
                            };
                            (d, raw)
                        })
                        .collect(),
                };
                (
                    RawArray::zeroed(&self.raw_path, slots)?,
                    Start::Fresh(lower),
                )
            }
        };
        // Kept if the solve stops: a checkpoint refers to it.
        raw.keep_on_drop(true);
        let identity = self.identity(at);
        let opts = cb.tier_options();
        let solved = solve_spilled(g, at.tier, &raw, &work, &identity, start, plan, &opts);
        let Some(solved) = solved? else {
            return Ok(None);
        };
        Ok(Some(Solved {
            out: raw,
            resumed_seconds: solved.stats.init_seconds + solved.stats.propagate_seconds,
            stats: solved.stats,
            touches: solved.touches,
            windows: plan.windows,
        }))
    }
}

impl<G: Game> Mode for Budgeted<'_, G> {
    type Held = Arc<RawArray>;
    type Out = RawArray;

    /// A checkpoint left after the tier file was written is forgotten.
    fn skipped(&mut self, name: &str) {
        self.scratch.discard(name);
    }

    /// An earlier solve's checkpoint of this tier, with its state file,
    /// is resumed from; anything else starts over. A checkpoint is past
    /// the initial pass, the only reader of the lower tiers: a resume
    /// reads none of them.
    fn ready(&mut self, at: &Step) -> Result<bool, SolveError> {
        let name = &at.plan.name;
        self.raw_path = self.scratch.raw(name);
        self.resumed = match at.plan.how() {
            Some(How::OutOfCore(_)) => {
                match checkpoint::load(&self.scratch.work(name), &self.identity(at))? {
                    Some(c) => RawArray::open(&self.raw_path, at.plan.slots)?.map(|raw| (raw, c)),
                    None => None,
                }
            }
            _ => None,
        };
        Ok(self.resumed.is_none())
    }

    /// A raw scratch copy of tier `d`'s values.
    fn read(&mut self, d: TierKey) -> Result<Self::Held, SolveError> {
        Ok(Arc::new(raw_from_file(self.store, d, self.scratch.path())?))
    }

    fn solve(
        &mut self,
        at: &Step,
        raws: &mut HashMap<TierKey, Self::Held>,
        cb: &Callbacks,
    ) -> Result<Option<Solved<Self::Out>>, SolveError> {
        match at.plan.how() {
            Some(How::InMemory(tuning)) => self.in_memory(at, raws, tuning, cb),
            Some(How::OutOfCore(plan)) => self.out_of_core(at, raws, &plan, cb),
            None => unreachable!("the driver refuses a budget too small first"),
        }
    }

    fn write(
        &mut self,
        at: &Step,
        meta: TierMeta,
        raw: &mut Self::Out,
    ) -> Result<Write, SolveError> {
        let w0 = Instant::now();
        write_from_raw(&self.store.path(at.tier), &meta, raw)?;
        // The tier is on disk: its checkpoint has done its work.
        raw.keep_on_drop(false);
        let _ = std::fs::remove_dir_all(self.scratch.work(&at.plan.name));
        Ok(Write::Done(w0.elapsed().as_secs_f64()))
    }

    fn keep(out: Self::Out) -> Self::Held {
        Arc::new(out)
    }
}

/// A raw scratch copy of tier `d`'s values, decoded from its file a
/// batch of blocks at a time.
pub(crate) fn raw_from_file<G: Game>(
    store: &TierStore<G>,
    d: TierKey,
    scratch: &Path,
) -> Result<RawArray, TbError> {
    let file = store.open(d)?;
    let n = file.meta().positions;
    let raw = RawArray::zeroed(
        &scratch.join(format!("{}.raw", store.game().tier_name(d))),
        n,
    )?;
    file.for_each_batch(|start, values| raw.write(start, Packed::slice_as_bits(values)))?;
    Ok(raw)
}

fn read_whole(raw: &RawArray) -> Result<Vec<Packed>, TbError> {
    let mut words = crate::hugemem::zeroed_u16(raw.len() as usize);
    raw.read(0, &mut words)?;
    Ok(Packed::vec_from_bits(words))
}

/// Write the tier file from the raw values, read a batch at a time.
fn write_from_raw(path: &Path, meta: &TierMeta, raw: &RawArray) -> Result<(), TbError> {
    tablebase::write_tier_batched(path, meta, |start, out| {
        raw.read(start, Packed::slice_as_bits_mut(out))
    })
    .map(|_| ())
}
