//! Cannon chess: the rules on hand-made positions, notation, numbering,
//! un-moves and perft from random positions, cross-checked against the
//! naive second implementation (`naive/cannon_chess.rs`; the perft counts
//! from the start are data, checked by `perft.rs`).

use std::collections::HashMap;

use crate::cannon_chess_support::{
    colour_swapped, orbit_counts, random_pos, random_pos_counts, symmetric_strings, Rng,
};
use crate::naive::cannon_chess::{NPos, Naive};
use crate::naive::NaiveGame;
use qibase::contract::{check_game, Scope};
use qibase::games::cannon_chess::{CannonChess, CcPos};
use qibase::numbering::binom;
use qibase::InputKind;
use qibase::{EndReason, Notation, ParseError, Rules, Tiers, Value};

fn std_game() -> CannonChess {
    CannonChess::standard()
}

fn small_game() -> CannonChess {
    CannonChess::four_by_four()
}

/// Boards beyond the presets: 32 points (where 32-bit builds misread
/// shots at the top of a file), and 35, 36 and 64 points (64-bit boards).
fn wide_games() -> Vec<CannonChess> {
    [
        "board=8x4",
        "board=4x8",
        "board=7x5",
        "board=6x6",
        "board=8x8,pieces=5",
    ]
    .into_iter()
    .map(
        |v| match qibase::games::AnyGame::from_id(&format!("cannon-chess:{v}")) {
            Ok(qibase::games::AnyGame::CannonChess(g)) => g,
            Ok(_) => unreachable!("a cannon-chess variant"),
            Err(e) => panic!("{v}: {e}"),
        },
    )
    .collect()
}

/// The presets and [`wide_games`].
fn all_games() -> Vec<CannonChess> {
    let mut games = vec![std_game(), small_game()];
    games.extend(wide_games());
    games
}

fn naive_of(g: &CannonChess) -> Naive {
    Naive {
        w: g.width() as usize,
        h: g.height() as usize,
    }
}

/// The position string after playing `mv` in `pos`.
fn after(g: &CannonChess, pos: &str, mv: &str) -> String {
    let p = g.parse_pos(pos).unwrap();
    let m = g
        .parse_move(&p, mv)
        .unwrap_or_else(|e| panic!("{mv} in {pos}: {e}"));
    g.format_pos(&g.apply(&p, &m))
}

/// Sorted move names of `pos`.
fn move_names(g: &CannonChess, pos: &str) -> Vec<String> {
    let p = g.parse_pos(pos).unwrap();
    let mut ms = Vec::new();
    g.moves(&p, &mut ms);
    let mut v: Vec<String> = ms.iter().map(|m| g.format_move(m)).collect();
    v.sort();
    v
}

fn end_of(g: &CannonChess, pos: &str) -> Option<(Value, EndReason)> {
    g.game_end(&g.parse_pos(pos).unwrap())
        .map(|e| (e.value, e.reason))
}

// ----- the rules on hand-made positions ------------------------------------

#[test]
fn start_positions() {
    let g = std_game();
    assert_eq!(g.format_pos(&g.start()), "OOOO/O..O/..../X..X/XXXX X");
    assert_eq!(
        move_names(&g, "OOOO/O..O/..../X..X/XXXX X"),
        ["a2-a3", "a2-b2", "b1-b2", "c1-c2", "d2-c2", "d2-d3"]
    );
    let s = small_game();
    assert_eq!(s.format_pos(&s.start()), "OOOO/O..O/X..X/XXXX X");
    assert_eq!(
        move_names(&s, "OOOO/O..O/X..X/XXXX X"),
        ["a2-b2", "b1-b2", "c1-c2", "d2-c2"]
    );
    assert_eq!(g.material_desc(), "X 6, O 6");
    assert_eq!(g.board_desc(), "4 files × 5 ranks, 20 points");
    assert_eq!(s.board_desc(), "4 files × 4 ranks, 16 points");
    assert_eq!(g.title(), "Cannon Chess 5×4");
    assert_eq!(g.id(), "cannon-chess");
    assert_eq!(s.id(), "cannon-chess-4x4");
    assert_ne!(g.rules_hash(), s.rules_hash());
    assert_eq!(g.rules_hash(), std_game().rules_hash());
}

