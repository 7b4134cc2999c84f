//! Issue 12's acceptance: three-cannons layer counts under both readings of
//! immobility against the figures of two independent programs (sanpao15 for
//! the static reading, GamesmanOne for the on-turn one), on the closed
//! subset of at most five soldiers.
//!
//! The peers count positions in the absolute view: every placement of the
//! material, both sides to move (C(25,3)·C(22,k)·2 in layer k), each put
//! into "cannons win", "soldiers win" or "draw". The solver stores one slot
//! per symmetry class, so each slot is weighted by the size of its orbit
//! under the board's 8 symmetries.

use crate::compiled::solve_in_memory;
use qibase::games::{AnyGame, Cannons};
use qibase::numbering::binom;
use qibase::{Notation, Side, Tiers};
use qibase::{Packed, Value};
use rayon::prelude::*;

/// (cannons win, soldiers win, draw) of layer `k`, absolute view.
fn layer_counts(
    g: &Cannons,
    solved: &std::collections::HashMap<u32, Vec<Packed>>,
    k: u32,
) -> [u64; 3] {
    let table = &solved[&k];
    let syms = g.symmetry_count() as u64;
    let counts = (0..g.tier_size(k))
        .into_par_iter()
        .fold(
            || [0u64; 3],
            |mut counts, i| {
                let p = g.unrank(k, i);
                if g.rank(k, &p) != i {
                    return counts; // unused slot
                }
                // Orbit size = group order / stabiliser order.
                let fixed = (0..syms as usize)
                    .filter(|&s| g.symmetric(s, &p) == p)
                    .count() as u64;
                let v = Value::unpack(table[i as usize]).expect("solved slot");
                let cannons_to_move = p.side == Side::First;
                let class = match (v, cannons_to_move) {
                    (Value::Draw, _) => 2,
                    (Value::Win(_), true) | (Value::Loss(_), false) => 0,
                    _ => 1,
                };
                counts[class] += syms / fixed;
                counts
            },
        )
        .reduce(|| [0u64; 3], |a, b| [a[0] + b[0], a[1] + b[1], a[2] + b[2]]);
    assert_eq!(
        counts.iter().sum::<u64>(),
        binom(25, 3) * binom(22, k) * 2,
        "layer {k} does not cover every placement"
    );
    counts
}

fn three_cannons(spec: &str) -> Cannons {
    match AnyGame::from_id(spec).unwrap() {
        AnyGame::Cannons(g) => g,
        _ => panic!("{spec} is not a cannons game"),
    }
}

/// Both readings against their peers' figures, and against each other: the
/// tables differ exactly in the positions with the soldiers to move and no
/// cannon able to move, which no move leads to (a cannon that has just moved
/// can step back; after a jump, onto the point it jumped over) — so the
/// reading never changes the value of a position reached in play.
#[test]
fn immobility_readings_reproduce_sanpao15_and_gamesmanone() {
    let on_turn = three_cannons("three-cannons");
    let stat = three_cannons("three-cannons:immobility=static");
    let a = solve_in_memory(&on_turn, Some(5));
    let b = solve_in_memory(&stat, Some(5));
    // GamesmanOne (on-turn, qibase's default).
    assert_eq!(layer_counts(&on_turn, &a, 4), [33_398_108, 720, 250_172]);
    assert_eq!(
        layer_counts(&on_turn, &a, 5),
        [116_772_116, 17_000, 4_347_284]
    );
    // sanpao15 (static).
    assert_eq!(layer_counts(&stat, &b, 4), [33_398_108, 736, 250_156]);
    assert_eq!(layer_counts(&stat, &b, 5), [116_772_116, 17_068, 4_347_216]);
    for k in on_turn.tiers(Some(5)) {
        let differing: Vec<u64> = (0..on_turn.tier_size(k))
            .filter(|&i| {
                let p = on_turn.unrank(k, i);
                on_turn.rank(k, &p) == i && a[&k][i as usize] != b[&k][i as usize]
            })
            .collect();
        for &i in &differing {
            let p = on_turn.unrank(k, i);
            assert!(p.side == Side::Second && on_turn.cannons_immobile(&p));
            let mut preds = Vec::new();
            on_turn.unmoves(&p, &mut preds);
            assert!(
                preds.is_empty(),
                "a move leads to {}",
                on_turn.format_pos(&p)
            );
            assert_eq!(Value::unpack(b[&k][i as usize]), Some(Value::Win(0)));
        }
        if k >= 4 {
            assert!(
                !differing.is_empty(),
                "layer {k}: the readings should differ somewhere"
            );
        }
    }
}

/// The rules hashes of the presets and of some variants are pinned: they
/// are in every tablebase header, and a change refuses every table made
/// before it. (A board of more than 32 points changed how positions are
/// held, not the rules: the hashes must not move with it.)
#[test]
fn rules_hashes_do_not_change() {
    for (spec, hash) in [
        ("weiming", 0x7f20_0fa7_8b2e_4e55),
        ("cannon-chess", 0xe46c_7f60_455f_02a2),
        ("cannon-chess-4x4", 0x6e55_0a4f_9737_16ea),
        ("two-cannons", 0xd68b_05db_63a5_1684),
        ("three-cannons", 0x822d_f589_4c22_55a2),
        ("cannon-chess:board=5x5", 0x848e_6e60_b603_6fe6),
        ("two-cannons:board=4x5", 0x8b18_2427_29f4_f78b),
    ] {
        let any = qibase::games::AnyGame::from_id(spec).unwrap();
        let got = qibase::with_game!(any, |g| qibase::Tiers::rules_hash(g));
        assert_eq!(got, hash, "{spec}: {got:#018x}");
    }
}
