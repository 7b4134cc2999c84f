//! qibase: exact solutions of small traditional Chinese board games.
//!
//! * [`game`] — the game API the solver works through;
//! * [`games`] — the rules of each game (cannon chess, weiming, the cannon games);
//! * [`solver`] — the generic parallel tier-by-tier retrograde solver;
//! * [`tablebase`] — tablebase files: writing, reading, probing;
//! * [`report`] — the research report of a solved game (markdown and SVG);
//! * [`cli`] — the `qibase` command line.

pub mod cli;
pub mod game;
pub mod games;
pub mod index;
pub mod report;
pub mod solver;
pub mod tablebase;
pub mod value;

pub use game::{EndReason, Game, GameEnd, Side, TierKey};
pub use value::Value;