#[test]
fn cannon_shot_on_a_rank() {
    let g = std_game();
    // a1 steps to b1: rank 1 is . X X O, exactly three, own own enemy.
    assert_eq!(
        after(&g, "O.../..../..../..../X.XO X", "a1-b1"),
        "O.../..../..../..../.XX. O"
    );
    // enemy own own, the other way round.
    assert_eq!(
        after(&g, "O.../..../..../..../OX.X X", "d1-c1"),
        "O.../..../..../..../.XX. O"
    );
}

#[test]
fn cannon_shot_on_a_file() {
    let g = std_game();
    // b2 steps to a2: file a is X X O from a1, rank 2 holds only a2.
    assert_eq!(
        after(&g, "...O/..../O.../.X../X... X", "b2-a2"),
        "...O/..../..../X.../X... O"
    );
    // O shoots downwards: file d reads (top down) O O X.
    assert_eq!(
        after(&g, "X.../..O./...O/...X/.... O", "c4-d4"),
        "X.../...O/...O/..../.... X"
    );
}

#[test]
fn cannon_shot_on_both_lines_captures_two() {
    let g = std_game();
    // a2-b2: rank 2 . X X O and file b X X O (from b1) at once.
    assert_eq!(
        after(&g, "O.../..../.O../X.XO/.X.. X", "a2-b2"),
        "O.../..../..../.XX./.X.. O"
    );
    // The same with no other O piece: X has won, O (to move) has lost.
    let res = after(&g, "..../..../.O../X.XO/.X.. X", "a2-b2");
    assert_eq!(res, "..../..../..../.XX./.X.. O");
    assert_eq!(
        end_of(&g, &res),
        Some((Value::Loss(0), EndReason::NoPiecesLeft))
    );
}

#[test]
fn win_when_the_last_enemy_piece_is_captured() {
    let g = std_game();
    let res = after(&g, "..../..../..../..../X.XO X", "a1-b1");
    assert_eq!(res, "..../..../..../..../.XX. O");
    assert_eq!(
        end_of(&g, &res),
        Some((Value::Loss(0), EndReason::NoPiecesLeft))
    );
    // Opponent without pieces, only by placement: win 0.
    assert_eq!(
        end_of(&g, "..../..../..../..../.XX. X"),
        Some((Value::Win(0), EndReason::OpponentHasNoPieces))
    );
}

#[test]
fn a_far_piece_on_the_line_blocks_the_shot() {
    let g = std_game();
    // File a: X X O . O: four pieces on the line, no capture.
    assert_eq!(
        after(&g, "O.../..../O.../.X../X... X", "b2-a2"),
        "O.../..../O.../X.../X... O"
    );
    // A far own piece blocks as well.
    assert_eq!(
        after(&g, "X..O/..../O.../.X../X... X", "b2-a2"),
        "X..O/..../O.../X.../X... O"
    );
    // Rank 1: X X O X.
    assert_eq!(
        after(&g, "...O/..../..../.X../X.OX X", "b2-b1"),
        "...O/..../..../..../XXOX O"
    );
}

#[test]
fn no_capture_when_the_enemy_walks_into_the_formation() {
    let g = std_game();
    // O steps b3-a3 into file a = X X O: nothing happens.
    assert_eq!(
        after(&g, "...O/..../.O../X.../X... O", "b3-a3"),
        "...O/..../O.../X.../X... X"
    );
}

#[test]
fn no_capture_when_the_formation_appears_by_leaving() {
    let g = std_game();
    // a4 leaves file a, which becomes X X O from a1: no capture.
    assert_eq!(
        after(&g, "...O/X.../O.../X.../X... X", "a4-b4"),
        "...O/.X../O.../X.../X... O"
    );
}

