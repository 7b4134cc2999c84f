//! Puzzle selection (`qibase::puzzles`) checked against the solver's
//! tables, recomputed here move by move: every puzzle has exactly one
//! result-keeping move, its wrong moves are all the others with their
//! values, its refutations are legal and start with a best reply; weiming's
//! puzzles are reachable from the start; a seed fixes the selection.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::compiled::solve_in_memory;
use qibase::analysis::MemoryOracle;
use qibase::games::{CannonChess, Weiming};
use qibase::puzzles::{select, PuzzleError, PuzzleOptions, PuzzleSet, FORMAT};
use qibase::Rng;
use qibase::{Game, Notation, Rules, TierKey, Tiers};
use qibase::{Packed, Value};

type Tables = HashMap<TierKey, Vec<Packed>>;

fn value<G: Game>(g: &G, t: &Tables, p: &G::Pos) -> Value {
    if let Some(e) = g.game_end(p) {
        return e.value;
    }
    let k = g.tier_of(p);
    Value::unpack(t[&k][g.rank(k, p) as usize]).unwrap()
}

/// Check every puzzle of `set` against the tables.
fn check_set<G: Game>(g: &G, t: &Tables, set: &PuzzleSet) {
    assert_eq!(set.format, FORMAT);
    assert_eq!(set.game, g.variant_spec());
    let mut ids = HashSet::new();
    for (k, pz) in set.puzzles.iter().enumerate() {
        assert_eq!(pz.id, format!("{}-{}", g.id(), k + 1));
        assert!(ids.insert(pz.id.clone()));
        let p = g.parse_pos(&pz.position).unwrap();
        assert!(g.game_end(&p).is_none(), "{}: game over", pz.position);
        let v = value(g, t, &p);
        assert_eq!(pz.value, v.to_string(), "{}", pz.position);
        assert_ne!(v.wdl(), qibase::Wdl::Loss);
        assert_eq!(pz.difficulty.remoteness, v.remoteness());
        assert!((1..=5).contains(&pz.difficulty.grade));
        let mut ms = Vec::new();
        g.moves(&p, &mut ms);
        let mut keepers = Vec::new();
        let mut others = HashMap::new();
        for m in &ms {
            let mv = Value::of_move_to(value(g, t, &g.apply(&p, m)));
            if mv.wdl() == v.wdl() {
                keepers.push(g.format_move(m));
            } else {
                others.insert(g.format_move(m), mv);
            }
        }
        assert_eq!(keepers, std::slice::from_ref(&pz.best), "{}", pz.position);
        assert_eq!(pz.wrong.len(), others.len(), "{}", pz.position);
        let mut tempting = 0;
        for w in &pz.wrong {
            let mv = others[&w.mv];
            assert_eq!(w.value, mv.to_string(), "{} {}", pz.position, w.mv);
            // The refutation: legal, each move value-optimal.
            let mut q = g.apply(&p, &g.parse_move(&p, &w.mv).unwrap());
            assert!(!w.refutation.is_empty() || g.game_end(&q).is_some());
            for r in &w.refutation {
                let best = value(g, t, &q);
                let m = g.parse_move(&q, r).unwrap();
                let after = g.apply(&q, &m);
                assert_eq!(Value::of_move_to(value(g, t, &after)), best);
                q = after;
            }
            // Its consequence more than 4 plies after it: a loss in n
            // after n - 1, a draw instead of a win in n after n.
            let subtle = match (mv, v) {
                (Value::Loss(n), _) => n > 5,
                (_, Value::Win(n)) => n > 4,
                _ => unreachable!(),
            };
            if subtle || w.capture {
                tempting += 1;
            }
        }
        assert_eq!(pz.difficulty.tempting, tempting, "{}", pz.position);
    }
}

fn weiming_set(count: usize, seed: u64) -> (Weiming, Tables, PuzzleSet) {
    let g = Weiming::new();
    let t = solve_in_memory(&g, None);
    let oracle = MemoryOracle::from_tiers(&g, t.clone());
    let opts = PuzzleOptions::new(count, seed, vec![g.start()]);
    let set = select(&g, &oracle, &opts).unwrap();
    (g, t, set)
}

