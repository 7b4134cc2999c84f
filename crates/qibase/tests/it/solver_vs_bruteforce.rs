//! The retrograde solver against a deliberately simple second solver, on
//! closed subsets of every game: value and remoteness, position by position.
//!
//! The second solver is [`qibase::reference`]: forward value iteration in
//! rounds over an explicit list of positions, with no un-moves, no counters
//! and no tiers.

use std::collections::HashMap;

use crate::compiled::solve_in_memory;
use qibase::games::{CannonChess, Cannons, Weiming};
use qibase::reference::solve_forward;
use qibase::solver::TierValues;
use qibase::verify::check_tier;
use qibase::{Game, TierKey, Tiers};
use qibase::{Packed, Value};
use rayon::prelude::*;

type Solved = HashMap<TierKey, Vec<Packed>>;

/// The subset's tables, solved on a pool of `threads` threads.
fn solve_on<G: Game>(g: &G, max: Option<u32>, threads: usize) -> Solved {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| solve_in_memory(g, max))
}

/// Every check of one closed subset, on one solve of it (each solve of the
/// larger subsets takes seconds): the solver against brute force, position
/// by position; every tier consistent with its moves; and the same bytes
/// from one thread as from four. Returns the number of positions compared.
fn check_subset<G: Game>(g: &G, max: Option<u32>) -> usize {
    let solved = solve_on(g, max, 4);
    let n = compare(g, max, &solved);
    consistent(g, max, &solved);
    let one = solve_on(g, max, 1);
    for t in g.tiers(max) {
        assert!(
            one[&t] == solved[&t],
            "{} tier {} differs between 1 and 4 threads",
            g.id(),
            g.tier_name(t)
        );
    }
    n
}

fn compare<G: Game>(g: &G, max: Option<u32>, solved: &Solved) -> usize {
    let e = solve_forward(g, max);
    let expected = &e.values;
    let mut mismatches = 0;
    for (k, &(t, i)) in e.slots.iter().enumerate() {
        let got = Value::unpack(solved[&t][i as usize]);
        if got != Some(expected[k]) {
            if mismatches < 10 {
                eprintln!(
                    "{}: {} solver {:?} brute force {}",
                    g.id(),
                    g.format_pos(&e.positions[k]),
                    got,
                    expected[k]
                );
            }
            mismatches += 1;
        }
    }
    assert_eq!(mismatches, 0, "{} positions differ", mismatches);
    e.slots.len()
}

fn consistent<G: Game>(g: &G, max: Option<u32>, solved: &Solved) {
    for t in g.tiers(max) {
        let mut lower = TierValues::new();
        for d in g.tier_deps(t) {
            lower.add(d, &solved[&d]);
        }
        let report = check_tier(g, t, &solved[&t], &lower, 5, &|_| {});
        assert!(report.checked > 0);
        assert_eq!(
            report.inconsistent,
            0,
            "{} tier {}: {:?}",
            g.id(),
            g.tier_name(t),
            report.examples
        );
    }
}

#[test]
fn weiming_matches_brute_force() {
    let g = Weiming::new();
    assert_eq!(check_subset(&g, None), 20_160);
}

#[test]
fn cannon_chess_4x4_three_a_side_matches_brute_force() {
    let g = CannonChess::four_by_four();
    // One position per class under the 8 board symmetries and colour swap.
    assert_eq!(check_subset(&g, Some(3)), 35_095);
}

#[test]
fn cannon_chess_three_a_side_matches_brute_force() {
    let g = CannonChess::standard();
    // One position per class under the 4 board symmetries and colour swap.
    assert_eq!(check_subset(&g, Some(3)), 291_315);
}

#[test]
fn two_cannons_five_soldiers_matches_brute_force() {
    let g = Cannons::two_cannons();
    check_subset(&g, Some(5));
}

#[test]
fn three_cannons_five_soldiers_matches_brute_force() {
    let g = Cannons::three_cannons();
    check_subset(&g, Some(5));
}

// ----- variants (issue 12): every rule switch, small boards --------------------