#[test]
fn no_capture_for_own_enemy_own_enemy_own_enemy_or_a_gap() {
    let g = std_game();
    // X O X
    assert_eq!(
        after(&g, "...O/..../..../..../XO.X X", "d1-c1"),
        "...O/..../..../..../XOX. O"
    );
    // O X O (a non-lone piece does not take a pair)
    assert_eq!(
        after(&g, "...X/..../..../.X../O.O. X", "b2-b1"),
        "...X/..../..../..../OXO. O"
    );
    // X X . O
    assert_eq!(
        after(&g, "...O/..../..../.X../X..O X", "b2-b1"),
        "...O/..../..../..../XX.O O"
    );
    // X X on the file with the enemy two away
    assert_eq!(
        after(&g, "...O/O.../..../.X../X... X", "b2-a2"),
        "...O/O.../..../X.../X... O"
    );
}

#[test]
fn lone_piece_slides_stop_before_pieces() {
    let g = std_game();
    assert_eq!(
        move_names(&g, "..../O.../..../..../X.O. X"),
        ["a1-a2", "a1-a3", "a1-b1"]
    );
    assert_eq!(
        move_names(&g, "..O./..../.X../..../.O.. X"),
        ["b3-a3", "b3-b2", "b3-b4", "b3-b5", "b3-c3", "b3-d3"]
    );
    // The long slide lands where it should and captures nothing here.
    assert_eq!(
        after(&g, "..O./..../.X../..../.O.. X", "b3-b5"),
        ".XO./..../..../..../.O.. O"
    );
    // A side with two pieces only steps.
    assert_eq!(
        move_names(&g, "..../O.../..../X.../X.O. X"),
        ["a1-b1", "a2-a3", "a2-b2"]
    );
    // The opponent being lone changes nothing for the side to move.
    assert_eq!(
        move_names(&g, "..../..../..../O.../XX.. X"),
        ["b1-b2", "b1-c1"]
    );
}

#[test]
fn lone_piece_double_capture() {
    let g = std_game();
    // b1 slides to b3 between a3 and c3: both taken, then both sides have one.
    let res = after(&g, "...O/..../O.O./..../.X.. X", "b1-b3");
    assert_eq!(res, "...O/..../.X../..../.... O");
    assert_eq!(
        end_of(&g, &res),
        Some((Value::Draw, EndReason::BothDownTo { pieces: 1 }))
    );
    // Whatever else is on the line.
    assert_eq!(
        after(&g, "...O/..../O.OO/..../.X.. X", "b1-b3"),
        "...O/..../.X.O/..../.... O"
    );
    // A one-step move counts too; taking the last two wins.
    let res = after(&g, "..../..../O.O./.X../.... X", "b2-b3");
    assert_eq!(res, "..../..../.X../..../.... O");
    assert_eq!(
        end_of(&g, &res),
        Some((Value::Loss(0), EndReason::NoPiecesLeft))
    );
    // A gap on one side: no capture.
    assert_eq!(
        after(&g, "...O/..../O..O/..../.X.. X", "b1-b3"),
        "...O/..../OX.O/..../.... O"
    );
    // Stopping in front of an enemy along the travel line captures nothing.
    assert_eq!(
        after(&g, "O..O/..../..../..../X... X", "a1-a4"),
        "O..O/X.../..../..../.... O"
    );
    // A vertical pair is taken by a horizontal slide.
    assert_eq!(
        after(&g, "O.../..../.O../...X/.O.. X", "d2-b2"),
        "O.../..../..../.X../.... O"
    );
}

#[test]
fn lone_piece_double_capture_on_the_4x4_board() {
    let g = small_game();
    let res = after(&g, "...O/O.O./..../.X.. X", "b1-b3");
    assert_eq!(res, "...O/.X../..../.... O");
    assert_eq!(
        end_of(&g, &res),
        Some((Value::Draw, EndReason::BothDownTo { pieces: 1 }))
    );
    // Vertical pair b2, b4 taken by a slide along rank 3.
    assert_eq!(
        after(&g, ".O../...X/.O../O... X", "d3-b3"),
        "..../.X../..../O... O"
    );
}