#[test]
fn weiming_puzzles_are_unique_reachable_and_spread() {
    let (g, t, set) = weiming_set(30, 1);
    assert_eq!(set.puzzles.len(), 30);
    check_set(&g, &t, &set);
    // Reachable: every position of the game reachable from the start.
    let mut reach = HashSet::from([g.start()]);
    let mut queue = VecDeque::from([g.start()]);
    let mut ms = Vec::new();
    while let Some(p) = queue.pop_front() {
        if g.game_end(&p).is_some() {
            continue;
        }
        ms.clear();
        g.moves(&p, &mut ms);
        for m in &ms {
            let q = g.apply(&p, m);
            if reach.insert(q) {
                queue.push_back(q);
            }
        }
    }
    for pz in &set.puzzles {
        assert!(reach.contains(&g.parse_pos(&pz.position).unwrap()));
    }
    // Every grade, easiest first; wins and draws.
    let grades: Vec<u8> = set.puzzles.iter().map(|p| p.difficulty.grade).collect();
    assert!(grades.windows(2).all(|w| w[0] <= w[1]));
    for grade in 1..=5 {
        assert!(grades.contains(&grade), "no grade {grade}: {grades:?}");
    }
    assert!(set.puzzles.iter().any(|p| p.value == "draw"));
    assert!(set.puzzles.iter().any(|p| p.value.starts_with("win")));
    // No position twice.
    let positions: HashSet<&str> = set.puzzles.iter().map(|p| p.position.as_str()).collect();
    assert_eq!(positions.len(), set.puzzles.len());
}

#[test]
fn a_seed_fixes_the_selection() {
    let (_, _, a) = weiming_set(20, 7);
    let (_, _, b) = weiming_set(20, 7);
    let (_, _, c) = weiming_set(20, 8);
    assert_eq!(a, b);
    assert_ne!(a.puzzles, c.puzzles);
}

#[test]
fn cannon_chess_subset_puzzles() {
    // The closed subset with at most three pieces a side; the walks start
    // at random 3 v 3 positions (the game's start is outside the subset).
    let g = CannonChess::standard();
    let t = solve_in_memory(&g, Some(3));
    let oracle = MemoryOracle::from_tiers(&g, t.clone());
    let top = *g.tiers(Some(3)).last().unwrap();
    let mut rng = Rng::new(2);
    let mut starts = Vec::new();
    while starts.len() < 8 {
        let i = rng.below(g.tier_size(top) as usize) as u64;
        let p = g.unrank(top, i);
        if g.rank(top, &p) == i && g.game_end(&p).is_none() {
            starts.push(p);
        }
    }
    let opts = PuzzleOptions::new(25, 3, starts.clone());
    let set = select(&g, &oracle, &opts).unwrap();
    assert_eq!(set.puzzles.len(), 25);
    check_set(&g, &t, &set);
    assert_eq!(select(&g, &oracle, &opts).unwrap(), set);

    // The full game's start is outside the subset: a lookup error.
    let outside = PuzzleOptions::new(5, 3, vec![g.start()]);
    assert!(matches!(
        select(&g, &oracle, &outside),
        Err(PuzzleError::Lookup(_))
    ));
    // No puzzles asked for, no start, a start where the game is over.
    let zero = PuzzleOptions::new(0, 3, starts);
    assert!(matches!(
        select(&g, &oracle, &zero),
        Err(PuzzleError::Options(_))
    ));
    let none = PuzzleOptions::new(5, 3, Vec::new());
    assert!(matches!(
        select(&g, &oracle, &none),
        Err(PuzzleError::Options(_))
    ));
    let over = g.parse_pos("..../..../..../..../X... O").unwrap();
    let over_opts = PuzzleOptions::new(5, 3, vec![over]);
    assert!(matches!(
        select(&g, &oracle, &over_opts),
        Err(PuzzleError::Options(_))
    ));
}