/// Un-moves exactly invert moves, at the level of index slots: for every
/// position q and every non-capturing move q → c, q's slot is among the
/// slots of the un-moves of c's stored position; and every un-move of a
/// stored position p is a position without rule end that has a move into
/// p's slot.
fn unmoves_exact<G: Game>(g: &G, max: Option<u32>) {
    for t in g.tiers(max) {
        let bad: usize = (0..g.tier_size(t))
            .into_par_iter()
            .map(|i| {
                let p = g.unrank(t, i);
                if g.rank(t, &p) != i {
                    return 0;
                }
                let mut bad = 0;
                let mut qs = Vec::new();
                g.unmoves(&p, &mut qs);
                for q in &qs {
                    let mut ms = Vec::new();
                    g.moves(q, &mut ms);
                    let ok = g.tier_of(q) == t
                        && g.rule_end(q).is_none()
                        && ms.iter().any(|m| {
                            let c = g.apply(q, m);
                            g.tier_of(&c) == t && g.rank(t, &c) == i
                        });
                    if !ok {
                        bad += 1;
                    }
                }
                if g.rule_end(&p).is_some() {
                    return bad;
                }
                let mut ms = Vec::new();
                g.moves(&p, &mut ms);
                for m in &ms {
                    let c = g.apply(&p, m);
                    if g.tier_of(&c) != t {
                        continue;
                    }
                    let ci = g.rank(t, &c);
                    let stored = g.unrank(t, ci);
                    let mut back = Vec::new();
                    g.unmoves(&stored, &mut back);
                    if !back.iter().any(|q| g.rank(t, q) == i) {
                        bad += 1;
                    }
                }
                bad
            })
            .sum();
        assert_eq!(
            bad,
            0,
            "{} tier {}: un-moves not exact",
            g.id(),
            g.tier_name(t)
        );
    }
}

fn check_variant(spec: &str, max: Option<u32>) {
    use qibase::games::AnyGame;
    let any = AnyGame::from_id(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    qibase::with_game!(any, |g| {
        assert_eq!(g.id(), spec, "canonical name");
        let solved = solve_in_memory(g, max);
        let n = compare(g, max, &solved);
        assert!(n > 0);
        consistent(g, max, &solved);
        unmoves_exact(g, max);
    });
}

#[test]
fn cannon_chess_variants_match_brute_force() {
    for (spec, max) in [
        ("cannon-chess-4x4:tiao=any", Some(3)),
        ("cannon-chess:tiao=any", Some(2)),
        ("cannon-chess:board=3x3,pieces=3,tiao=any", None),
        (
            "cannon-chess:board=3x3,lone=step,one-v-one=play,pieces=3",
            None,
        ),
        ("cannon-chess:board=4x3,lone=step,pieces=4", None),
        (
            "cannon-chess:board=4x3,one-v-one=play,pieces=4,tiao=any",
            None,
        ),
        (
            "cannon-chess:board=3x4,lone=step,one-v-one=play,pieces=4,tiao=any",
            Some(3),
        ),
        ("cannon-chess:board=5x5,pieces=3,tiao=any", Some(2)),
        ("cannon-chess:board=8x2,pieces=4,tiao=any", Some(3)),
    ] {
        check_variant(spec, max);
    }
}

#[test]
fn cannons_variants_match_brute_force() {
    for (spec, max) in [
        ("two-cannons:immobility=static", Some(3)),
        (
            "three-cannons:board=4x4,immobility=static,soldiers=6,threshold=3",
            None,
        ),
        ("two-cannons:board=3x3,soldiers=4,threshold=2", None),
        (
            "two-cannons:board=3x3,immobility=static,soldiers=5,threshold=1",
            None,
        ),
        (
            "two-cannons:board=4x3,cannons=1,immobility=static,soldiers=6,threshold=3",
            None,
        ),
        (
            "two-cannons:board=4x4,immobility=static,soldiers=8,threshold=5",
            Some(7),
        ),
        ("three-cannons:board=5x3,soldiers=8,threshold=2", Some(6)),
    ] {
        check_variant(spec, max);
    }
}

/// Boards of 33 to 64 points, where bitboards need all 64 bits: both
/// families, few pieces, square boards (eight symmetries) and oblong ones
/// (four).
#[test]
fn boards_over_32_points_match_brute_force() {
    for (spec, max) in [
        ("cannon-chess:board=6x6,pieces=3", Some(2)),
        ("cannon-chess:board=7x5,pieces=3,tiao=any", Some(2)),
        ("cannon-chess:board=8x8,lone=step,pieces=2", None),
        ("cannon-chess:board=11x3,pieces=3", Some(2)),
        (
            "two-cannons:board=6x6,cannons=1,soldiers=4,threshold=2",
            Some(3),
        ),
        ("two-cannons:board=7x5,soldiers=4,threshold=3", Some(3)),
        (
            "two-cannons:board=8x8,cannons=1,immobility=static,soldiers=3,threshold=2",
            None,
        ),
    ] {
        check_variant(spec, max);
    }
}
