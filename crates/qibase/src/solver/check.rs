//! Local consistency of a solved tier: every position's stored value must be
//! its rule value, or the best of its moves' values computed from the stored
//! values of the results. By induction on remoteness a table that passes is
//! exactly right (the standard verification of a tablebase). Used by the
//! tests and by `qibase verify`.

use rayon::prelude::*;

use super::tier::Lower;
use crate::game::{TierKey, Tiers};
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
    let mut best = Value::Loss(0);
    for (k, m) in moves.iter().enumerate() {
        let v = Value::of_move_to(child_value(&g.apply(p, m))?);
        best = if k == 0 { v } else { best.max(v) };
    }
    Some(best)
}

/// Check every used slot of tier `t` (`values`) against its children
/// (looked up in `values` itself or in `lower`), keeping at most `limit`
/// examples. `progress` is told how many slots each task went through.
pub fn check_tier<G: Tiers>(
    g: &G,
    t: TierKey,
    values: &[Packed],
    lower: &Lower,
    limit: usize,
    progress: &(dyn Fn(u64) + Sync),
) -> CheckReport {
    let n = values.len() as u64;
    let chunk = 1u64 << 12;
    let parts: Vec<CheckReport> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut part = CheckReport::default();
            let mut moves = Vec::new();
            let child_value = |q: &G::Pos| {
                let ct = g.tier_of(q);
                if ct == t {
                    Value::unpack(*values.get(g.rank(t, q) as usize)?)
                } else {
                    lower.get(ct, g.rank(ct, q))
                }
            };
            let end = ((c + 1) * chunk).min(n);
            let mut used = Vec::new();
            g.used_slots(t, c * chunk..end, &mut used);
            for &(i, ref p) in &used {
                part.checked += 1;
                let stored = Value::unpack(values[i as usize]);
                let expected = derive_value(g, p, &child_value, &mut moves);
                if stored.is_none() || stored != expected {
                    part.inconsistent += 1;
                    if part.examples.len() < limit {
                        part.examples.push(Inconsistency {
                            index: i,
                            stored,
                            expected,
                        });
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
