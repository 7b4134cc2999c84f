//! The plan of a solve: the tiers in the order they are solved, what each
//! one reads and until when it is kept ([`TierWalk`]), and how each tier is
//! solved under the memory budget, with the bytes it takes. Computed once
//! per solve, from the tiers' sizes alone (so `solve --estimate` prints it
//! for a variant too large to build), and handed to the driver.
//!
//! Every figure of the memory model is in this file, each named for what
//! it charges:
//! * a tier solved in memory holds its state words, the values of the
//!   tiers it reads, its level queues and a round of parent updates;
//! * a tier solved out of core shares the budget out so that its buffers
//!   stay within it: 3/8 for the window (its state words and, during the
//!   initial pass, two accumulators per slot), 1/4 for a level's round of
//!   parent updates (and their coded copy) or the initial pass's batch of
//!   lower-tier requests, 1/4 for the queues of decided positions held
//!   before they spill, 1/8 for the rest (a part of a level's queue being
//!   sent, read buffers);
//! * `verify` checks a tier out of core when its values and those of the
//!   tiers it reads do not fit, a window of [`CHECK_WINDOW_BYTES_PER_SLOT`]
//!   at a time.
//!
//! A window holds whole regions (the cache-sized pieces the levels
//! update), so the smallest budget that can solve a tier is the one whose
//! window holds one region: [`Plan::for_tier`] says how much that is.

use super::propagate::Tuning;
use super::regions::{region_count, region_shift};
use crate::game::{TierKey, Tiers};
use crate::games::VariantSizes;
use crate::tier_walk::TierWalk;

/// Bytes of a state word of the tier being solved (the packed value, or
/// the counter of an undecided position).
const STATE_BYTES_PER_SLOT: u64 = 2;
/// Bytes of a finished tier's value (a packed value), held for the tiers
/// that read it, in memory or in a raw scratch file.
pub(super) const VALUE_BYTES_PER_SLOT: u64 = 2;
/// The level queues of a tier solved under a budget, as charged there: a
/// 4-byte slot number for each decided position.
const QUEUE_BYTES_PER_SLOT: u64 = 4;
/// Worst case of the level queues, bytes per slot: a slot number for each
/// decided position and each tentative win, 4 bytes in a tier of up to
/// 2^32 slots and 8 in a larger one.
fn worst_queue_bytes_per_slot(slots: u64) -> u64 {
    if slots <= 1 << 32 {
        4
    } else {
        8
    }
}
/// Tablebase bits per slot, at most: format 5 takes 4.2-5.1 bits per used
/// slot on today's full tables, and a tier has no more used slots than
/// slots.
const DISK_BITS_PER_SLOT: f64 = 5.1;

/// Bytes of an out-of-core window per slot (a state word and two
/// accumulators).
const SOLVE_WINDOW_BYTES_PER_SLOT: u64 = 6;
/// Bytes a position sent in a level may take: about ten parents, each a
/// message and its coded copy, with room for positions with more.
const BYTES_PER_SENT_POSITION: u64 = 64;
/// Bytes a lower-tier request takes (of the out-of-core initial pass and
/// of the out-of-core check): 16 (a `(u64, u32)`, padded) and as much for
/// its copy grouped by block (each chunk's vector gives back its unused
/// room before the batch is grouped).
const BYTES_PER_REQUEST: u64 = 32;
/// Bytes per queued slot number (the wider of the two kinds).
const BYTES_PER_QUEUED: u64 = 8;
/// Bytes a slot of the out-of-core check's window takes: its stored word,
/// its rule value, its kind, two accumulators, a flag.
const CHECK_WINDOW_BYTES_PER_SLOT: u64 = 10;

/// The values of a tier above which a prober (the report's) looks them
/// up in the tier's file rather than holding them whole: 1 GiB, half a
/// billion slots.
pub const WHOLE_TIER_BYTES: u64 = 1 << 30;

/// The default time between two checkpoints of an out-of-core tier: at
/// most this much of a tier's levels is lost when a solve is killed.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_secs(600);

/// Bytes as a person reads them (KiB, MiB, GiB).
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

/// What the plan needs of a game: its tiers and their sizes. A built game
/// has them ([`Tiers`]), and so has a variant's shape ([`VariantSizes`]),
/// which is known also for a variant too large to build.
pub trait TierShape {
    /// The tiers in solve order (of the subset with at most `max_pieces`
    /// a side).
    fn shape_tiers(&self, max_pieces: Option<u32>) -> Vec<TierKey>;
    /// The tiers tier `t` reads.
    fn shape_deps(&self, t: TierKey) -> Vec<TierKey>;
    /// Index slots of tier `t`.
    fn shape_slots(&self, t: TierKey) -> u64;
    /// Positions tier `t` stands for.
    fn shape_positions(&self, t: TierKey) -> u64;
    /// Tier `t`'s name.
    fn shape_name(&self, t: TierKey) -> String;
}

