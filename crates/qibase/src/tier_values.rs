//! What a solved tier is to everything above the rules: its values, as
//! the tiers above read them ([`TierValues`]), and its counts
//! ([`TierStats`]). The solver makes both; the file formats store them
//! and the compact format reads lower tiers through them. Kept apart from
//! both, so that neither the solver nor the formats depend on the other
//! for them.

use serde::{Deserialize, Serialize};

use crate::game::TierKey;
use crate::value::{Packed, Value};

/// Statistics of one solved tier, stored in its header (the field order
/// is the header's byte layout).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct TierStats {
    /// Positions won by the side to move.
    pub wins: u64,
    /// Positions lost by the side to move.
    pub losses: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Index slots that hold no position (symmetry reduction).
    pub unused: u64,
    /// Largest remoteness of a win.
    pub max_win: u16,
    /// Largest remoteness of a loss.
    pub max_loss: u16,
    /// Seconds the solve of the tier took.
    pub seconds: f64,
    /// Threads the solver used.
    pub threads: usize,
    /// Peak resident memory of the solving process when the tier was done
    /// (bytes; 0 if unknown).
    pub peak_rss: u64,
    /// Seconds of the solver's initial pass, of its propagation and of
    /// writing the file (0 when unknown). The header records the encoding
    /// part of the write (modelling, entropy coding, checksums), which is
    /// all of it but the sequential disk write that the header itself
    /// precedes; the solver's report has the whole write.
    pub init_seconds: f64,
    /// Seconds of the solver's propagation.
    pub propagate_seconds: f64,
    /// Seconds of encoding the file.
    pub write_seconds: f64,
}

/// The counts of two parts of a tier together (timings left out).
pub(crate) fn add_counts(a: TierStats, b: TierStats) -> TierStats {
    TierStats {
        wins: a.wins + b.wins,
        losses: a.losses + b.losses,
        draws: a.draws + b.draws,
        unused: a.unused + b.unused,
        max_win: a.max_win.max(b.max_win),
        max_loss: a.max_loss.max(b.max_loss),
        ..TierStats::default()
    }
}

/// The solved values of the tiers a tier depends on.
#[derive(Default)]
pub struct TierValues<'a> {
    tiers: Vec<(TierKey, &'a [Packed])>,
}

impl<'a> TierValues<'a> {
    /// No lower tiers yet.
    pub const fn new() -> Self {
        TierValues { tiers: Vec::new() }
    }

    /// Make tier `t`'s solved values readable.
    pub fn add(&mut self, t: TierKey, values: &'a [Packed]) {
        self.tiers.push((t, values));
    }

    /// The solved value of slot `i` of tier `t`; `None` if the tier is not
    /// loaded or the slot holds no value.
    #[inline]
    pub fn get(&self, t: TierKey, i: u64) -> Option<Value> {
        let table = self.tiers.iter().find(|(k, _)| *k == t)?.1;
        Value::unpack(*table.get(i as usize)?)
    }

    /// The solved value of slot `i` of tier `t`, which a dependency must have.
    #[inline]
    pub fn value(&self, t: TierKey, i: u64) -> Value {
        self.get(t, i).unwrap_or_else(|| missing(t, i))
    }

    /// The number under which tier `t` was added (for [`TierValues::at`]).
    #[inline]
    pub(crate) fn slot_of(&self, t: TierKey) -> usize {
        self.tiers
            .iter()
            .position(|(k, _)| *k == t)
            .unwrap_or_else(|| panic!("tier {t} is not loaded (missing tier dependency)"))
    }

    /// The values of every tier added, in the order they were added.
    pub(crate) fn tables(&self) -> impl Iterator<Item = (TierKey, &'a [Packed])> + '_ {
        self.tiers.iter().copied()
    }

    /// Start loading the value of slot `i` of tier `t`.
    #[inline]
    pub(crate) fn prefetch_value(&self, t: TierKey, i: u64) {
        self.prefetch(self.slot_of(t), i);
    }

    #[inline]
    pub(crate) fn prefetch(&self, table: usize, i: u64) {
        if let Some(v) = self.tiers[table].1.get(i as usize) {
            crate::prefetch::prefetch(v);
        }
    }

    /// The value of slot `i` of the `table`-th tier added.
    #[inline]
    pub(crate) fn at(&self, table: usize, i: u64) -> Value {
        let (t, values) = self.tiers[table];
        values
            .get(i as usize)
            .and_then(|&p| Value::unpack(p))
            .unwrap_or_else(|| missing(t, i))
    }
}

#[cold]
fn missing(t: TierKey, i: u64) -> ! {
    panic!("tier {t} slot {i} has no solved value (missing tier dependency)")
}
