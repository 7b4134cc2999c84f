//! The shared numbering layer numbers every preset grid game exactly as the
//! per-game code before it did: same tier sizes, same position in every
//! slot, same rank of every position (so the same canonical representative),
//! which keeps every existing tablebase meaningful.
//!
//! `tests/fixtures/numbering-baseline.txt` was written by
//! `examples/numbering_fixture.rs` with the old per-game numbering code:
//! `tier` lines give tier sizes, `sum` lines a checksum over every slot of a
//! tier (position in the slot and the rank it maps back to), `slot` lines
//! sampled slots, `pos` lines random positions and their ranks.

use std::collections::HashMap;

use qibase::games::{CannonChess, Cannons};
use qibase::{Game, TierKey};

const FIXTURE: &str = include_str!("fixtures/numbering-baseline.txt");

fn checksum<G: Game>(g: &G, t: TierKey) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for i in 0..g.tier_size(t) {
        let p = g.unrank(t, i);
        let r = g.rank(t, &p);
        for b in g.format_pos(&p).bytes().chain(r.to_le_bytes()) {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

/// Check every fixture line of game `g`; returns how many were checked.
fn check<G: Game>(g: &G) -> usize {
    let tiers: HashMap<String, TierKey> = g
        .tiers(None)
        .into_iter()
        .map(|t| (g.tier_name(t), t))
        .collect();
    let mut checked = 0;
    for line in FIXTURE.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() < 3 || f[1] != g.id() {
            continue;
        }
        let t = tiers[f[2]];
        let num = |s: &str| s.parse::<u64>().expect("number");
        match f[0] {
            "tier" => {
                assert_eq!(g.tier_size(t), num(f[3]), "{line}");
                assert_eq!(g.tier_positions(t), num(f[4]), "{line}");
            }
            "sum" => {
                let want = u64::from_str_radix(f[3], 16).expect("hex");
                assert_eq!(checksum(g, t), want, "{line}");
            }
            "slot" => {
                let p = g.unrank(t, num(f[3]));
                let text = format!("{} {}", f[4], f[5]);
                assert_eq!(g.format_pos(&p), text, "{line}");
                assert_eq!(g.rank(t, &p), num(f[6]), "{line}");
            }
            "pos" => {
                let p = g
                    .parse_pos(&format!("{} {}", f[3], f[4]))
                    .expect("position");
                assert_eq!(g.rank(t, &p), num(f[5]), "{line}");
            }
            other => panic!("unknown fixture line kind {other}"),
        }
        checked += 1;
    }
    assert!(checked > 100, "{}: only {checked} fixture lines", g.id());
    checked
}

#[test]
fn cannon_chess_numbering_is_unchanged() {
    check(&CannonChess::standard());
}

#[test]
fn cannon_chess_4x4_numbering_is_unchanged() {
    check(&CannonChess::four_by_four());
}

#[test]
fn two_cannons_numbering_is_unchanged() {
    check(&Cannons::two_cannons());
}

#[test]
fn three_cannons_numbering_is_unchanged() {
    check(&Cannons::three_cannons());
}