/// [`TierShape`] through the type's own methods of the same names.
macro_rules! tier_shape_by_methods {
    ([$($generics:tt)*] $ty:ty) => {
        impl<$($generics)*> TierShape for $ty {
            fn shape_tiers(&self, max_pieces: Option<u32>) -> Vec<TierKey> {
                self.tiers(max_pieces)
            }
            fn shape_deps(&self, t: TierKey) -> Vec<TierKey> {
                self.tier_deps(t)
            }
            fn shape_slots(&self, t: TierKey) -> u64 {
                self.tier_size(t)
            }
            fn shape_positions(&self, t: TierKey) -> u64 {
                self.tier_positions(t)
            }
            fn shape_name(&self, t: TierKey) -> String {
                self.tier_name(t)
            }
        }
    };
}

tier_shape_by_methods!([G: Tiers] G);
tier_shape_by_methods!([] VariantSizes);

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
        let region_bytes = SOLVE_WINDOW_BYTES_PER_SLOT << shift;
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

/// How the driver solves a tier (the plan's choice, with what the tier
/// solver needs for it).
#[derive(Clone, Copy, Debug)]
pub(super) enum How {
    /// In memory, with this tuning.
    InMemory(Tuning),
    /// Out of core, cut up so.
    OutOfCore(Plan),
}

/// One tier of a solve's plan.
#[derive(Clone, Debug)]
pub struct TierPlan {
    /// The tier.
    pub tier: TierKey,
    /// Its name.
    pub name: String,
    /// Its index slots.
    pub slots: u64,
    /// The positions it stands for.
    pub positions: u64,
    /// Index slots of the tiers it reads, in all.
    pub dep_slots: u64,
    /// Bytes a solve in memory holds for it, at least: its state words
    /// and the values of the tiers it reads.
    pub memory: u64,
    /// The same with worst-case level queues.
    pub memory_max: u64,
    /// Bytes of its tier file, at most.
    pub disk: u64,
    /// How it is solved under the plan's budget (in memory without one).
    pub budget: BudgetPlan,
    how: Option<How>,
}

impl TierPlan {
    /// How the driver solves it (`None`: the budget cannot take it).
    pub(super) fn how(&self) -> Option<How> {
        self.how
    }
}

/// The plan of a whole solve: its tier walk, and each tier's plan.
#[derive(Clone, Debug)]
pub struct SolvePlan {
    walk: TierWalk,
    tiers: Vec<TierPlan>,
    budget: Option<u64>,
}

impl SolvePlan {
    /// The plan of a solve of `shape` (of the subset with at most
    /// `max_pieces` a side) under `budget` bytes (`None`: as much as it
    /// needs).
    pub fn new<S: TierShape + ?Sized>(
        shape: &S,
        max_pieces: Option<u32>,
        budget: Option<u64>,
    ) -> SolvePlan {
        let walk = TierWalk::new(shape.shape_tiers(max_pieces), |t| shape.shape_deps(t));
        let tiers = walk
            .tiers()
            .iter()
            .map(|&t| tier_plan(shape, t, budget))
            .collect();
        SolvePlan {
            walk,
            tiers,
            budget,
        }
    }

    /// The tiers in order, and the last reader of each.
    pub fn walk(&self) -> &TierWalk {
        &self.walk
    }

    /// Each tier's plan, in solve order.
    pub fn tiers(&self) -> &[TierPlan] {
        &self.tiers
    }

    /// The budget the plan is for.
    pub fn budget(&self) -> Option<u64> {
        self.budget
    }

    /// The first tier the budget cannot take, and the budget that would.
    pub fn too_small(&self) -> Option<(&TierPlan, u64, u64)> {
        self.tiers.iter().find_map(|p| match p.budget {
            BudgetPlan::TooSmall { need, region_slots } => Some((p, need, region_slots)),
            _ => None,
        })
    }

    /// Scratch disk the out-of-core tiers need, at least: the state of the
    /// tier, 2 bytes a slot, beside the raw values of its lower tiers in
    /// the initial pass and beside its undo log (at most as large) in the
    /// levels, which read no lower tier; the runs and queues come on top.
    pub fn scratch_bytes(&self) -> u64 {
        self.tiers
            .iter()
            .filter(|p| matches!(p.budget, BudgetPlan::OutOfCore { .. }))
            .map(|p| VALUE_BYTES_PER_SLOT * (p.slots + p.slots.max(p.dep_slots)))
            .max()
            .unwrap_or(0)
    }
}

