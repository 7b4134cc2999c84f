//! qibase: exact solutions of small traditional Chinese board games.
//!
//! At the root, the core types: the game API ([`Rules`], [`Notation`] and
//! [`Tiers`], what the solver works through, and [`Game`] for all three),
//! a position's [`Value`] and its 16-bit [`Packed`] form, [`Rng`], the one
//! seeded random generator. Then one module per area:
//!
//! * [`games`] — the rules of each game (cannon chess, weiming, the cannon
//!   games), any of them by id ([`games::AnyGame`]) with its tables
//!   ([`games::AnyTablebase`]);
//! * [`solver`] — the generic parallel tier-by-tier retrograde solver;
//! * [`tablebase`] — tablebase files: writing, reading, probing;
//! * [`analysis`] — a position's value, its moves' values, the principal variation;
//! * [`ai`] — the program's move choice at each difficulty level;
//! * [`puzzles`] — puzzles from the tables: one move keeps the result.
//!
//! The game API contract checker, a second reference solver and the
//! numbering layer are public for the project's own tests and tools, and
//! hidden from these docs.
//!
//! # Examples
//!
//! Count the move sequences from a game's start position ([`perft`]); the
//! counts are the table in docs/testing.md (`tests/it/data/perft/weiming.perft`):
//!
//! ```
//! use qibase::games::Weiming;
//! use qibase::Rules;
//!
//! let g = Weiming::new();
//! assert_eq!(qibase::perft(&g, &g.start(), 1), 4);
//! assert_eq!(qibase::perft(&g, &g.start(), 9), 8171);
//! ```
//!
//! Solve a small game in memory ([`solver::solve_in_memory`]) and read the
//! start position's value from its tier's packed values. Weiming is a draw
//! with perfect play, as the README says:
//!
//! ```
//! use qibase::games::Weiming;
//! use qibase::{Rules, Tiers, Value};
//!
//! let g = Weiming::new();
//! let tables = qibase::solver::solve_in_memory(&g, None);
//! let start = g.start();
//! let t = g.tier_of(&start);
//! let value = tables[&t][g.rank(t, &start) as usize].value();
//! assert_eq!(value, Some(Value::Draw));
//! ```
//!
//! Solve it into tablebase files ([`solver::solve_game`]), then open them
//! with the prober ([`tablebase::Tablebase`]) and probe the start:
//!
//! ```
//! use qibase::games::Weiming;
//! use qibase::solver::{solve_game, SolveOptions};
//! use qibase::tablebase::Tablebase;
//! use qibase::{Rules, Value};
//!
//! let dir = std::env::temp_dir().join(format!("qibase-doctest-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! let g = Weiming::new();
//! let reports = solve_game(&g, &SolveOptions::new(&dir))?;
//! assert!(reports.iter().all(|r| !r.skipped));
//! let tb = Tablebase::open(&g, &dir);
//! assert_eq!(tb.probe(&g.start())?, Value::Draw);
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

pub mod ai;
pub mod analysis;
#[doc(hidden)]
pub mod contract;
pub mod exchange;
mod game;
pub mod games;
#[doc(hidden)]
pub mod numbering;
mod perft;
pub mod puzzles;
mod raw;
#[doc(hidden)]
pub mod reference;
mod rng;
pub mod solver;
mod sys;
pub mod tablebase;
mod tier_values;
mod tier_walk;
mod value;
pub mod verify;

// The OS- and CPU-specific helpers, under their short names.
use sys::{hugemem, prefetch};

// The core types, flat at the root, each by this one path (their modules
// are private); the public modules above are namespaces for one area each.
pub use game::{
    child_ranks_by_moves, unmove_ranks_by_unmoves, EndReason, Game, GameEnd, GeoPoint, Geometry,
    InputKind, MovePoints, Notation, ParseError, Rules, Side, TierKey, Tiers,
};
pub use perft::perft;
pub use rng::Rng;
pub use sys::cpu::{check_cpu, UnsupportedCpu};
/// Zeroed atomic 16-bit words on huge pages where the OS gives them (the
/// solver's state words), for the benchmarks.
#[cfg(feature = "internals")]
#[doc(hidden)]
pub use sys::hugemem::zeroed_atomic_u16;
pub use sys::memory::{meminfo, peak_rss_bytes, MemInfo};
/// Start loading the cache line that holds a value: a hint that never
/// faults, for callers that batch random reads of tables larger than the
/// caches, as the solver and `verify` do.
pub use sys::prefetch::prefetch as prefetch_line;
pub use value::{Packed, ParseValueError, Value, Wdl, MAX_REMOTENESS};
