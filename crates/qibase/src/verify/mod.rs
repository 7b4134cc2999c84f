//! The checker of a solved tablebase: every stored value re-derived from
//! the rules and the stored values of its children, apart from the solver
//! that wrote it (it reuses only the solver's raw files, its answering of
//! requests and its plan's memory model).
//!
//! [`check_tier`] checks one tier held in memory, [`check_tier_out_of_core`]
//! one too large for memory through raw scratch files, and [`verify_game`]
//! walks the tiers of a tablebase in solve order, each checked in memory
//! when it fits the budget and out of core when not, keeping the values
//! later tiers read.

mod check;
mod out_of_core;

pub use check::{check_tier, derive_value, CheckReport, Inconsistency};
pub use out_of_core::check_tier_out_of_core;

use std::collections::HashMap;
use std::sync::Arc;

use crate::game::{Game, TierKey};
use crate::solver::verify_out_of_core;
use crate::tablebase::{game_dir, TbError, TierStore};
use crate::tier_values::TierValues;
use crate::tier_walk::TierWalk;
use crate::value::Packed;

/// Inconsistent positions a tier's check keeps as examples.
const EXAMPLES: usize = 5;

/// What became of one tier's check.
#[derive(Debug)]
pub enum TierCheck {
    /// Checked: its report.
    Checked(CheckReport),
    /// Its values could not be read (or the check's scratch files written).
    Unreadable(TbError),
    /// A tier it reads could not be read: not checked.
    LowerUnreadable(TbError),
}

/// What `verify` tells its caller while it runs.
pub trait VerifyObserver: Sync {
    /// Tier `name` (`slots` slots) starts its check.
    fn tier_started(&self, name: &str, slots: u64) {
        let _ = (name, slots);
    }
    /// The check went through `slots` more slots.
    fn checked(&self, slots: u64) {
        let _ = slots;
    }
    /// Tier `t` (named `name`) is done.
    fn tier_done(&self, t: TierKey, name: &str, check: &TierCheck) {
        let _ = (t, name, check);
    }
}

/// Observes nothing.
impl VerifyObserver for () {}

/// The sum of a verify.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifySummary {
    /// Positions checked.
    pub positions: u64,
    /// Inconsistent positions, and tiers not checked because a file is
    /// damaged, missing or of other rules.
    pub problems: u64,
    /// Tiers not checked because the operating system failed a read or
    /// a write ([`TbError::Io`]: a full disk, a read error): said apart,
    /// since nothing wrong was found in the tables, and a rerun may check
    /// them.
    pub io_errors: u64,
}

/// Check tiers `tiers` (in solve order) of the tablebase in `store`,
/// holding at most about `budget` bytes (`None`: as much as it needs):
/// a tier whose values and those of the tiers it reads do not fit is
/// checked out of core, through scratch files in the game's directory
/// (`.verify`, removed after).
pub fn verify_game<G: Game>(
    store: &TierStore<'_, G>,
    tiers: &[TierKey],
    budget: Option<u64>,
    observer: &dyn VerifyObserver,
) -> VerifySummary {
    let g = store.game();
    let walk = TierWalk::new(tiers.to_vec(), |t| g.tier_deps(t));
    // Fast tiers are read, compact ones resolved from their lower tiers.
    let mut cache: HashMap<TierKey, Arc<Vec<Packed>>> = HashMap::new();
    let mut sum = VerifySummary::default();
    let progress = |k| observer.checked(k);
    for (k, &t) in tiers.iter().enumerate() {
        let name = g.tier_name(t);
        let dep_slots = g.tier_deps(t).iter().map(|&d| g.tier_size(d)).sum();
        let check = if verify_out_of_core(g.tier_size(t), dep_slots, budget) {
            cache.clear();
            observer.tier_started(&name, g.tier_size(t));
            let scratch = game_dir(store.dir(), g.id()).join(".verify");
            let budget = budget.expect("out of core only under a budget");
            let checked = check_tier_out_of_core(store, t, &scratch, budget, EXAMPLES, &progress);
            let _ = std::fs::remove_dir_all(&scratch);
            checked.map_or_else(TierCheck::Unreadable, TierCheck::Checked)
        } else {
            let check = check_in_memory(store, t, &mut cache, observer, &progress);
            walk.keep_read_from(&mut cache, k + 1);
            check
        };
        match &check {
            TierCheck::Checked(r) => {
                sum.positions += r.checked;
                sum.problems += r.inconsistent;
            }
            TierCheck::Unreadable(TbError::Io { .. })
            | TierCheck::LowerUnreadable(TbError::Io { .. }) => sum.io_errors += 1,
            TierCheck::Unreadable(_) | TierCheck::LowerUnreadable(_) => sum.problems += 1,
        }
        observer.tier_done(t, &name, &check);
    }
    sum
}

/// Check tier `t` in memory, its values and those of its lower tiers
/// taken from `cache` or read into it.
fn check_in_memory<G: Game>(
    store: &TierStore<'_, G>,
    t: TierKey,
    cache: &mut HashMap<TierKey, Arc<Vec<Packed>>>,
    observer: &dyn VerifyObserver,
    progress: &(dyn Fn(u64) + Sync),
) -> TierCheck {
    let g = store.game();
    let values = match store.load_held(t, cache) {
        Ok(v) => v,
        Err(e) => return TierCheck::Unreadable(e),
    };
    let mut lower = Vec::new();
    for d in g.tier_deps(t) {
        match store.load_held(d, cache) {
            Ok(v) => lower.push((d, v)),
            Err(e) => return TierCheck::LowerUnreadable(e),
        }
    }
    observer.tier_started(&g.tier_name(t), values.len() as u64);
    let mut deps = TierValues::new();
    for (d, v) in &lower {
        deps.add(*d, v);
    }
    let report = check_tier(g, t, &values, &deps, EXAMPLES, progress);
    drop(deps);
    cache.insert(t, values);
    cache.extend(lower);
    TierCheck::Checked(report)
}