#[test]
fn both_sides_one_piece_is_a_draw() {
    let g = std_game();
    assert_eq!(
        end_of(&g, "X.../..../..../..../...O X"),
        Some((Value::Draw, EndReason::BothDownTo { pieces: 1 }))
    );
    assert_eq!(
        end_of(&g, "X.../..../..../..../...O O"),
        Some((Value::Draw, EndReason::BothDownTo { pieces: 1 }))
    );
}

#[test]
fn no_legal_move_loses() {
    let g = std_game();
    let p = g.parse_pos("..../..../..../OO../XXO. X").unwrap();
    assert!(g.rule_end(&p).is_none());
    assert!(move_names(&g, "..../..../..../OO../XXO. X").is_empty());
    assert_eq!(
        end_of(&g, "..../..../..../OO../XXO. X"),
        Some((Value::Loss(0), EndReason::NoLegalMove))
    );
    // A blocked lone piece.
    assert_eq!(
        end_of(&g, "..../..../..../O.../XO.. X"),
        Some((Value::Loss(0), EndReason::NoLegalMove))
    );
    // The side to move has no pieces.
    assert_eq!(
        end_of(&g, "..../..../..../O.../.O.. X"),
        Some((Value::Loss(0), EndReason::NoPiecesLeft))
    );
}

// ----- notation --------------------------------------------------------------

#[test]
fn parse_format_round_trip() {
    for g in [std_game(), small_game()] {
        let mut rng = Rng::new(17);
        for _ in 0..20_000 {
            let s = random_pos(&mut rng, g.width() as usize, g.height() as usize, 6);
            let p = g.parse_pos(&s).unwrap();
            assert_eq!(g.format_pos(&p), s);
            let occ: String = g.occupancy(&p).into_iter().collect();
            // occupancy is in point order a1, b1, …: the ranks bottom-up.
            let (board, _) = s.split_once(' ').unwrap();
            let bottom_up: String = board.split('/').rev().collect();
            assert_eq!(occ, bottom_up);
        }
    }
    let g = std_game();
    assert_eq!(g.point_names()[0], "a1");
    assert_eq!(g.point_names()[5], "b2");
    assert_eq!(g.point_names()[19], "d5");
    assert_eq!(g.point_names().len(), 20);
    // Surrounding whitespace is tolerated.
    assert!(g.parse_pos("  OOOO/O..O/..../X..X/XXXX   X ").is_ok());
}

fn parse_err(g: &CannonChess, s: &str) -> String {
    g.parse_pos(s).expect_err(s).to_string()
}

