//! A second, deliberately simple solver to check the real one against.
//!
//! It shares nothing with [`crate::solver`] but the rules: no un-moves, no
//! counters, no tiers in its logic, no fast paths of the numbering. It lists
//! every stored position of a closed subset (by [`Rules::unrank`] and
//! [`Rules::rank`] alone), records each one's children as list indices, and
//! then runs forward value iteration in rounds: round r decides exactly the
//! positions of remoteness r from the values of earlier rounds — `win r` if
//! some child is `loss r-1`, `loss r` if every child is a win and the
//! longest is `win r-1`. What no round decides is a draw.
//!
//! It needs tens of bytes per position, so it is meant for subsets of a few
//! million positions: the test suite's small variants, and the small tiers
//! of a research table (`qibase-dev brute-check`).
//!
//! [`Rules::unrank`]: crate::game::Tiers::unrank
//! [`Rules::rank`]: crate::game::Tiers::rank

use rayon::prelude::*;

use crate::game::{Game, TierKey};
use crate::value::Value;

/// Every stored position of a closed subset with its value by forward
/// iteration, in tier order and slot order.
pub struct ReferenceSolution<P> {
    /// The stored positions.
    pub positions: Vec<P>,
    /// (tier, slot) of each position, to compare with a solver's table.
    pub slots: Vec<(TierKey, u64)>,
    /// The value of each position for its side to move.
    pub values: Vec<Value>,
}

/// Solve the closed subset `g.tiers(max)` by forward value iteration.
///
/// # Panics
/// If the subset is not closed under moves (a child outside its tiers), or
/// holds more than 2^32 positions: both are misuse, not bad input.
pub fn solve_forward<G: Game>(g: &G, max: Option<u32>) -> ReferenceSolution<G::Pos> {
    let tiers = g.tiers(max);
    // Position number of each (tier, slot): a dense array per tier, with
    // u32::MAX for the slots that hold no stored position.
    let mut positions = Vec::new();
    let mut slots = Vec::new();
    let max_key = tiers.iter().copied().max().unwrap_or(0) as usize;
    let mut number: Vec<Vec<u32>> = vec![Vec::new(); max_key + 1];
    for &t in &tiers {
        let n = g.tier_size(t);
        let mut numbers = vec![u32::MAX; n as usize];
        for (i, slot) in numbers.iter_mut().enumerate() {
            let p = g.unrank(t, i as u64);
            if g.rank(t, &p) == i as u64 {
                *slot = u32::try_from(positions.len()).expect("at most 2^32 positions");
                positions.push(p);
                slots.push((t, i as u64));
            }
        }
        number[t as usize] = numbers;
    }
    let numbered = |t: TierKey, i: u64| -> u32 {
        let k = number
            .get(t as usize)
            .and_then(|v| v.get(i as usize))
            .copied()
            .unwrap_or(u32::MAX);
        assert!(k != u32::MAX, "the subset is not closed under moves");
        k
    };
    let (children, ended): (Vec<Vec<u32>>, Vec<Option<Value>>) = positions
        .par_iter()
        .map(|p| {
            if let Some(e) = g.rule_end(p) {
                return (Vec::new(), Some(e.value));
            }
            let mut moves = Vec::new();
            g.moves(p, &mut moves);
            if moves.is_empty() {
                return (Vec::new(), Some(Value::Loss(0)));
            }
            let kids = moves
                .iter()
                .map(|m| {
                    let c = g.apply(p, m);
                    let t = g.tier_of(&c);
                    numbered(t, g.rank(t, &c))
                })
                .collect();
            (kids, None)
        })
        .unzip();
    let values = iterate(&children, ended);
    ReferenceSolution {
        positions,
        slots,
        values,
    }
}

/// Forward value iteration over an explicit graph.
fn iterate(children: &[Vec<u32>], ended: Vec<Option<Value>>) -> Vec<Value> {
    let n = children.len();
    let mut val = ended;
    let mut r: u16 = 1;
    loop {
        let snapshot = &val;
        let decided: Vec<(usize, Value)> = (0..n)
            .into_par_iter()
            .filter(|&i| snapshot[i].is_none())
            .filter_map(|i| {
                let kids = &children[i];
                if kids
                    .iter()
                    .any(|&c| snapshot[c as usize] == Some(Value::Loss(r - 1)))
                {
                    return Some((i, Value::Win(r)));
                }
                let mut longest = 0;
                for &c in kids {
                    match snapshot[c as usize] {
                        Some(Value::Win(k)) => longest = longest.max(k),
                        _ => return None,
                    }
                }
                (longest + 1 == r).then_some((i, Value::Loss(r)))
            })
            .collect();
        if decided.is_empty() {
            break;
        }
        for (i, v) in decided {
            val[i] = Some(v);
        }
        r += 1;
    }
    val.into_iter().map(|v| v.unwrap_or(Value::Draw)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made graph: 0 → 1 → 2 (2 has no move: lost), 3 ↔ 4 (a cycle:
    /// drawn), 5 → {2, 3} (wins by moving to 2), 6 → {0} (0 loses in 2).
    #[test]
    fn iteration_on_a_hand_made_graph() {
        let children = vec![
            vec![1],
            vec![2],
            vec![],
            vec![4],
            vec![3],
            vec![2, 3],
            vec![0],
        ];
        let mut ended = vec![None; 7];
        ended[2] = Some(Value::Loss(0));
        let v = iterate(&children, ended);
        assert_eq!(
            v,
            vec![
                Value::Loss(2),
                Value::Win(1),
                Value::Loss(0),
                Value::Draw,
                Value::Draw,
                Value::Win(1),
                Value::Win(3),
            ]
        );
    }
}
