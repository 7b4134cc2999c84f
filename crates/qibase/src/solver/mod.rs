//! The generic retrograde solver: tier by tier, from least material up.
//!
//! It knows no game: everything goes through
//! [`Tiers`](crate::game::Tiers) (tiers, numbering, un-moves and the
//! rank-list fast paths) and, as its supertrait,
//! [`Rules`](crate::game::Rules) (the end rules of each position, and the
//! moves behind the default rank lists); it never parses or prints a
//! position (only [`solve_game`], which writes files through the
//! tablebase's store, asks for a whole [`Game`](crate::game::Game)).
//! [`solve_tier`] solves one tier in memory; [`solve_game`] runs the
//! tiers of a game in order, loads each tier's dependencies from disk,
//! writes every finished tier atomically and skips tiers that are already
//! solved (resumable).
//!
//! The pieces: [`SolveOptions`] (what a solve is asked), [`SolveObserver`]
//! (what it tells), [`SolvePlan`] (how each tier is solved and the bytes
//! it takes, computed once), the driver (the one loop over the tiers, in
//! a mode: in memory, sliced across ranks, or under a budget), the tier
//! solvers of each mode, and [`TierReport`] / [`SolveError`] (what it
//! answers).

mod driver;
mod error;
mod in_memory;
mod levels;
mod limits;
mod observer;
mod options;
mod plan;
mod propagate;
mod regions;
mod report;
mod requests;
mod sliced;
mod slot;
mod spill;
mod state;
mod tier;
mod tier_options;
mod write;

pub use driver::solve_game;
pub use error::SolveError;
pub use in_memory::solve_in_memory;
pub use limits::{check_limits, LimitError, MAX_IN_TIER_CHILDREN, MAX_REMOTENESS, MAX_TIER_SLOTS};
pub use observer::SolveObserver;
pub use options::SolveOptions;
pub use plan::{human_bytes, BudgetPlan, SolvePlan, TierPlan, TierShape, WHOLE_TIER_BYTES};
pub use report::TierReport;
pub use spill::interrupted_solve;
pub use tier::{solve_tier, SolvedTier};
pub use tier_options::{Progress, TierOptions};

pub use crate::tier_values::TierValues;
pub use crate::tier_walk::TierWalk;

// What the verifier (`crate::verify`) reuses of the solver: the raw
// copies of tier files, the batches of requests, the accumulators of the
// best move's value, and the plan's memory model of a check.
pub(crate) use plan::{check_window, verify_out_of_core};
pub(crate) use requests::Answers;
pub(crate) use spill::{raw_from_file, BatchSlots};
pub(crate) use state::CHUNK;
#[cfg(test)]
pub(crate) use tier::solve_plain;