#[test]
fn malformed_positions_say_what_is_wrong() {
    let g = std_game();
    assert!(parse_err(&g, "OOOO/O..O/X..X/XXXX X").contains("number of ranks"));
    assert!(parse_err(&g, "OOOO/O..O/..../..../X..X/XXXX X").contains("number of ranks"));
    let e = parse_err(&g, "OOOO/O..O/.../X..X/XXXX X");
    assert!(e.contains("rank length") && e.contains("rank 3"), "{e}");
    assert!(parse_err(&g, "OOOO/O..O/...../X..X/XXXX X").contains("rank length"));
    let e = parse_err(&g, "OOOO/O..O/..x./X..X/XXXX X");
    assert!(e.contains("unknown character 'x'"), "{e}");
    assert!(parse_err(&g, "OOOO/O..O/..S./X..X/XXXX X").contains("unknown character 'S'"));
    let e = parse_err(&g, "OOOO/OOOO/..../X..X/XXXX X");
    assert!(
        e.contains("too many pieces") && e.contains("O has 8"),
        "{e}"
    );
    let e = parse_err(&g, "OOOO/O..O/X.../X..X/XXXX X");
    assert!(
        e.contains("too many pieces") && e.contains("X has 7"),
        "{e}"
    );
    assert!(parse_err(&g, "OOOO/O..O/..../X..X/XXXX").contains("missing side to move"));
    let e = parse_err(&g, "OOOO/O..O/..../X..X/XXXX Y");
    assert!(e.contains("invalid side to move 'Y'"), "{e}");
    assert!(parse_err(&g, "OOOO/O..O/..../X..X/XXXX x").contains("invalid side to move"));
    assert!(parse_err(&g, "OOOO/O..O/..../X..X/XXXX XO").contains("invalid side to move"));
    assert!(parse_err(&g, "OOOO/O..O/..../X..X/XXXX X -").contains("trailing junk '-'"));
    assert!(parse_err(&g, "OOOO/O..O/..../X..X/XXXX X !").contains("trailing junk '!'"));
    assert!(parse_err(&g, "").contains("empty"));
    // The 5×4 start is not a 4×4 position and vice versa.
    let s = small_game();
    assert!(parse_err(&s, "OOOO/O..O/..../X..X/XXXX X").contains("number of ranks"));
    assert!(parse_err(&g, "OOOO/O..O/X..X/XXXX X").contains("number of ranks"));
    // The error says which: text off the notation, or material the rules forbid.
    assert!(matches!(
        g.parse_pos("OOOO/O..O/X..X/XXXX X"),
        Err(ParseError::Malformed {
            kind: InputKind::Position,
            ..
        })
    ));
    assert!(matches!(
        g.parse_pos("OOOO/OOOO/..../X..X/XXXX X"),
        Err(ParseError::IllegalPosition { .. })
    ));
}

#[test]
fn malformed_and_illegal_moves_differ() {
    let g = std_game();
    let p = g.start();
    assert_eq!(g.format_move(&g.parse_move(&p, "a2-a3").unwrap()), "a2-a3");
    assert_eq!(
        g.format_move(&g.parse_move(&p, " b1-b2 ").unwrap()),
        "b1-b2"
    );
    for bad in [
        "b1b2", "b1-", "-b2", "z1-b2", "b1-b6", "b0-b1", "B1-B2", "b1-b2-b3", "", "b01-b2",
    ] {
        let e = g.parse_move(&p, bad).expect_err(bad);
        assert_eq!(e.kind(), InputKind::Move);
        assert!(matches!(e, ParseError::Malformed { .. }), "{bad}: {e}");
        assert!(e.to_string().contains("malformed"), "{bad}: {e}");
    }
    for illegal in ["b1-b3", "a1-a2", "a5-a4", "c1-d1", "a2-b3"] {
        let e = g.parse_move(&p, illegal).expect_err(illegal);
        assert!(
            matches!(e, ParseError::IllegalMove { .. }),
            "{illegal}: {e}"
        );
        let e = e.to_string();
        assert!(
            e.contains("illegal") && !e.contains("malformed"),
            "{illegal}: {e}"
        );
    }
    let draw = g.parse_pos("X.../..../..../..../...O X").unwrap();
    assert!(g
        .parse_move(&draw, "a5-a4")
        .unwrap_err()
        .to_string()
        .contains("over"));
}

#[test]
fn diagram_marks_the_last_move() {
    let g = std_game();
    let p = g.start();
    let m = g.parse_move(&p, "b1-b2").unwrap();
    let q = g.apply(&p, &m);
    let d = g.diagram(&q, Some(&m));
    assert!(d.contains("[X]"), "{d}");
    assert!(d.contains("(.)"), "{d}");
    assert!(d.contains("O to move"), "{d}");
    assert!(d.contains(" a  b  c  d"), "{d}");
    assert!(
        d.lines().next().unwrap().trim_start().starts_with('5'),
        "{d}"
    );
    assert!(g.diagram(&p, None).contains("X to move"));
}

// ----- tiers and numbering ---------------------------------------------------

