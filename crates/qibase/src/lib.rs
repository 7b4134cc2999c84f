//! qibase: exact solutions of small traditional Chinese board games.
//!
//! * [`game`] — the game API: [`Rules`], [`Notation`] and [`Tiers`] (what
//!   the solver works through), [`Game`] for all three;
//! * [`contract`] — a checker of the game API contract for any game;
//! * [`games`] — the rules of each game (cannon chess, weiming, the cannon games);
//! * [`numbering`] — dense numbering of point sets and grid symmetries;
//! * [`solver`] — the generic parallel tier-by-tier retrograde solver;
//! * [`tablebase`] — tablebase files: writing, reading, probing;
//! * [`analysis`] — a position's value, its moves' values, the principal variation;
//! * [`ai`] — the program's move choice at each difficulty level;
//! * [`rng`] — the one seeded random generator (splitmix64).

#![warn(missing_docs)]
#![warn(clippy::missing_errors_doc)]

pub mod ai;
pub mod analysis;
pub mod contract;
pub mod game;
pub mod games;
pub mod numbering;
mod perft;
pub mod rng;
pub mod solver;
mod sys;
pub mod tablebase;
pub mod value;

// The OS- and CPU-specific helpers, under their short names.
use sys::{hugemem, prefetch};

pub use game::{EndReason, Game, GameEnd, Notation, ParseError, Rules, Side, TierKey, Tiers};
pub use perft::perft;
pub use value::Value;
