//! The compact format, for shipping tables and embedding a perfect
//! opponent: lossless, a fraction of the fast format's size, paid for
//! with the game's moves at read time. Documented in
//! `docs/tablebase-format.md` ("The compact format").
//!
//! Two parts per tier file:
//!
//! * a WDL part for every slot, where a slot the reader can settle
//!   without the table stores whatever codes best: a rule end or no legal
//!   move ("free"), or a slot whose best capture already gives its value
//!   (stored no better than the truth; the reader takes the better of the
//!   two) — see [`encode`];
//! * a remoteness part for the wins and losses of one half of the tier
//!   only (`Tiers::slot_half`, in effect one side to move), whichever
//!   codes smaller; the other half's values come from a one-ply search.
//!
//! * [`encode`] — what each slot needs, and the stored values chosen;
//! * [`file`] — the bytes: layout, header, atomic writing, checked reads;
//! * [`tier`] — encoding a whole tier and resolving it back;
//! * [`pack`] — a game's tiers from the fast format and back.

mod encode;
mod file;
mod pack;
mod tier;

pub use file::{compact_path, CompactFile, CompactHeader, COMPACT_MAGIC, COMPACT_VERSION};
pub use pack::{pack, unpack, TierPacking};
pub use tier::{encode_tier, FastOrigin, COMPACT_BLOCK_SIZE};