/// Expected slot count and used-slot count of every tier, from Burnside's
/// lemma (independent of the engine's tables).
fn expected_sizes(g: &CannonChess) -> HashMap<u32, (u64, u64)> {
    let (w, h) = (g.width() as usize, g.height() as usize);
    let n = (w * h) as u32;
    let orb = orbit_counts(w, h, 6);
    let mut m = HashMap::new();
    for t in g.tiers(None) {
        let (a, b) = ((t / 16) as usize, (t % 16) as usize);
        // Classes of mover sets: orbits of (mover set, empty set).
        let half = |a: usize, b: usize| orb[a][0] * binom(n - a as u32, b as u32);
        let (slots, used) = if a == b {
            (half(a, b), orb[a][b])
        } else {
            (half(a, b) + half(b, a), orb[a][b] + orb[b][a])
        };
        m.insert(t, (slots, used));
    }
    m
}

#[test]
fn total_sizes() {
    // Slots (tier sizes) and used slots (one per symmetry class of
    // (mover set, other set); colour swaps share a slot too).
    for (g, slots, used, classes) in [
        (
            std_game(),
            129_570_073,
            127_303_513,
            [1, 6, 56, 294, 1_253, 3_912, 9_808],
        ),
        (
            small_game(),
            2_862_458,
            2_644_031,
            [1, 3, 21, 77, 252, 567, 1_051],
        ),
    ] {
        let want = expected_sizes(&g);
        let mut total = 0;
        let mut total_used = 0;
        for t in g.tiers(None) {
            assert_eq!(g.tier_size(t), want[&t].0, "{}", g.tier_name(t));
            total += want[&t].0;
            total_used += want[&t].1;
        }
        assert_eq!((total, total_used), (slots, used), "{}", g.id());
        let orb = orbit_counts(g.width() as usize, g.height() as usize, 6);
        for (m, &c) in classes.iter().enumerate() {
            assert_eq!(g.set_classes(m as u32), c);
            assert_eq!(orb[m][0], c);
        }
    }
    // Before symmetry reduction: every ordered (mover, other) placement had
    // its own slot, 509,103,141 on 5 × 4 and 21,094,789 on 4 × 4.
    for (n, before) in [(20, 509_103_141), (16, 21_094_789)] {
        let mut placements = 0;
        for a in 0..=6 {
            for b in 0..=6 {
                placements += binom(n, a) * binom(n - a, b);
            }
        }
        assert_eq!(placements, before);
    }
    let g = std_game();
    assert_eq!(g.symmetry_count(), 4);
    assert_eq!(small_game().symmetry_count(), 8);
    assert_eq!(g.tier_size(6 * 16 + 6), 9_808 * binom(14, 6));
    assert_eq!(g.tier_name(6 * 16 + 5), "6v5");
    assert_eq!(g.tier_max_pieces(6 * 16 + 5), 6);
}

#[test]
fn engine_symmetries_match_the_naive_ones() {
    for g in [std_game(), small_game()] {
        let (w, h) = (g.width() as usize, g.height() as usize);
        let mut rng = Rng::new(11);
        for _ in 0..2000 {
            let s = random_pos(&mut rng, w, h, 6);
            let p = g.parse_pos(&s).unwrap();
            let mut engine: Vec<String> = (0..g.symmetry_count())
                .map(|k| g.format_pos(&g.symmetric(k, &p)))
                .collect();
            let mut naive = symmetric_strings(&s, w, h);
            assert_eq!(g.format_pos(&g.symmetric(0, &p)), s);
            engine.sort();
            naive.sort();
            assert_eq!(engine, naive, "{s}");
        }
    }
}

