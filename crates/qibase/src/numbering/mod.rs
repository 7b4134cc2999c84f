//! Numbering and symmetry of point sets on grids: the one layer every game
//! uses to turn positions into dense indices and back.
//!
//! * [`bits`] — pext/pdep (BMI2 instructions where available);
//! * [`colex`] — binomials and colex ranking of point sets, by loop and by
//!   chunk table;
//! * [`symmetry`] — the symmetry group of any W × H grid;
//! * [`classes`] — orbits of point sets under the group, with their
//!   representatives;
//! * [`canonical`] — canonical ranking and unranking of pairs of point sets
//!   (the pieces of one kind by orbit class, the other kind by colex rank
//!   among the points left free) and orbit sizes.
//!
//! A new board size needs no new code here: everything is built from W, H
//! and the largest set sizes.

pub mod bits;
pub mod canonical;
pub mod classes;
pub mod colex;
pub mod symmetry;

pub use bits::{pdep, pext};
pub use canonical::{FixedA, FixedB, PairNumbering, PairSlot};
pub use classes::SetClasses;
pub use colex::{binom, rank_subset, unrank_subset, ColexTable};
pub use symmetry::GridSymmetry;
