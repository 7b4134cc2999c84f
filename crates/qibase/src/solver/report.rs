//! What happened to each tier of a solve, and the header its file gets.

use crate::game::{Game, TierKey, Tiers};
use crate::tablebase::TierMeta;
use crate::tier_values::TierStats;

/// What happened to one tier.
#[derive(Clone, Debug)]
pub struct TierReport {
    /// The tier.
    pub tier: TierKey,
    /// Its name (`Tiers::tier_name`).
    pub name: String,
    /// Index slots of the tier (what the solver works on).
    pub slots: u64,
    /// Positions the tier stands for (every placement, both sides to move,
    /// without symmetry reduction).
    pub positions: u64,
    /// As stored in the header, except `write_seconds`, which is only known
    /// once the file is written (the header says 0).
    pub stats: TierStats,
    /// Random memory accesses the solver made (parent updates, lower-tier
    /// reads); 0 for a skipped tier.
    pub touches: u64,
    /// Seconds the solver waited for this tier's file to be written before
    /// it could go on (the write runs beside the next tier's solve).
    pub write_wait_seconds: f64,
    /// `true` if the tier was already solved on disk and skipped.
    pub skipped: bool,
    /// Bytes the ranks sent each other while solving the tier, all ranks
    /// together (0 in a solve in one process).
    pub exchanged_bytes: u64,
    /// Windows the tier's state words were held in, one at a time, when
    /// a memory budget made it solve out of core; 0 when it was solved in
    /// memory.
    pub windows: usize,
}

impl TierReport {
    /// The report of tier `t`, found solved on disk with `stats`.
    pub(super) fn skipped<G: Tiers>(g: &G, t: TierKey, stats: TierStats) -> TierReport {
        TierReport {
            tier: t,
            name: g.tier_name(t),
            slots: g.tier_size(t),
            positions: g.tier_positions(t),
            stats,
            touches: 0,
            write_wait_seconds: 0.0,
            skipped: true,
            exchanged_bytes: 0,
            windows: 0,
        }
    }
}

/// The header of tier `t`'s file.
pub(super) fn tier_meta<G: Game>(g: &G, t: TierKey, stats: &TierStats) -> TierMeta {
    TierMeta {
        game: g.id().to_string(),
        rules_hash: g.rules_hash(),
        tier: t,
        tier_name: g.tier_name(t),
        positions: g.tier_size(t),
        stats: stats.clone(),
        variant: g.variant_spec(),
    }
}
