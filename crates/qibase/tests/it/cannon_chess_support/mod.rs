//! Test helpers for cannon chess: random positions (with the project's
//! seeded PRNG), the board symmetries computed from coordinates, and orbit
//! counts by Burnside's lemma, all independent of the engine's tables.
//! The naive move generator is in `naive/cannon_chess.rs`.

#![allow(dead_code)]

pub use qibase::Rng;

/// A random position string: X and O counts in 0..=max each, random side.
pub fn random_pos(rng: &mut Rng, w: usize, h: usize, max: usize) -> String {
    let nx = rng.below(max + 1);
    let no = rng.below(max + 1);
    let x_to_move = rng.below(2) == 0;
    random_pos_counts(rng, w, h, nx, no, x_to_move)
}

/// A random position string with exactly `nx` X and `no` O pieces.
pub fn random_pos_counts(
    rng: &mut Rng,
    w: usize,
    h: usize,
    nx: usize,
    no: usize,
    x_to_move: bool,
) -> String {
    let mut cells = vec!['.'; w * h];
    for (c, k) in [('X', nx), ('O', no)] {
        let mut placed = 0;
        while placed < k {
            let i = rng.below(w * h);
            if cells[i] == '.' {
                cells[i] = c;
                placed += 1;
            }
        }
    }
    let ranks: Vec<String> = (0..h)
        .rev()
        .map(|r| cells[r * w..(r + 1) * w].iter().collect())
        .collect();
    format!("{} {}", ranks.join("/"), if x_to_move { 'X' } else { 'O' })
}

/// The board symmetries as point permutations (point = rank·w + file),
/// computed from coordinates: the identity, the two mirrors and the 180°
/// turn, plus on a square board the two diagonal reflections and the two
/// quarter turns. Independent of the engine's tables.
pub fn point_maps(w: usize, h: usize) -> Vec<Vec<usize>> {
    type Map = fn(usize, usize, usize, usize) -> (usize, usize);
    let mut maps: Vec<Map> = vec![
        |x, y, _, _| (x, y),
        |x, y, w, _| (w - 1 - x, y),
        |x, y, _, h| (x, h - 1 - y),
        |x, y, w, h| (w - 1 - x, h - 1 - y),
    ];
    if w == h {
        maps.extend_from_slice(&[
            (|x, y, _, _| (y, x)) as Map,
            |x, y, w, _| (w - 1 - y, w - 1 - x),
            |x, y, w, _| (w - 1 - y, x),
            |x, y, w, _| (y, w - 1 - x),
        ]);
    }
    maps.iter()
        .map(|f| {
            (0..w * h)
                .map(|p| {
                    let (x, y) = f(p % w, p / w, w, h);
                    y * w + x
                })
                .collect()
        })
        .collect()
}

/// The images of a position string under every board symmetry (same side
/// to move), possibly with repeats.
pub fn symmetric_strings(s: &str, w: usize, h: usize) -> Vec<String> {
    let (board, side) = s.split_once(' ').expect("board and side");
    // Cells in point order: ranks bottom-up.
    let cells: Vec<char> = board.split('/').rev().flat_map(|r| r.chars()).collect();
    point_maps(w, h)
        .iter()
        .map(|map| {
            let mut out = vec!['.'; w * h];
            for (p, &c) in cells.iter().enumerate() {
                out[map[p]] = c;
            }
            let ranks: Vec<String> = (0..h)
                .rev()
                .map(|r| out[r * w..(r + 1) * w].iter().collect())
                .collect();
            format!("{} {side}", ranks.join("/"))
        })
        .collect()
}

/// The same position with the colours exchanged and the other side to move.
pub fn colour_swapped(s: &str) -> String {
    let (board, side) = s.split_once(' ').expect("board and side");
    let b: String = board
        .chars()
        .map(|c| match c {
            'X' => 'O',
            'O' => 'X',
            c => c,
        })
        .collect();
    format!("{b} {}", if side == "X" { "O" } else { "X" })
}

/// Burnside: `orbits[a][b]` = number of orbits, under the board symmetries,
/// of pairs (A, B) of disjoint point sets with |A| = a, |B| = b (a, b ≤ max).
pub fn orbit_counts(w: usize, h: usize, max: usize) -> Vec<Vec<u64>> {
    let maps = point_maps(w, h);
    let mut total = vec![vec![0u64; max + 1]; max + 1];
    for map in &maps {
        // Cycle lengths of the permutation.
        let mut seen = vec![false; w * h];
        let mut cycles = Vec::new();
        for p in 0..w * h {
            if seen[p] {
                continue;
            }
            let mut len = 0;
            let mut q = p;
            while !seen[q] {
                seen[q] = true;
                q = map[q];
                len += 1;
            }
            cycles.push(len);
        }
        // Fixed pairs: every cycle goes wholly to A, to B or to neither.
        let mut ways = vec![vec![0u64; max + 1]; max + 1];
        ways[0][0] = 1;
        for &len in &cycles {
            let mut next = ways.clone();
            for a in 0..=max {
                for b in 0..=max {
                    if ways[a][b] == 0 {
                        continue;
                    }
                    if a + len <= max {
                        next[a + len][b] += ways[a][b];
                    }
                    if b + len <= max {
                        next[a][b + len] += ways[a][b];
                    }
                }
            }
            ways = next;
        }
        for a in 0..=max {
            for b in 0..=max {
                total[a][b] += ways[a][b];
            }
        }
    }
    for row in total.iter_mut() {
        for v in row.iter_mut() {
            assert_eq!(*v % maps.len() as u64, 0);
            *v /= maps.len() as u64;
        }
    }
    total
}
