//! Rank/unrank microbenchmark of the grid presets (not a test): for a few
//! large tiers of each game, ranks random positions (not canonical: every
//! placement equally likely, as the solver's children and un-moves are) and
//! unranks random slots, single-threaded, and prints CPU nanoseconds per
//! call. Uses only the `Game` trait, so the same file builds against older
//! versions of the library for A/B comparisons.
//!
//! `cargo run --release --example rank_bench [ROUNDS]`

use std::hint::black_box;

use qibase::games::{CannonChess, Cannons};
use qibase::Game;
use qibase::Rng;

/// CPU seconds of this process so far (user + system), from /proc.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|u| u.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    ticks / 100.0
}

const N: usize = 1 << 16;

/// Positions of tier `t`: the images of random slots' positions under
/// random re-placements made by `scatter`.
fn bench<G: Game>(g: &G, t: u32, rounds: usize, scatter: &dyn Fn(&mut Rng, &G::Pos) -> G::Pos) {
    let mut s = Rng::new(42);
    let size = g.tier_size(t);
    let slots: Vec<u64> = (0..N).map(|_| s.next_u64() % size).collect();
    let positions: Vec<G::Pos> = slots
        .iter()
        .map(|&i| scatter(&mut s, &g.unrank(t, i)))
        .collect();
    let c0 = cpu_seconds();
    let mut acc = 0u64;
    for _ in 0..rounds {
        for p in &positions {
            acc = acc.wrapping_add(g.rank(t, black_box(p)));
        }
    }
    let c1 = cpu_seconds();
    for _ in 0..rounds {
        for &i in &slots {
            black_box(g.unrank(t, black_box(i)));
        }
    }
    let c2 = cpu_seconds();
    let calls = (rounds * N) as f64;
    println!(
        "{:<18} {:>5} rank {:6.1} ns  unrank {:6.1} ns  (check {acc:x})",
        g.id(),
        g.tier_name(t),
        (c1 - c0) * 1e9 / calls,
        (c2 - c1) * 1e9 / calls
    );
}

/// A random placement with the counts of `sets` on `n` points.
fn scatter_sets(s: &mut Rng, n: u32, counts: &[u32]) -> Vec<u64> {
    let mut taken = 0u64;
    counts
        .iter()
        .map(|&k| {
            let mut set = 0;
            for _ in 0..k {
                let mut q = (s.next_u64() % n as u64) as u32;
                while taken >> q & 1 != 0 {
                    q = (s.next_u64() % n as u64) as u32;
                }
                taken |= 1 << q;
                set |= 1 << q;
            }
            set
        })
        .collect()
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(40);
    for g in [CannonChess::standard(), CannonChess::four_by_four()] {
        let n = g.width() * g.height();
        for t in [6 * 16 + 6, 6 * 16 + 4, 5 * 16 + 3] {
            bench(&g, t, rounds, &|s, p| {
                let v = scatter_sets(s, n, &[p.me.count_ones(), p.opp.count_ones()]);
                let mut q = *p;
                q.me = v[0];
                q.opp = v[1];
                q
            });
        }
    }
    for g in [Cannons::two_cannons(), Cannons::three_cannons()] {
        let n = g.width() * g.height();
        for t in [12, 9, 6] {
            bench(&g, t, rounds, &|s, p| {
                let v = scatter_sets(s, n, &[p.cannons.count_ones(), p.soldiers.count_ones()]);
                let mut q = *p;
                q.cannons = v[0];
                q.soldiers = v[1];
                q
            });
        }
    }
}
