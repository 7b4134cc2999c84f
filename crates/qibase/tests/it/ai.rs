//! The difficulty levels against a random mover, from many random
//! positions, checked against the solver's tables: `perfect` always plays a
//! move of exactly the position's value and wins every won position in at
//! most its remoteness; the result-keeping choice (what `hard`, `medium`
//! and `easy` play when they make no mistake) never worsens the result and
//! wins too. The levels' mistakes come at their stated rates, `hard`'s are
//! the mildest.

use std::collections::HashMap;

use crate::compiled::solve_in_memory;
use qibase::ai::{choose, choose_index_with_policy, Difficulty, Rng};
use qibase::analysis::{analyse, principal_variation, MemoryOracle, Oracle};
use qibase::games::{CannonChess, Weiming};
use qibase::{Game, Notation, Rules, TierKey};
use qibase::{Packed, Value, Wdl};

fn class(w: Wdl) -> u8 {
    match w {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

fn lookup<G: Game>(g: &G, t: &HashMap<TierKey, Vec<Packed>>, p: &G::Pos) -> Value {
    let k = g.tier_of(p);
    Value::unpack(t[&k][g.rank(k, p) as usize]).unwrap()
}

/// A random position of the subset that is not over, by unranking.
fn random_position<G: Game>(g: &G, tiers: &[TierKey], rng: &mut Rng) -> G::Pos {
    loop {
        let t = tiers[rng.below(tiers.len())];
        let i = rng.below(g.tier_size(t) as usize) as u64;
        let p = g.unrank(t, i);
        if g.rank(t, &p) == i && g.game_end(&p).is_none() {
            return p;
        }
    }
}

/// Who plays against the random mover.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mover {
    /// The `perfect` level.
    Perfect,
    /// The fallible levels' choice when they make no mistake.
    KeepResult,
}

/// Play `games` games of `level` (the side to move at the start) against
/// a uniformly random mover; returns (won, drawn-or-unfinished, lost) starts.
fn level_vs_random<G: Game>(
    g: &G,
    max: Option<u32>,
    keep_draws: u32,
    level: Mover,
    games: usize,
    seed: u64,
) -> [usize; 3] {
    let tables = solve_in_memory(g, max);
    let tiers = g.tiers(max);
    let oracle = MemoryOracle::from_tiers(g, tables.clone());
    let mut rng = Rng::new(seed);
    let mut ai_rng = Rng::new(seed ^ 0x5555);
    let mut starts = [0; 3];
    for _ in 0..games {
        // Decisive starts are rare in some subsets: keep a drawn start
        // only `keep_draws` % of the time.
        let p0 = loop {
            let p = random_position(g, &tiers, &mut rng);
            if lookup(g, &tables, &p) != Value::Draw || rng.chance(keep_draws) {
                break p;
            }
        };
        let me = g.side_to_move(&p0);
        let v0 = lookup(g, &tables, &p0);
        starts[2 - class(v0.wdl()) as usize] += 1;
        let limit = match v0 {
            Value::Win(n) => n as usize,
            _ => 200,
        };
        let mut p = p0;
        let mut plies = 0;
        let mut ms = Vec::new();
        while plies < limit {
            if g.game_end(&p).is_some() {
                break;
            }
            if g.side_to_move(&p) == me {
                let v = lookup(g, &tables, &p);
                assert!(
                    class(v.wdl()) >= class(v0.wdl()),
                    "{level:?}: {} worsened from {v0} to {v}",
                    g.format_pos(&p0)
                );
                let (a, i) = match level {
                    Mover::Perfect => {
                        choose(g, &oracle, &p, Difficulty::Perfect, &mut ai_rng).unwrap()
                    }
                    Mover::KeepResult => {
                        let a = analyse(g, &oracle, &p).unwrap();
                        let i = choose_index_with_policy(&a, None, &mut ai_rng).unwrap();
                        (a, i)
                    }
                };
                let m = &a.moves[i.unwrap()];
                let mv = Value::of_move_to(lookup(g, &tables, &m.after));
                assert_eq!(mv, m.value);
                match level {
                    Mover::Perfect => {
                        assert_eq!(mv, v, "perfect not optimal in {}", g.format_pos(&p))
                    }
                    _ => assert_eq!(
                        mv.wdl(),
                        v.wdl(),
                        "the result-keeping choice changed the result in {}",
                        g.format_pos(&p)
                    ),
                }
                if let Value::Win(_) = v {
                    assert_eq!(
                        mv,
                        v,
                        "{level:?} must take a fastest win in {}",
                        g.format_pos(&p)
                    );
                }
                p = m.after;
            } else {
                ms.clear();
                g.moves(&p, &mut ms);
                p = g.apply(&p, &ms[rng.below(ms.len())]);
            }
            plies += 1;
        }
        if let Value::Win(n) = v0 {
            let end = g.game_end(&p).unwrap_or_else(|| {
                panic!(
                    "{level:?}: win {n} from {} not finished in {n} plies",
                    g.format_pos(&p0)
                )
            });
            // The side to move at the end has lost, and it is not us.
            assert_ne!(g.side_to_move(&p), me, "{level:?} lost a won position");
            assert!(matches!(end.value, Value::Loss(0)));
        }
        if v0 == Value::Draw {
            if let Some(end) = g.game_end(&p) {
                assert!(
                    !(g.side_to_move(&p) == me && end.value == Value::Loss(0)),
                    "{level:?} lost a drawn position {}",
                    g.format_pos(&p0)
                );
            }
        }
    }
    starts
}

#[test]
fn perfect_vs_random_weiming() {
    let s = level_vs_random(&Weiming::new(), None, 20, Mover::Perfect, 3000, 1);
    assert!(
        s[0] > 100 && s[1] > 100 && s[2] > 100,
        "too few starts of a kind: {s:?}"
    );
}

#[test]
fn perfect_vs_random_cannon_chess_subset() {
    // The closed subset with at most two pieces a side.
    let s = level_vs_random(
        &CannonChess::standard(),
        Some(2),
        2,
        Mover::Perfect,
        1500,
        5,
    );
    assert!(s[0] > 300 && s[1] > 100, "too few starts of a kind: {s:?}");
}

#[test]
fn keep_result_vs_random_cannon_chess_subset() {
    level_vs_random(
        &CannonChess::standard(),
        Some(2),
        2,
        Mover::KeepResult,
        500,
        6,
    );
}

#[test]
fn keep_result_vs_random_weiming() {
    level_vs_random(&Weiming::new(), None, 20, Mover::KeepResult, 1500, 2);
}

#[test]
fn mistakes_happen_at_the_stated_rate() {
    // In positions that have both a result-keeping move and a worse one,
    // easy errs about 40 % of the time, medium about 10 %, hard about 2 %
    // and always with the mildest mistake (the best of the worse moves).
    let g = Weiming::new();
    let oracle = MemoryOracle::solve(&g, None);
    let mut rng = Rng::new(3);
    let mut positions = Vec::new();
    while positions.len() < 2000 {
        let p = random_position(&g, &[0], &mut rng);
        let a = analyse(&g, &oracle, &p).unwrap();
        if a.moves.iter().any(|m| m.value.wdl() != a.value.wdl()) {
            positions.push(p);
        }
    }
    assert_eq!(Difficulty::Perfect.mistake_percent(), 0);
    for (level, percent, lo, hi) in [
        (Difficulty::Hard, 2, 0.01, 0.03),
        (Difficulty::Medium, 10, 0.08, 0.12),
        (Difficulty::Easy, 40, 0.37, 0.43),
    ] {
        assert_eq!(level.mistake_percent(), percent);
        let mut r = Rng::new(11);
        let mut errs = 0;
        let mut milder_exists = 0;
        for p in &positions {
            let (a, i) = choose(&g, &oracle, p, level, &mut r).unwrap();
            let chosen = a.moves[i.unwrap()].value;
            if chosen.wdl() != a.value.wdl() {
                errs += 1;
                // The best move of a worse class than the position's.
                let mildest = a
                    .moves
                    .iter()
                    .find(|m| class(m.value.wdl()) < class(a.value.wdl()))
                    .unwrap()
                    .value;
                if chosen != mildest {
                    milder_exists += 1;
                }
            }
        }
        let rate = errs as f64 / positions.len() as f64;
        assert!((lo..=hi).contains(&rate), "{level}: mistake rate {rate}");
        if level == Difficulty::Hard {
            assert!(errs > 0);
            assert_eq!(
                milder_exists, 0,
                "hard made a mistake that was not the mildest"
            );
        } else {
            // Random mistakes: often not the mildest one.
            assert!(milder_exists > 0, "{level}: only mildest mistakes");
        }
    }
}

#[test]
fn same_seed_same_choices() {
    let g = Weiming::new();
    let oracle = MemoryOracle::solve(&g, None);
    let p = g.start();
    let picks = |seed| {
        let mut r = Rng::new(seed);
        (0..50)
            .map(|_| choose(&g, &oracle, &p, Difficulty::Easy, &mut r).unwrap().1)
            .collect::<Vec<_>>()
    };
    assert_eq!(picks(5), picks(5));
}

#[test]
fn analysis_order_and_principal_variation() {
    let g = Weiming::new();
    let oracle = MemoryOracle::solve(&g, None);
    let mut rng = Rng::new(4);
    for _ in 0..300 {
        let p = random_position(&g, &[0], &mut rng);
        let a = analyse(&g, &oracle, &p).unwrap();
        assert_eq!(a.best().unwrap().value, a.value);
        for w in a.moves.windows(2) {
            assert!(w[0].value > w[1].value || (w[0].value == w[1].value && w[0].text < w[1].text));
        }
        let pv = principal_variation(&g, &oracle, &p).unwrap();
        match a.value {
            Value::Win(n) | Value::Loss(n) => {
                assert_eq!(pv.len(), n as usize);
                assert!(g.game_end(&pv.last().unwrap().after).is_some());
            }
            Value::Draw => {
                assert_eq!(pv.len(), 40);
                assert!(pv.iter().all(|m| m.value == Value::Draw));
            }
        }
    }
}

#[test]
fn a_pass_switches_sides_and_frees_the_shared_piece() {
    let g = Weiming::new();
    let p = g.parse_pos("XXX/.S./OOO O !").unwrap();
    assert_eq!(g.format_pos(&g.pass(&p)), "XXX/.S./OOO X -");
    let q = g.parse_pos("X.X/SXO/O.O X -").unwrap();
    assert_eq!(g.format_pos(&g.pass(&q)), "X.X/SXO/O.O O -");
    let oracle = MemoryOracle::solve(&g, None);
    assert!(oracle.value(&g.pass(&p)).is_ok());
}