/// The rules commute with every board symmetry: the children of an image
/// are the images of the children, and the rule end is the same.
#[test]
fn rules_are_invariant_under_the_symmetries() {
    for g in [std_game(), small_game()] {
        let (w, h) = (g.width() as usize, g.height() as usize);
        let mut rng = Rng::new(12);
        let mut ms = Vec::new();
        for _ in 0..5000 {
            let s = random_pos(&mut rng, w, h, 6);
            let p = g.parse_pos(&s).unwrap();
            let children = |q: &CcPos, ms: &mut Vec<_>| -> Vec<CcPos> {
                ms.clear();
                g.moves(q, ms);
                ms.iter().map(|m| g.apply(q, m)).collect()
            };
            let kids = children(&p, &mut ms);
            for k in 0..g.symmetry_count() {
                let q = g.symmetric(k, &p);
                assert_eq!(
                    g.game_end(&q).map(|e| e.value),
                    g.game_end(&p).map(|e| e.value)
                );
                let mut got: Vec<(u64, u64)> = children(&q, &mut ms)
                    .iter()
                    .map(|c| (c.me, c.opp))
                    .collect();
                let mut want: Vec<(u64, u64)> = kids
                    .iter()
                    .map(|c| {
                        let c = g.symmetric(k, c);
                        (c.me, c.opp)
                    })
                    .collect();
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "{s} under symmetry {k}");
            }
        }
    }
}

#[test]
fn tiers_are_ordered_after_their_deps() {
    // The order itself is checked by the contract checker (below).
    for g in [std_game(), small_game()] {
        let ts = g.tiers(None);
        assert_eq!(ts.len(), 28);
        assert_eq!(g.tiers(Some(2)).len(), 6);
        assert!(g.tiers(Some(2)).iter().all(|&t| g.tier_max_pieces(t) <= 2));
        assert_eq!(g.tiers(Some(9)), ts);
        let mut names: Vec<String> = g.tiers(Some(1)).iter().map(|&t| g.tier_name(t)).collect();
        names.sort();
        assert_eq!(names, ["0v0", "1v0", "1v1"]);
    }
    let g = std_game();
    let deps: Vec<String> = g
        .tier_deps(6 * 16 + 6)
        .iter()
        .map(|&t| g.tier_name(t))
        .collect();
    assert_eq!(deps, ["6v4", "6v5"]);
    let deps: Vec<String> = g
        .tier_deps(16 + 2 * 16 + 1)
        .iter()
        .map(|&t| g.tier_name(t))
        .collect();
    // {3,1}: mover 3 takes the lone piece (3v0); lone mover takes two (1v1).
    assert_eq!(deps, ["1v1", "3v0"]);
}

/// The game contract (tier order, moves and tiers, rank/unrank, symmetry
/// images and orbit sizes, un-moves, solver limits, notation), checked by
/// the library's checker: every slot of the tiers up to 300,000 slots, a
/// sample of the others.
#[test]
fn the_game_contract_holds() {
    for g in [std_game(), small_game()] {
        let scope = Scope {
            every_slot_up_to: 300_000,
            samples: 3_000,
            ..Scope::default()
        };
        let s = check_game(&g, &scope).unwrap_or_else(|v| panic!("{}: {v}", g.id()));
        assert!(s.moves > 100_000, "{s:?}");
    }
}

#[test]
fn used_slots_match_burnside_on_small_tiers() {
    for g in [std_game(), small_game()] {
        let want = expected_sizes(&g);
        for t in g.tiers(None) {
            let size = g.tier_size(t);
            if size > 3_000_000 {
                continue;
            }
            let used = (0..size)
                .filter(|&i| g.rank(t, &g.unrank(t, i)) == i)
                .count() as u64;
            assert_eq!(used, want[&t].1, "{} {}", g.id(), g.tier_name(t));
        }
    }
}

