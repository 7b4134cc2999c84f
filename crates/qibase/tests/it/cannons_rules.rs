//! Rules, notation, numbering and un-moves of the cannon games
//! (`two-cannons`, `three-cannons`).

use qibase::contract::{check_game, Scope};
use qibase::games::cannons::{CannonsMove, CannonsPos};
use qibase::games::Cannons;
use qibase::perft;
use qibase::Rng;

use crate::naive::cannons::Naive;
use crate::naive::NaiveGame;
use qibase::{EndReason, Notation, ParseError, Rules, Side, Tiers, Value};

// ----- helpers ----------------------------------------------------------------

/// A random position with `k` soldiers (all 25 points, exact cannon count).
fn random_pos_k(g: &Cannons, rng: &mut Rng, k: u32) -> CannonsPos {
    let n = g.width() * g.height();
    let mut pts: Vec<u32> = (0..n).collect();
    for i in 0..pts.len() {
        let j = i + rng.below(pts.len() - i);
        pts.swap(i, j);
    }
    let c = g.cannon_count() as usize;
    let cannons = pts[..c].iter().fold(0u64, |b, &p| b | 1 << p);
    let soldiers = pts[c..c + k as usize].iter().fold(0u64, |b, &p| b | 1 << p);
    let side = if rng.below(2) == 0 {
        Side::First
    } else {
        Side::Second
    };
    CannonsPos {
        cannons,
        soldiers,
        side,
    }
}

fn random_pos(g: &Cannons, rng: &mut Rng) -> CannonsPos {
    let k = rng.below(g.max_soldiers() as usize + 1) as u32;
    random_pos_k(g, rng, k)
}

fn pos(g: &Cannons, s: &str) -> CannonsPos {
    g.parse_pos(s)
        .unwrap_or_else(|e| panic!("bad test position {s}: {e}"))
}

