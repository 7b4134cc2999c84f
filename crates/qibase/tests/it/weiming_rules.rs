//! Rules, notation, numbering and un-moves of Weiming Shuang Cheng Chess III,
//! checked against hand-made positions and against the deliberately naive
//! move generator of `naive/weiming.rs`, which shares no code or tables
//! with the engine (the perft counts are in `data/perft/`).

use std::collections::HashSet;

use qibase::contract::{check_game, Scope};
use qibase::games::weiming::{WeimingMove, WeimingPos};
use qibase::games::Weiming;
use qibase::Value;
use qibase::{EndReason, Notation, ParseError, Rules, Side, Tiers};

use crate::naive::weiming::{self as naive, idx, Naive};
use crate::naive::NaiveGame;

fn g() -> Weiming {
    Weiming::new()
}

fn pos(s: &str) -> WeimingPos {
    g().parse_pos(s)
        .unwrap_or_else(|e| panic!("'{s}' should parse: {e}"))
}

fn move_strings(p: &WeimingPos) -> Vec<String> {
    let g = g();
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

fn play(p: &WeimingPos, m: &str) -> WeimingPos {
    let g = g();
    let mv = g
        .parse_move(p, m)
        .unwrap_or_else(|e| panic!("{m} should be legal in {}: {e}", g.format_pos(p)));
    g.apply(p, &mv)
}

fn all_positions() -> Vec<WeimingPos> {
    let g = g();
    (0..g.tier_size(0)).map(|i| g.unrank(0, i)).collect()
}

// ----- identity -----------------------------------------------------------

#[test]
fn identity_and_tiers() {
    let g = g();
    assert_eq!(g.id(), "weiming");
    assert_eq!(g.title(), "Weiming Shuang Cheng Chess III");
    assert_eq!(g.board_desc(), "9 points, 13 lines");
    assert_eq!(g.material_desc(), "X 3, O 3, shared 1");
    assert_eq!(g.side_letter(Side::First), 'X');
    assert_eq!(g.side_letter(Side::Second), 'O');
    assert_eq!(g.tiers(None), vec![0]);
    assert_eq!(g.tiers(Some(1)), vec![0]);
    assert_eq!(g.tiers(Some(3)), vec![0]);
    assert_eq!(g.tier_name(0), "all");
    assert_eq!(g.tier_size(0), 20_160);
    assert_eq!(g.tier_max_pieces(0), 3);
    assert!(g.tier_deps(0).is_empty());
    assert_eq!(
        g.point_names(),
        vec!["tl", "tm", "tr", "s", "x", "m", "bl", "bm", "br"]
    );
    assert_eq!(g.format_pos(&g.start()), "XXX/S../OOO X -");
    assert_eq!(g.side_to_move(&g.start()), Side::First);
    assert_eq!(
        g.occupancy(&g.start()),
        vec!['X', 'X', 'X', 'S', '.', '.', 'O', 'O', 'O']
    );
    // Stable: a change here means tablebases of the old rules are refused.
    assert_eq!(g.rules_hash(), g.rules_hash());
    assert_eq!(g.rules_hash(), RULES_HASH);
}

const RULES_HASH: u64 = 9_160_338_854_340_611_669;

// ----- hand-made positions --------------------------------------------------

#[test]
fn start_moves() {
    assert_eq!(
        move_strings(&g().start()),
        sorted(&["tl-x", "tm-x", "tm-m", "s-x"])
    );
}

#[test]
fn locked_shared_piece_cannot_move() {
    let g = g();
    let p = play(&g.start(), "s-x");
    assert_eq!(g.format_pos(&p), "XXX/.S./OOO O !");
    // S on x could go to s or m, but O may not move it.
    assert_eq!(move_strings(&p), sorted(&["bm-m"]));
    let e = g.parse_move(&p, "x-m").unwrap_err().to_string();
    assert!(e.contains("locked"), "{e}");
    let e = g.parse_move(&p, "x-s").unwrap_err().to_string();
    assert!(e.contains("locked"), "{e}");
}

#[test]
fn shared_piece_freed_after_another_move() {
    let g = g();
    let p = pos("XXX/.S./OOO O !");
    let q = play(&p, "bm-m");
    assert_eq!(g.format_pos(&q), "XXX/.SO/O.O X -");
    // X may move S again (x-s, x-bm); its own pieces are stuck.
    assert_eq!(move_strings(&q), sorted(&["x-s", "x-bm"]));
}

#[test]
fn one_player_moves_shared_piece_on_consecutive_own_turns() {
    let g = g();
    let p = g.start();
    let p = play(&p, "s-x"); // X moves S
    let p = play(&p, "bm-m"); // O must move an own piece
    let p = play(&p, "x-bm"); // X moves S again
    assert_eq!(g.format_pos(&p), "XXX/..O/OSO O !");
    let e = g.parse_move(&p, "bm-x").unwrap_err().to_string();
    assert!(e.contains("locked"), "{e}");
    let p = play(&p, "m-x"); // O's own piece frees S
    assert_eq!(g.format_pos(&p), "XXX/.O./OSO X -");
    let p = play(&p, "bm-m"); // X moves S on a third turn in a row
    assert_eq!(g.format_pos(&p), "XXX/.OS/O.O O !");
}

#[test]
fn locked_out_and_otherwise_stuck_side_loses() {
    let g = g();
    // O's pieces on the bottom row are boxed in by X on m and tr and S on x;
    // S could go to s or tl, but it just moved.
    let p = pos(".XX/.SX/OOO O !");
    assert!(move_strings(&p).is_empty());
    let end = g.game_end(&p).expect("O has no move");
    assert_eq!(end.value, Value::Loss(0));
    assert_eq!(end.reason, EndReason::NoLegalMove);
    assert!(g.rule_end(&p).is_none());
    // With S free, O is not lost: it can move S.
    let p = pos(".XX/.SX/OOO O -");
    assert_eq!(move_strings(&p), sorted(&["x-s", "x-tl"]));
    assert!(g.game_end(&p).is_none());
}

#[test]
fn stuck_shared_piece() {
    // S on s with x taken: S cannot move even though it is free.
    let p = pos("X.X/SX./OOO O -");
    assert_eq!(move_strings(&p), sorted(&["bm-m"]));
    // S on x with all six neighbours taken (O stands on s).
    let p = pos("XX./OSX/OO. X -");
    assert_eq!(move_strings(&p), sorted(&["tm-tr"]));
    let p = pos("XX./OSX/OO. O -");
    assert_eq!(move_strings(&p), sorted(&["bm-br"]));
    // Everything stuck for X, S included: loss.
    let p = pos("XO./XSX/OO. X -");
    assert!(move_strings(&p).is_empty());
    assert_eq!(g().game_end(&p).unwrap().value, Value::Loss(0));
}

#[test]
fn lines_of_the_board() {
    let g = g();
    // The shared piece's own point touches x only.
    let p = pos("X.X/S.X/OOO X -");
    assert_eq!(
        move_strings(&p),
        sorted(&["tl-tm", "tl-x", "tr-tm", "m-tm", "m-x", "s-x"])
    );
    // No tl–bl line, no s–tl, no tm–bm straight through m, no tr–m.
    let p = pos("XX./SOX/.OO X -");
    for m in [
        "tl-bl", "s-tl", "s-bl", "m-tr", "x-tr", "x-br", "m-br", "m-bl",
    ] {
        let e = g.parse_move(&p, m).unwrap_err().to_string();
        assert!(e.starts_with("illegal"), "{m}: {e}");
    }
    let e = g.parse_move(&p, "tl-bl").unwrap_err().to_string();
    assert!(e.contains("not joined"), "{e}");
    // Every line, both ways, for an own piece and for the shared piece.
    let lines = [
        ("tl", "tm"),
        ("tm", "tr"),
        ("tr", "br"),
        ("br", "bm"),
        ("bm", "bl"),
        ("tm", "m"),
        ("m", "bm"),
        ("tl", "x"),
        ("x", "bm"),
        ("bl", "x"),
        ("x", "tm"),
        ("s", "x"),
        ("x", "m"),
    ];
    let mut checked = 0;
    for (a, b) in lines {
        for (from, to) in [(a, b), (b, a)] {
            for (mover, side) in [('X', 'X'), ('O', 'O'), ('S', 'X'), ('S', 'O')] {
                let s = board_with(from, to, mover, side);
                let p = pos(&s);
                let mv = format!("{from}-{to}");
                assert!(move_strings(&p).contains(&mv), "{mv} in {s}");
                let q = play(&p, &mv);
                assert_eq!(g.occupancy(&q)[idx(to)], mover);
                assert_eq!(g.occupancy(&q)[idx(from)], '.');
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 13 * 2 * 4);
}

/// A legal position string with `mover` on `from`, `to` empty, `side` to move
/// and the shared piece free.
fn board_with(from: &str, to: &str, mover: char, side: char) -> String {
    let mut rest = vec!['X', 'X', 'X', 'O', 'O', 'O', 'S'];
    let k = rest.iter().position(|&c| c == mover).unwrap();
    rest.remove(k);
    let mut b = ['.'; 9];
    b[idx(from)] = mover;
    let mut it = rest.into_iter();
    for (i, cell) in b.iter_mut().enumerate() {
        if i != idx(from) && i != idx(to) {
            if let Some(c) = it.next() {
                *cell = c;
            }
        }
    }
    Naive.format(&naive::State {
        board: b,
        side,
        locked: false,
    })
}

// ----- notation -------------------------------------------------------------

#[test]
fn parse_format_round_trip_everywhere() {
    let g = g();
    let mut seen = HashSet::new();
    for p in all_positions() {
        let s = g.format_pos(&p);
        assert_eq!(g.parse_pos(&s), Ok(p), "{s}");
        assert_eq!(Naive.format(&Naive.parse(&s)), s);
        let occ: String = g.occupancy(&p).into_iter().collect();
        assert_eq!(occ, s[0..11].replace('/', ""));
        assert!(seen.insert(s));
    }
    assert_eq!(seen.len(), 20_160);
}

#[test]
fn malformed_positions() {
    let g = g();
    let cases = [
        ("", "empty"),
        ("XXX/S.. X -", "3 groups"),
        ("XXX/S../OOO/... X -", "3 groups"),
        ("XXX/S../OO X -", "group 3"),
        ("XXX/S..../OOO X -", "group 2"),
        ("XXX/S.Q/OOO X -", "unknown character 'Q'"),
        ("xxx/S../ooo X -", "unknown character 'x'"),
        ("XXX/SX./OO. X -", "4 X pieces"),
        ("XX./S../OOO X -", "2 X pieces"),
        ("XXX/S../OO. X -", "2 O pieces"),
        ("XXX/SO./OOO X -", "4 O pieces"),
        ("XXX/.../OOO X -", "0 shared"),
        ("XXX/SSO/OO. X -", "2 shared"),
        ("XXX/S../OOO", "missing side"),
        ("XXX/S../OOO x -", "bad side to move 'x'"),
        ("XXX/S../OOO S -", "bad side to move 'S'"),
        ("XXX/S../OOO X", "missing lock flag"),
        ("XXX/S../OOO X ?", "bad lock flag '?'"),
        ("XXX/S../OOO X - 7", "unexpected"),
    ];
    for (s, want) in cases {
        let e = g.parse_pos(s).unwrap_err().to_string();
        assert!(e.contains(want), "'{s}': got '{e}', want '{want}'");
    }
    assert_eq!(g.parse_pos("  XXX/S../OOO X -  "), Ok(g.start()));
    assert!(g.parse_pos("XXX/S../OOO O !").is_ok());
}

#[test]
fn malformed_and_illegal_moves() {
    let g = g();
    let start = g.start();
    let malformed = [
        ("sx", "expected from-to"),
        ("", "expected from-to"),
        ("s-q", "unknown point 'q'"),
        ("S-X", "unknown point 'S'"),
        ("a1-a2", "unknown point 'a1'"),
        ("s-", "unknown point ''"),
    ];
    for (m, want) in malformed {
        let e = g.parse_move(&start, m).unwrap_err();
        assert!(matches!(e, ParseError::Malformed { .. }), "'{m}': {e}");
        let e = e.to_string();
        assert!(e.starts_with("malformed"), "'{m}': {e}");
        assert!(e.contains(want), "'{m}': got '{e}', want '{want}'");
    }
    let illegal = [
        ("bl-x", "O's"),
        ("x-m", "no piece on x"),
        ("tl-tm", "tm is occupied"),
        ("tl-bl", "not joined"),
        ("tl-tl", "same point"),
        ("s-m", "not joined"),
    ];
    for (m, want) in illegal {
        let e = g.parse_move(&start, m).unwrap_err();
        assert!(matches!(e, ParseError::IllegalMove { .. }), "'{m}': {e}");
        let e = e.to_string();
        assert!(e.starts_with("illegal"), "'{m}': {e}");
        assert!(e.contains(want), "'{m}': got '{e}', want '{want}'");
    }
    let locked = pos("XXX/.S./OOO O !");
    let e = g.parse_move(&locked, "x-m").unwrap_err().to_string();
    assert!(e.starts_with("illegal") && e.contains("locked"), "{e}");
    assert_eq!(
        g.parse_move(&start, " s-x "),
        Ok(WeimingMove { from: 3, to: 4 })
    );
}

#[test]
fn parse_move_agrees_with_move_list_everywhere() {
    let g = g();
    let names = g.point_names();
    for p in all_positions() {
        let legal = move_strings(&p);
        for a in &names {
            for b in &names {
                let m = format!("{a}-{b}");
                match g.parse_move(&p, &m) {
                    Ok(mv) => {
                        assert!(legal.contains(&m), "{m} in {}", g.format_pos(&p));
                        assert_eq!(g.format_move(&mv), m);
                    }
                    Err(e) => {
                        assert!(!legal.contains(&m), "{m} in {}: {e}", g.format_pos(&p));
                        assert!(matches!(e, ParseError::IllegalMove { .. }), "{e}");
                        assert!(e.to_string().starts_with("illegal"), "{e}");
                    }
                }
            }
        }
    }
}

#[test]
fn diagram_shows_pieces_names_and_last_move() {
    let g = g();
    let d = g.diagram(&g.start(), None);
    assert!(d.contains(" X ------- X ------- X"), "{d}");
    assert!(d.contains(" S -- . -- ."), "{d}");
    assert!(d.contains("tl ------ tm ------ tr"), "{d}");
    assert!(d.contains("X to move; shared piece S free"), "{d}");
    let mv = g.parse_move(&g.start(), "s-x").unwrap();
    let p = g.apply(&g.start(), &mv);
    let d = g.diagram(&p, Some(&mv));
    assert!(d.contains("(.)--[S]-- ."), "{d}");
    assert!(d.contains("last move: s-x (the shared piece S"), "{d}");
    assert!(d.contains("O to move; shared piece S locked"), "{d}");
    let mv = g.parse_move(&p, "bm-m").unwrap();
    let q = g.apply(&p, &mv);
    let d = g.diagram(&q, Some(&mv));
    assert!(d.contains("last move: bm-m (O's piece"), "{d}");
    assert!(d.contains("[O]"), "{d}");
}

// ----- rules against the naive generator -----------------------------------

#[test]
fn move_generation_matches_naive_everywhere() {
    let g = g();
    for p in all_positions() {
        let s = g.format_pos(&p);
        let mut mine: Vec<(String, String)> = {
            let mut ms = Vec::new();
            g.moves(&p, &mut ms);
            ms.iter()
                .map(|m| (g.format_move(m), g.format_pos(&g.apply(&p, m))))
                .collect()
        };
        let mut theirs: Vec<(String, String)> = Naive
            .children(&Naive.parse(&s))
            .into_iter()
            .map(|(m, n)| (m, Naive.format(&n)))
            .collect();
        mine.sort();
        theirs.sort();
        assert_eq!(mine, theirs, "{s}");
        assert!(g.rule_end(&p).is_none());
        match g.game_end(&p) {
            None => assert!(!mine.is_empty()),
            Some(e) => {
                assert!(mine.is_empty());
                assert_eq!(e.value, Value::Loss(0));
                assert_eq!(e.reason, EndReason::NoLegalMove);
            }
        }
    }
}

// ----- numbering and un-moves -------------------------------------------------

#[test]
fn slots_hold_valid_positions() {
    let g = g();
    for i in 0..g.tier_size(0) {
        let p = g.unrank(0, i);
        assert_eq!(p.x.count_ones(), 3);
        assert_eq!(p.o.count_ones(), 3);
        assert_eq!(p.x & p.o, 0);
        assert!(p.s < 9);
        assert_eq!((p.x | p.o) & (1 << p.s), 0);
        assert_eq!((p.x | p.o) >> 9, 0);
    }
}

/// The game contract (rank/unrank a bijection on all 20,160 slots, moves
/// stay in the tier, un-moves invert moves, notation), checked by the
/// library's checker on every slot.
#[test]
fn the_game_contract_holds() {
    let g = g();
    let scope = Scope {
        every_slot_up_to: u64::MAX,
        ..Scope::default()
    };
    let s = check_game(&g, &scope).unwrap_or_else(|v| panic!("{v}"));
    assert_eq!((s.slots, s.used), (20_160, 20_160));
}
