//! Writes the numbering fixture of `tests/numbering_identity.rs`: for every
//! preset grid game and tier, the tier size, a checksum over every slot of
//! the small tiers, and sampled (slot → position) and (position → rank)
//! pairs. The committed fixture was made with the numbering code as it was
//! before the shared numbering layer (src/numbering/), so the test proves
//! the layer numbers every preset exactly as before.
//!
//! `cargo run --release --example numbering_fixture > tests/fixtures/numbering-baseline.txt`

use qibase::games::{CannonChess, Cannons};
use qibase::Game;
use qibase::Rng;

/// Tiers up to this many slots are checked slot by slot (as a checksum).
const FULL_LIMIT: u64 = 3_000_000;
const SAMPLES: usize = 12;

/// FNV-1a over the slot's position string and the rank it maps back to.
fn checksum<G: Game>(g: &G, t: u32) -> u64 {
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

/// A random placement of `counts` pieces (one char each) on `n` points,
/// as a board string of `w`-wide ranks, top rank first.
fn random_board(s: &mut Rng, w: u32, n: u32, counts: &[(char, u32)]) -> String {
    let mut cells = vec!['.'; n as usize];
    for &(c, k) in counts {
        let mut placed = 0;
        while placed < k {
            let q = (s.next_u64() % n as u64) as usize;
            if cells[q] == '.' {
                cells[q] = c;
                placed += 1;
            }
        }
    }
    let h = n / w;
    (0..h)
        .rev()
        .map(|r| {
            cells[(r * w) as usize..((r + 1) * w) as usize]
                .iter()
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn dump<G: Game>(g: &G, pos_for: &dyn Fn(&mut Rng, u32) -> String) {
    let mut s = Rng::new(0x5eed_0000u64 ^ g.rules_hash());
    for t in g.tiers(None) {
        let size = g.tier_size(t);
        let name = g.tier_name(t);
        println!("tier {} {name} {size} {}", g.id(), g.tier_positions(t));
        if size <= FULL_LIMIT {
            println!("sum {} {name} {:016x}", g.id(), checksum(g, t));
        }
        for _ in 0..SAMPLES {
            let i = s.next_u64() % size;
            let p = g.unrank(t, i);
            println!(
                "slot {} {name} {i} {} {}",
                g.id(),
                g.format_pos(&p),
                g.rank(t, &p)
            );
        }
        for _ in 0..SAMPLES {
            let text = pos_for(&mut s, t);
            let p = g.parse_pos(&text).expect("valid random position");
            assert_eq!(g.tier_of(&p), t);
            println!("pos {} {name} {} {}", g.id(), text, g.rank(t, &p));
        }
    }
}

fn main() {
    for g in [CannonChess::standard(), CannonChess::four_by_four()] {
        let (w, n) = (g.width(), g.width() * g.height());
        dump(&g, &|s, t| {
            let (a, b) = (t / 16, t % 16);
            let (x, o) = if s.next_u64() & 1 == 0 {
                (a, b)
            } else {
                (b, a)
            };
            let side = if s.next_u64() & 1 == 0 { 'X' } else { 'O' };
            format!("{} {side}", random_board(s, w, n, &[('X', x), ('O', o)]))
        });
    }
    for g in [Cannons::two_cannons(), Cannons::three_cannons()] {
        let (w, n, c) = (g.width(), g.width() * g.height(), g.cannon_count());
        dump(&g, &|s, t| {
            let side = if s.next_u64() & 1 == 0 { 'C' } else { 'S' };
            format!("{} {side}", random_board(s, w, n, &[('C', c), ('S', t)]))
        });
    }
}