/// The plan of tier `t` of `shape` under `budget`.
fn tier_plan<S: TierShape + ?Sized>(shape: &S, t: TierKey, budget: Option<u64>) -> TierPlan {
    let slots = shape.shape_slots(t);
    let dep_slots = shape
        .shape_deps(t)
        .iter()
        .fold(0u64, |s, &d| s.saturating_add(shape.shape_slots(d)));
    let memory = STATE_BYTES_PER_SLOT
        .saturating_mul(slots)
        .saturating_add(VALUE_BYTES_PER_SLOT.saturating_mul(dep_slots));
    let (budget, how) = match budget {
        None => (
            BudgetPlan::InMemory,
            Some(How::InMemory(Tuning::for_ranks(1))),
        ),
        Some(b) => under_budget(slots, dep_slots, b),
    };
    TierPlan {
        tier: t,
        name: shape.shape_name(t),
        slots,
        positions: shape.shape_positions(t),
        dep_slots,
        memory,
        memory_max: memory.saturating_add(worst_queue_bytes_per_slot(slots).saturating_mul(slots)),
        disk: if slots == u64::MAX {
            u64::MAX
        } else {
            (slots as f64 * DISK_BITS_PER_SLOT / 8.0) as u64
        },
        budget,
        how,
    }
}

/// How a tier of `slots` index slots, whose lower tiers have `dep_slots`
/// slots in all, is solved under `budget` bytes.
fn under_budget(slots: u64, dep_slots: u64, budget: u64) -> (BudgetPlan, Option<How>) {
    let tuning = in_memory_tuning(budget);
    if in_memory_need(slots, dep_slots, tuning.round) <= budget {
        return (BudgetPlan::InMemory, Some(How::InMemory(tuning)));
    }
    match Plan::for_tier(slots, budget) {
        Ok(p) => (
            BudgetPlan::OutOfCore { windows: p.windows },
            Some(How::OutOfCore(p)),
        ),
        Err(e) => (
            BudgetPlan::TooSmall {
                need: e.need,
                region_slots: e.region_slots,
            },
            None,
        ),
    }
}

/// The memory an in-memory solve of a tier of `n` slots with lower tiers
/// of `deps` slots in all takes, about, with rounds of `round` positions:
/// state words, lower values, queues, a round's messages.
fn in_memory_need(n: u64, deps: u64, round: usize) -> u64 {
    ((STATE_BYTES_PER_SLOT + QUEUE_BYTES_PER_SLOT).saturating_mul(n))
        .saturating_add(VALUE_BYTES_PER_SLOT.saturating_mul(deps))
        .saturating_add(BYTES_PER_SENT_POSITION * round as u64)
}

/// The tuning of a tier solved in memory under `budget`: rounds small
/// enough that their messages fit.
fn in_memory_tuning(budget: u64) -> Tuning {
    let d = Tuning::default();
    Tuning {
        round: d
            .round
            .min((budget / 4 / BYTES_PER_SENT_POSITION).max(1) as usize),
        ..d
    }
}

/// Whether `verify` checks a tier of `slots` slots, reading tiers of
/// `dep_slots` slots in all, out of core under `budget`: when their
/// values do not fit.
pub(crate) fn verify_out_of_core(slots: u64, dep_slots: u64, budget: Option<u64>) -> bool {
    budget.is_some_and(|b| VALUE_BYTES_PER_SLOT * (slots + dep_slots) > b)
}

/// The out-of-core check's window (in slots) and batch of requests under
/// `budget`: a quarter of it for the window, half for the requests.
pub(crate) fn check_window(budget: u64) -> (u64, u64) {
    (
        budget / 4 / CHECK_WINDOW_BYTES_PER_SLOT,
        (budget / 2 / BYTES_PER_REQUEST).max(1),
    )
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
                        assert!(window * SOLVE_WINDOW_BYTES_PER_SLOT <= budget / 8 * 3);
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

    #[test]
    fn a_tier_that_fits_the_budget_is_solved_in_memory() {
        let (n, deps) = (1_000_000u64, 500_000u64);
        // 6 bytes a slot, 2 a lower slot and a round's messages.
        assert_eq!(under_budget(n, deps, 1 << 30).0, BudgetPlan::InMemory);
        assert!(matches!(
            under_budget(n, deps, 4 << 20).0,
            BudgetPlan::OutOfCore { .. }
        ));
        assert_eq!(in_memory_need(n, deps, 1), 7_000_064);
        assert!(!verify_out_of_core(n, deps, None));
        assert!(verify_out_of_core(n, deps, Some(2 * (n + deps) - 1)));
        assert!(!verify_out_of_core(n, deps, Some(2 * (n + deps))));
    }

    #[test]
    fn human_bytes_reads_as_a_person_does() {
        assert_eq!(human_bytes(1000), "1000 bytes");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }
}
