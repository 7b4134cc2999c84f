//! Local consistency of a solved tier: every position's stored value must be
//! its rule value, or the best of its moves' values computed from the stored
//! values of the results. By induction on remoteness a table that passes is
//! exactly right (the standard verification of a tablebase).

use rayon::prelude::*;

use super::tier::Lower;
use crate::game::{Game, TierKey};
use crate::value::{Packed, Value};

/// A slot whose stored value disagrees with its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inconsistency {
    pub index: u64,
    pub stored: Option<Value>,
    pub expected: Value,
}

/// The value a position must have, given the stored values of its children.
pub fn derive_value<G: Game>(
    g: &G,
    p: &G::Pos,
    child_value: &dyn Fn(&G::Pos) -> Value,
    moves: &mut Vec<G::Move>,
) -> Value {
    if let Some(end) = g.rule_end(p) {
        return end.value;
    }
    moves.clear();
    g.moves(p, moves);
    moves
        .iter()
        .map(|m| Value::of_move_to(child_value(&g.apply(p, m))))
        .max()
        .unwrap_or(Value::Loss(0))
}

/// Check every used slot of tier `t` (`values`) against its children
/// (looked up in `values` itself or in `lower`). Returns the disagreements
/// (at most `limit` of them) and their total number.
pub fn check_tier<G: Game>(
    g: &G,
    t: TierKey,
    values: &[Packed],
    lower: &Lower,
    limit: usize,
) -> (Vec<Inconsistency>, u64) {
    let n = values.len() as u64;
    let chunk = 1u64 << 12;
    let parts: Vec<(Vec<Inconsistency>, u64)> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut bad = Vec::new();
            let mut count = 0;
            let mut moves = Vec::new();
            let child_value = |q: &G::Pos| {
                let ct = g.tier_of(q);
                if ct == t {
                    Value::unpack(values[g.rank(t, q) as usize]).unwrap_or(Value::Draw)
                } else {
                    lower.value(ct, g.rank(ct, q))
                }
            };
            for i in c * chunk..((c + 1) * chunk).min(n) {
                let p = g.unrank(t, i);
                if g.rank(t, &p) != i {
                    continue; // unused slot
                }
                let stored = Value::unpack(values[i as usize]);
                let expected = derive_value(g, &p, &child_value, &mut moves);
                if stored != Some(expected) {
                    count += 1;
                    if bad.len() < limit {
                        bad.push(Inconsistency {
                            index: i,
                            stored,
                            expected,
                        });
                    }
                }
            }
            (bad, count)
        })
        .collect();
    let mut all = Vec::new();
    let mut total = 0;
    for (b, c) in parts {
        total += c;
        all.extend(b);
    }
    all.truncate(limit);
    (all, total)
}