fn move_list(g: &Cannons, p: &CannonsPos) -> Vec<String> {
    let mut ms = Vec::new();
    g.moves(p, &mut ms);
    let mut v: Vec<String> = ms.iter().map(|m| g.format_move(m)).collect();
    v.sort();
    v
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

fn children(g: &Cannons, p: &CannonsPos) -> Vec<(CannonsMove, CannonsPos)> {
    let mut ms = Vec::new();
    g.moves(p, &mut ms);
    ms.iter().map(|m| (*m, g.apply(p, m))).collect()
}

/// Test-local board symmetry on a 5×5 bitboard (independent of the library's
/// tables): s & 4 transpose, s & 1 mirror files, s & 2 mirror ranks.
fn sym_bb(s: usize, bb: u64) -> u64 {
    let mut out = 0;
    for p in 0..25u32 {
        if bb >> p & 1 == 0 {
            continue;
        }
        let (mut x, mut y) = (p % 5, p / 5);
        if s & 4 != 0 {
            std::mem::swap(&mut x, &mut y);
        }
        if s & 1 != 0 {
            x = 4 - x;
        }
        if s & 2 != 0 {
            y = 4 - y;
        }
        out |= 1 << (y * 5 + x);
    }
    out
}

fn sym_pos(s: usize, p: &CannonsPos) -> CannonsPos {
    CannonsPos {
        cannons: sym_bb(s, p.cannons),
        soldiers: sym_bb(s, p.soldiers),
        side: p.side,
    }
}

fn is_image(a: &CannonsPos, b: &CannonsPos) -> bool {
    (0..8).any(|s| sym_pos(s, a) == *b)
}

// ----- hand-made positions ------------------------------------------------------

#[test]
fn start_positions_and_descriptions() {
    let g = Cannons::two_cannons();
    assert_eq!(g.format_pos(&g.start()), "SSSSS/SSSSS/S...S/...../.C.C. C");
    assert_eq!(g.id(), "two-cannons");
    assert_eq!(g.title(), "Two Cannons, Twelve Soldiers");
    assert_eq!(g.board_desc(), "5 × 5 grid, 25 points");
    assert_eq!(g.material_desc(), "2 cannons, 12 soldiers");
    assert_eq!(
        move_list(&g, &g.start()),
        sorted(&["b1-a1", "b1-c1", "b1-b2", "d1-c1", "d1-e1", "d1-d2"])
    );
    let h = Cannons::three_cannons();
    assert_eq!(h.format_pos(&h.start()), "SSSSS/SSSSS/SSSSS/...../.CCC. C");
    assert_eq!(h.title(), "Three Cannons, Fifteen Soldiers (三炮十五兵)");
    assert_eq!(h.material_desc(), "3 cannons, 15 soldiers");
    assert_eq!(
        move_list(&h, &h.start()),
        sorted(&["b1-a1", "b1-b2", "b1-b3", "c1-c2", "c1-c3", "d1-d2", "d1-e1", "d1-d3"])
    );
    assert_ne!(g.rules_hash(), h.rules_hash());
    assert_eq!(g.rules_hash(), Cannons::two_cannons().rules_hash());
    let names = g.point_names();
    assert_eq!(names.len(), 25);
    assert_eq!((names[0].as_str(), names[1].as_str()), ("a1", "b1"));
    assert_eq!((names[5].as_str(), names[24].as_str()), ("a2", "e5"));
    let occ: String = g.occupancy(&g.start()).into_iter().collect();
    assert_eq!(occ, ".C.C......S...SSSSSSSSSSS");
}

#[test]
fn capture_is_optional_and_jumps_need_one_empty_point() {
    let g = Cannons::two_cannons();
    // c1 and e1 can each jump over one empty point onto a soldier, or step.
    let p = pos(&g, "S...S/...../..S.S/...../..C.C C");
    assert_eq!(
        move_list(&g, &p),
        sorted(&["c1-b1", "c1-d1", "c1-c2", "c1-c3", "e1-d1", "e1-e2", "e1-e3"])
    );
    // The point between is a soldier: no jump.
    let p = pos(&g, "S...S/...../..S.S/..S.S/..C.C C");
    assert_eq!(move_list(&g, &p), sorted(&["c1-b1", "c1-d1", "e1-d1"]));
    // Two empty points between: no jump (neither landing nor farther).
    let p = pos(&g, "S...S/..S.S/...../...../..C.C C");
    assert_eq!(
        move_list(&g, &p),
        sorted(&["c1-b1", "c1-d1", "c1-c2", "e1-d1", "e1-e2"])
    );
    // Not over a cannon; horizontal jumps work; no landing on an empty point.
    let p = pos(&g, "SS.../...../S..../C..../C.S.. C");
    assert_eq!(move_list(&g, &p), sorted(&["a1-b1", "a1-c1", "a2-b2"]));
    // Soldiers never capture: they only step.
    let p = pos(&g, "SS.../...../S..../C..../C.S.. S");
    assert_eq!(
        move_list(&g, &p),
        sorted(&["a3-a4", "a3-b3", "a5-a4", "b5-b4", "b5-c5", "c1-b1", "c1-d1", "c1-c2"])
    );
    // The capture removes exactly the soldier and moves the cannon.
    let p = pos(&g, "S...S/SS.../..S.S/...../..C.C C");
    let m = g.parse_move(&p, "c1-c3").unwrap();
    assert_eq!(
        g.format_pos(&g.apply(&p, &m)),
        "S...S/SS.../..C.S/...../....C S"
    );
    let m = g.parse_move(&p, "c1-c2").unwrap();
    assert_eq!(
        g.format_pos(&g.apply(&p, &m)),
        "S...S/SS.../..S.S/..C../....C S"
    );
}

#[test]
fn cannons_win_below_four_soldiers() {
    let g = Cannons::two_cannons();
    let p = pos(&g, "S...S/...../..S.S/...../..C.C C");
    assert!(g.rule_end(&p).is_none());
    let m = g.parse_move(&p, "c1-c3").unwrap();
    let q = g.apply(&p, &m);
    assert_eq!(g.format_pos(&q), "S...S/...../..C.S/...../....C S");
    let end = g.rule_end(&q).expect("3 soldiers: game over");
    assert_eq!(end.value, Value::Loss(0));
    assert_eq!(
        end.reason,
        EndReason::TooFewPieces {
            side: Side::Second,
            threshold: 4
        }
    );
    assert_eq!(g.game_end(&q), Some(end));
    // Checked first: even with moves available, and from the cannons' view a win.
    let r = pos(&g, "S...S/...../..C.S/...../....C C");
    let end = g.rule_end(&r).unwrap();
    assert_eq!(end.value, Value::Win(0));
    assert_eq!(
        end.reason,
        EndReason::TooFewPieces {
            side: Side::Second,
            threshold: 4
        }
    );
    // Exactly four soldiers: the game goes on.
    let r = pos(&g, "S...S/...../..C.S/...../S...C S");
    assert!(g.rule_end(&r).is_none());
    assert!(g.game_end(&r).is_none());
}

#[test]
fn stuck_cannons_lose_on_their_turn_only() {
    let g = Cannons::two_cannons();
    // Soldiers trap the last free cannon with d2-d1.
    let p = pos(&g, "...../...../...../S..SS/CS..C S");
    let m = g.parse_move(&p, "d2-d1").unwrap();
    let q = g.apply(&p, &m);
    assert_eq!(g.format_pos(&q), "...../...../...../S...S/CS.SC C");
    assert!(g.rule_end(&q).is_none(), "no legal move is not a rule end");
    assert!(move_list(&g, &q).is_empty());
    let end = g.game_end(&q).unwrap();
    assert_eq!(end.value, Value::Loss(0));
    assert_eq!(end.reason, EndReason::NoLegalMove);
    // Same placement with the soldiers to move: no end, the soldiers move
    // (and may have to free a cannon).
    let r = pos(&g, "...../...../...../S...S/CS.SC S");
    assert!(g.rule_end(&r).is_none());
    assert!(g.game_end(&r).is_none());
    assert_eq!(
        move_list(&g, &r),
        sorted(&["a2-a3", "a2-b2", "b1-c1", "b1-b2", "d1-c1", "d1-d2", "e2-d2", "e2-e3"])
    );
    // A cannon move never immobilises the cannons: the mover can step back.
    let mut rng = Rng::new(7);
    for _ in 0..20_000 {
        let k = 4 + rng.below(9) as u32;
        let p = random_pos_k(&g, &mut rng, k);
        if p.side != Side::First {
            continue;
        }
        for (_, c) in children(&g, &p) {
            let back = CannonsPos {
                side: Side::First,
                ..c
            };
            assert!(!move_list(&g, &back).is_empty());
        }
    }
}

#[test]
fn stuck_soldiers_lose() {
    // On 5 × 5 with two or three cannons four soldiers can never be stuck
    // (a set of 4+ points has at least 4 outside neighbours), so use the
    // same rules on a 4 × 2 board: soldiers a1 b1 a2 b2 walled in by c1 c2.
    let g = Cannons::new("tiny", "tiny", 4, 2, 2, 4, "SSC./SSC. C");
    let p = pos(&g, "SSC./SSC. S");
    assert!(g.rule_end(&p).is_none());
    assert!(move_list(&g, &p).is_empty());
    let end = g.game_end(&p).unwrap();
    assert_eq!(end.value, Value::Loss(0));
    assert_eq!(end.reason, EndReason::NoLegalMove);
    // With the cannons to move, the cannons can step: play on.
    let p = pos(&g, "SSC./SSC. C");
    assert!(g.game_end(&p).is_none());
    // One soldier free to step: play on.
    let p = pos(&g, "SS.C/SSC. S");
    assert!(g.game_end(&p).is_none());
    // Such positions are ranked like any other (4 symmetries on 4 × 2).
    assert_eq!(g.symmetry_count(), 4);
    let t = g.tier_of(&p);
    assert_eq!(g.rank(t, &g.unrank(t, g.rank(t, &p))), g.rank(t, &p));
}

// ----- notation -------------------------------------------------------------------

#[test]
fn parse_format_round_trip() {
    for g in [Cannons::two_cannons(), Cannons::three_cannons()] {
        let mut rng = Rng::new(0x5eed_0001 + g.cannon_count() as u64);
        for _ in 0..20_000 {
            let p = random_pos(&g, &mut rng);
            let s = g.format_pos(&p);
            assert_eq!(s.len(), 31);
            let q = g.parse_pos(&s).unwrap();
            assert_eq!(p, q, "{s}");
            assert_eq!(g.format_pos(&q), s);
            // Occupancy agrees with the string.
            let occ = g.occupancy(&p);
            let board: Vec<char> = s[..29].split('/').rev().flat_map(|r| r.chars()).collect();
            assert_eq!(occ, board);
            // Moves round-trip through notation.
            let mut ms = Vec::new();
            g.moves(&p, &mut ms);
            for m in &ms {
                if g.rule_end(&p).is_none() {
                    assert_eq!(g.parse_move(&p, &g.format_move(m)).unwrap(), *m);
                }
            }
        }
    }
}

#[test]
fn malformed_positions_say_what_is_wrong() {
    let g = Cannons::two_cannons();
    let err = |s: &str| g.parse_pos(s).unwrap_err().to_string();
    assert!(err("SSSSS/SSSSS/S...S/..... C").contains("expected 5 ranks"));
    assert!(err("SSSSS/SSSSS/S...S/...../.C.C./..... C").contains("found 6"));
    assert!(err("SSSSS/SSSS/S...S/...../.C.C. C").contains("rank 4"));
    assert!(err("SSSSS/SSSSS/S...S/...../.C.C.. C").contains("has 6 points"));
    assert!(err("SSSSS/SSSSS/S.x.S/...../.C.C. C").contains("unknown character 'x'"));
    assert!(err("SSSSS/SSSSS/S...S/...../.c.C. C").contains("unknown character 'c'"));
    assert!(err("SSSSS/SSSSS/S...S/...../.CCC. C").contains("wrong number of cannons: 3"));
    assert!(err("SSSSS/SSSSS/S...S/...../.C... C").contains("wrong number of cannons: 1"));
    assert!(err("SSSSS/SSSSS/SSSSS/...../.C.C. C").contains("too many soldiers: 15"));
    assert!(err("SSSSS/SSSSS/S...S/...../.C.C.").contains("missing side"));
    assert!(err("SSSSS/SSSSS/S...S/...../.C.C. X").contains("invalid side to move 'X'"));
    assert!(err("SSSSS/SSSSS/S...S/...../.C.C. c").contains("invalid side"));
    assert!(err("SSSSS/SSSSS/S...S/...../.C.C. C 1").contains("trailing junk '1'"));
    assert!(err("").contains("empty"));
    // Three cannons exactly in three-cannons; 15 soldiers allowed there.
    let h = Cannons::three_cannons();
    assert!(h
        .parse_pos("SSSSS/SSSSS/SSSSS/...../.C.C. C")
        .unwrap_err()
        .to_string()
        .contains("exactly 3"));
    assert!(h.parse_pos("SSSSS/SSSSS/SSSSS/...../.CCC. S").is_ok());
    assert!(h
        .parse_pos("SSSSS/SSSSS/SSSSS/S..../.CCC. S")
        .unwrap_err()
        .to_string()
        .contains("too many soldiers: 16"));
    // Off the notation, or material the rules forbid.
    assert!(matches!(
        g.parse_pos("SSSSS/SSSSS/S...S/..... C"),
        Err(ParseError::Malformed { .. })
    ));
    assert!(matches!(
        g.parse_pos("SSSSS/SSSSS/S...S/...../.CCC. C"),
        Err(ParseError::IllegalPosition { .. })
    ));
}

#[test]
fn move_parsing_separates_malformed_from_illegal() {
    let g = Cannons::two_cannons();
    let p = g.start();
    for bad in [
        "b1b2", "b1-", "-b2", "z1-b2", "b1-b6", "b0-b1", "B1-B2", "b1-b2-b3", "",
    ] {
        let e = g.parse_move(&p, bad).unwrap_err();
        assert!(matches!(e, ParseError::Malformed { .. }), "{bad}: {e}");
        assert!(e.to_string().starts_with("malformed move"), "{bad}: {e}");
    }
    for (illegal, why) in [
        ("a1-a2", "no cannon on a1"),
        ("a5-a4", "no cannon on a5"),
        ("b1-b3", "jumps only over one empty point onto a soldier"),
        ("b1-c2", "one point orthogonally"),
        ("b1-b1", "one point orthogonally"),
    ] {
        let e = g.parse_move(&p, illegal).unwrap_err();
        assert!(
            matches!(e, ParseError::IllegalMove { .. }),
            "{illegal}: {e}"
        );
        let e = e.to_string();
        assert!(e.starts_with("illegal move"), "{illegal}: {e}");
        assert!(e.contains(why), "{illegal}: {e}");
    }
    let p = pos(&g, "SSSSS/SSSS./S...S/.C.../.S.C. C");
    assert!(g
        .parse_move(&p, "b2-b1")
        .unwrap_err()
        .to_string()
        .contains("b1 is not empty"));
    let m = g.parse_move(&p, " b2-b3 ").unwrap();
    assert_eq!(g.format_move(&m), "b2-b3");
    // Game over: every move is refused.
    let over = pos(&g, "S...S/...../..C.S/...../....C S");
    assert!(g
        .parse_move(&over, "a5-a4")
        .unwrap_err()
        .to_string()
        .contains("game is over"));
    // The diagram marks the last move.
    let d = g.diagram(&g.apply(&p, &m), Some(&m));
    assert!(d.contains("[C]") && d.contains("(.)") && d.contains("last move: b2-b3"));
    assert!(d.contains("soldiers to move"));
}

// ----- numbering ------------------------------------------------------------------

#[test]
fn tier_layout() {
    let g = Cannons::two_cannons();
    assert_eq!(g.tiers(None), (0..=12).collect::<Vec<_>>());
    assert_eq!(g.tiers(Some(5)), (0..=5).collect::<Vec<_>>());
    assert_eq!(g.tiers(Some(40)).len(), 13);
    assert_eq!(g.tier_deps(0), Vec::<u32>::new());
    assert_eq!(g.tier_deps(7), vec![6]);
    assert_eq!(g.tier_name(12), "k12");
    assert_eq!(g.tier_max_pieces(9), 9);
    assert_eq!(g.tier_of(&g.start()), 12);
    assert_eq!(g.cannon_classes(), 49);
    assert_eq!(g.tier_size(12), 49 * 1_352_078 * 2);
    let total: u64 = g.tiers(None).iter().map(|&t| g.tier_size(t)).sum();
    assert_eq!(total, 543_545_436);
    let h = Cannons::three_cannons();
    assert_eq!(h.cannon_classes(), 319);
    assert_eq!(h.tier_size(15), 319 * 170_544 * 2);
    let total: u64 = h.tiers(None).iter().map(|&t| h.tier_size(t)).sum();
    assert_eq!(total, 2_605_750_224);
}

#[test]
fn rank_is_symmetry_invariant_and_unrank_gives_an_image() {
    for g in [Cannons::two_cannons(), Cannons::three_cannons()] {
        let mut rng = Rng::new(0xabcd + g.cannon_count() as u64);
        for _ in 0..20_000 {
            let p = random_pos(&g, &mut rng);
            let t = g.tier_of(&p);
            let r = g.rank(t, &p);
            assert!(r < g.tier_size(t));
            let q = g.unrank(t, r);
            assert!(
                is_image(&p, &q),
                "{} vs {}",
                g.format_pos(&p),
                g.format_pos(&q)
            );
            assert_eq!(g.rank(t, &q), r);
            for s in 0..8 {
                assert_eq!(g.rank(t, &sym_pos(s, &p)), r);
                assert_eq!(g.symmetric(s, &p), sym_pos(s, &p));
            }
        }
    }
}

/// The game contract (tier order, moves and tiers, rank/unrank as a
/// bijection on used slots, symmetry images and orbit sizes adding up to
/// every position, un-moves inverting moves, solver limits, notation),
/// checked by the library's checker: every slot of the small tiers, then a
/// sample of every tier.
#[test]
fn the_game_contract_holds() {
    for (g, small) in [(Cannons::two_cannons(), 3), (Cannons::three_cannons(), 2)] {
        let every = Scope {
            max_pieces: Some(small),
            every_slot_up_to: u64::MAX,
            ..Scope::default()
        };
        let s = check_game(&g, &every).unwrap_or_else(|v| panic!("{}: {v}", g.id()));
        assert!(s.used > 10_000, "{s:?}");
        let sampled = Scope {
            every_slot_up_to: 0,
            samples: 5_000,
            ..Scope::default()
        };
        let s = check_game(&g, &sampled).unwrap_or_else(|v| panic!("{}: {v}", g.id()));
        assert!(s.moves > 50_000, "{s:?}");
    }
}

// ----- the naive generator (naive/cannons.rs) ---------------------------------

/// Compare move lists and results node by node down to `depth`.
fn compare_tree(g: &Cannons, p: &CannonsPos, depth: u32) {
    let n = Naive.parse(&g.format_pos(p));
    assert_eq!(g.rule_end(p).is_some(), Naive.is_over(&n));
    if depth == 0 || Naive.is_over(&n) {
        return;
    }
    let mut mine: Vec<(String, String)> = children(g, p)
        .iter()
        .map(|(m, c)| (g.format_move(m), g.format_pos(c)))
        .collect();
    let mut theirs: Vec<(String, String)> = Naive
        .children(&n)
        .iter()
        .map(|(m, c)| (m.clone(), Naive.format(c)))
        .collect();
    mine.sort();
    theirs.sort();
    assert_eq!(mine, theirs, "at {}", g.format_pos(p));
    for (_, c) in children(g, p) {
        compare_tree(g, &c, depth - 1);
    }
}

/// The move trees from both starts, four plies deep, node by node (the
/// perft counts are in `data/perft/`).
#[test]
fn move_trees_from_the_start_match_the_naive_generator() {
    for g in [Cannons::two_cannons(), Cannons::three_cannons()] {
        compare_tree(&g, &g.start(), 4);
    }
    for g in wide_games() {
        compare_tree(&g, &g.start(), 3);
    }
}

/// Boards of 33 to 64 points (64-bit boards) with the presets' rules.
fn wide_games() -> Vec<Cannons> {
    [
        "two-cannons:board=6x6",
        "three-cannons:board=7x5,soldiers=12",
        "two-cannons:board=8x8,soldiers=10",
        "two-cannons:board=9x4,soldiers=8",
    ]
    .into_iter()
    .map(|v| match qibase::games::AnyGame::from_id(v) {
        Ok(qibase::games::AnyGame::Cannons(g)) => g,
        Ok(_) => unreachable!("a cannons variant"),
        Err(e) => panic!("{v}: {e}"),
    })
    .collect()
}

#[test]
fn random_positions_agree_with_naive_generator() {
    let mut games = vec![Cannons::two_cannons(), Cannons::three_cannons()];
    games.extend(wide_games());
    for g in games {
        let mut rng = Rng::new(99 + g.cannon_count() as u64);
        for _ in 0..300 {
            let p = random_pos(&g, &mut rng);
            compare_tree(&g, &p, 2);
            let n = Naive.parse(&g.format_pos(&p));
            assert_eq!(perft(&g, &p, 3), Naive.perft(&n, 3));
        }
    }
}
