//! Local consistency of a solved tier: every position's stored value must be
//! its rule value, or the best of its moves' values computed from the stored
//! values of the results. By induction on remoteness a table that passes is
//! exactly right (the standard verification of a tablebase). Used by the
//! tests and by `qibase verify`.

use rayon::prelude::*;

use crate::game::{TierKey, Tiers};
use crate::tier_values::TierValues;
use crate::value::{Packed, Value};

/// A slot whose stored value disagrees with its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    /// The slot.
    pub index: u64,
    /// The value stored in it (`None`: undecided).
    pub stored: Option<Value>,
    /// `None` if a child has no stored value.
    pub expected: Option<Value>,
}

/// What [`check_tier`] found.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Used slots checked.
    pub checked: u64,
    /// Slots whose stored value disagrees with their moves.
    pub inconsistent: u64,
    /// The first few of them.
    pub examples: Vec<Inconsistency>,
}

/// The value a position must have, given the stored values of its children
/// (`None` if some child has none).
pub fn derive_value<G: Tiers>(
    g: &G,
    p: &G::Pos,
    child_value: &dyn Fn(&G::Pos) -> Option<Value>,
    moves: &mut Vec<G::Move>,
) -> Option<Value> {
    if let Some(end) = g.rule_end(p) {
        return Some(end.value);
    }
    moves.clear();
    g.moves(p, moves);
    best_move_value(moves.iter().map(|m| child_value(&g.apply(p, m))))
}

/// The value of a position without a rule end from its children's values
/// (`None` if one has none): the best of its moves' values. A position
/// without a rule end has at least one move, so no child list is empty;
/// an empty one gives `Loss(0)`, as the solver would.
fn best_move_value(children: impl Iterator<Item = Option<Value>>) -> Option<Value> {
    let mut best = None;
    for child in children {
        let v = Value::of_move_to(child?);
        best = Some(best.map_or(v, |b: Value| b.max(v)));
    }
    Some(best.unwrap_or(Value::Loss(0)))
}

/// Positions whose children are ranked (and their values' cache lines
/// asked for) before the first of them is valued: the child lookups are
/// random reads of tables far larger than the caches, and ranking a batch
/// first lets their misses overlap instead of each stalling the core
/// (about 90 % of the time of a one-by-one check on the 5 × 4 cannon-chess
/// table was spent waiting for them).
const BATCH: usize = 64;

/// A used slot of a batch, waiting for its children's values.
struct Pending {
    index: u64,
    stored: Option<Value>,
    /// The rule's value, if the position ends by rule.
    ruled: Option<Value>,
    /// Its children in the batch's child list.
    children: std::ops::Range<usize>,
}

/// Where a child's value lives: the number of its table (0: the tier being
/// checked, then the lower tiers in the order they were added) and its
/// slot; the table `NO_TABLE` when its tier is not loaded.
type ChildRef = (u32, u64);
const NO_TABLE: u32 = u32::MAX;

/// Check every used slot of tier `t` (`values`) against its children
/// (looked up in `values` itself or in `lower`), keeping at most `limit`
/// examples. `progress` is told how many slots each task went through.
pub fn check_tier<G: Tiers>(
    g: &G,
    t: TierKey,
    values: &[Packed],
    lower: &TierValues,
    limit: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> CheckReport {
    let keys: Vec<TierKey> = std::iter::once(t)
        .chain(lower.tables().map(|(k, _)| k))
        .collect();
    let tables: Vec<&[Packed]> = std::iter::once(values)
        .chain(lower.tables().map(|(_, v)| v))
        .collect();
    let table_of = |ct: TierKey| {
        keys.iter()
            .position(|&k| k == ct)
            .map_or(NO_TABLE, |n| n as u32)
    };
    // The stored word of a child, if its tier is loaded and the slot is
    // inside it (a corrupt table must give an inconsistency, not a panic).
    let slot =
        |(table, i): ChildRef| -> Option<&Packed> { tables.get(table as usize)?.get(i as usize) };
    let value_of = |child: ChildRef| -> Option<Value> { Value::unpack(*slot(child)?) };
    let n = values.len() as u64;
    let chunk = 1u64 << 12;
    let parts: Vec<CheckReport> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut part = CheckReport::default();
            let mut moves = Vec::new();
            let end = ((c + 1) * chunk).min(n);
            let mut used = Vec::new();
            g.used_slots(t, c * chunk..end, &mut used);
            let mut batch: Vec<Pending> = Vec::with_capacity(BATCH);
            let mut children: Vec<ChildRef> = Vec::new();
            for group in used.chunks(BATCH) {
                batch.clear();
                children.clear();
                for (i, p) in group {
                    let first = children.len();
                    let ruled = g.rule_end(p).map(|end| end.value);
                    if ruled.is_none() {
                        moves.clear();
                        g.moves(p, &mut moves);
                        for m in &moves {
                            let q = g.apply(p, m);
                            let ct = g.tier_of(&q);
                            let child = (table_of(ct), g.rank(ct, &q));
                            if let Some(v) = slot(child) {
                                crate::prefetch::prefetch(v);
                            }
                            children.push(child);
                        }
                    }
                    batch.push(Pending {
                        index: *i,
                        stored: Value::unpack(values[*i as usize]),
                        ruled,
                        children: first..children.len(),
                    });
                }
                for e in &batch {
                    part.checked += 1;
                    let expected = e.ruled.or_else(|| {
                        best_move_value(children[e.children.clone()].iter().map(|&c| value_of(c)))
                    });
                    if e.stored.is_none() || e.stored != expected {
                        part.inconsistent += 1;
                        if part.examples.len() < limit {
                            part.examples.push(Inconsistency {
                                index: e.index,
                                stored: e.stored,
                                expected,
                            });
                        }
                    }
                }
            }
            progress(end - c * chunk);
            part
        })
        .collect();
    let mut all = CheckReport::default();
    for p in parts {
        all.checked += p.checked;
        all.inconsistent += p.inconsistent;
        all.examples.extend(p.examples);
    }
    all.examples.truncate(limit);
    all
}