#[test]
fn rank_unrank_random_on_all_tiers() {
    let games = all_games();
    for g in games {
        let (w, h) = (g.width() as usize, g.height() as usize);
        let mut rng = Rng::new(5);
        let tiers = g.tiers(None);
        // Fewer draws a tier on the larger boards, which have more tiers.
        let draws = if w * h > 20 { 300 } else { 2000 };
        for t in tiers {
            let size = g.tier_size(t);
            let (a, b) = ((t / 16) as usize, (t % 16) as usize);
            for _ in 0..draws {
                let x_to_move = rng.below(2) == 0;
                let (nx, no) = if rng.below(2) == 0 { (a, b) } else { (b, a) };
                let s = random_pos_counts(&mut rng, w, h, nx, no, x_to_move);
                let p = g.parse_pos(&s).unwrap();
                assert_eq!(g.tier_of(&p), t);
                let i = g.rank(t, &p);
                assert!(i < size);
                // The slot is a used one and holds a symmetric image of
                // this position, seen with the side to move as X.
                let q = g.unrank(t, i);
                assert_eq!(g.rank(t, &q), i, "{s}");
                let as_x = g.format_pos(&CcPos {
                    x_to_move: true,
                    ..p
                });
                assert!(
                    symmetric_strings(&as_x, w, h).contains(&g.format_pos(&q)),
                    "{s} stored as {}",
                    g.format_pos(&q)
                );
                // Every image, and the colour swap of every image (other
                // side to move, colours exchanged), shares the rank.
                for img in symmetric_strings(&s, w, h) {
                    for v in [colour_swapped(&img), img] {
                        let pv = g.parse_pos(&v).unwrap();
                        assert_eq!(g.rank(t, &pv), i, "{s} vs {v}");
                    }
                }
            }
        }
    }
}

// ----- perft and the naive cross-check ---------------------------------------

fn engine_perft(g: &CannonChess, p: &CcPos, depth: u32) -> u64 {
    qibase::perft(g, p, depth)
}

/// From random mid-game positions (lone pieces, captures); the counts
/// from the start are in `data/perft/`.
#[test]
fn perft_matches_the_naive_generator() {
    for g in all_games() {
        let nv = naive_of(&g);
        let mut rng = Rng::new(7);
        for _ in 0..200 {
            let max = g.max_side() as usize;
            let s = random_pos(&mut rng, g.width() as usize, g.height() as usize, max);
            let p = g.parse_pos(&s).unwrap();
            assert_eq!(engine_perft(&g, &p, 3), nv.perft(&nv.parse(&s), 3), "{s}");
        }
    }
}

fn naive_children(nv: &Naive, s: &str) -> Vec<(String, String)> {
    let p: NPos = nv.parse(s);
    let mut v: Vec<(String, String)> = nv
        .children(&p)
        .into_iter()
        .map(|(m, c)| (m, nv.format(&c)))
        .collect();
    v.sort();
    v
}

#[test]
fn move_results_match_the_naive_generator() {
    // Moves by kind (lone or not, pieces captured), for the presets and
    // for the larger boards together: sparse pieces on a large board
    // rarely make double captures.
    let mut kinds: [HashMap<(u32, u32), usize>; 2] = Default::default();
    for g in all_games() {
        let nv = naive_of(&g);
        let mut rng = Rng::new(31337);
        let mut ms = Vec::new();
        let by_kind = &mut kinds[(g.width() * g.height() > 20) as usize];
        for _ in 0..40_000 {
            let max = g.max_side() as usize;
            let s = random_pos(&mut rng, g.width() as usize, g.height() as usize, max);
            let p = g.parse_pos(&s).unwrap();
            let np = nv.parse(&s);
            let ours = g.rule_end(&p).map(|e| match e.value {
                Value::Loss(0) => "loss",
                Value::Win(0) => "win",
                Value::Draw => "draw",
                v => panic!("unexpected rule end {v}"),
            });
            assert_eq!(ours, nv.rule_end(&np), "{s}");
            if ours.is_some() {
                continue;
            }
            ms.clear();
            g.moves(&p, &mut ms);
            let mut got: Vec<(String, String)> = ms
                .iter()
                .map(|m| (g.format_move(m), g.format_pos(&g.apply(&p, m))))
                .collect();
            got.sort();
            assert_eq!(got, naive_children(&nv, &s), "{s}");
            for m in &ms {
                *by_kind
                    .entry((p.me.count_ones().min(2), m.captured.count_ones()))
                    .or_default() += 1;
            }
        }
    }
    // The samples exercised single and double captures, lone and not.
    for by_kind in &kinds {
        for k in [(1, 0), (1, 2), (2, 0), (2, 1), (2, 2)] {
            assert!(
                by_kind.get(&k).copied().unwrap_or(0) > 20,
                "{k:?}: {by_kind:?}"
            );
        }
    }
}
