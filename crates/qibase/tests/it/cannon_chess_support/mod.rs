//! Test helpers for cannon chess: the seeded PRNG and a deliberately naive,
//! independent rules implementation on 2D character grids (no bitboards, no
//! code shared with the engine), used to cross-check the engine.

#![allow(dead_code)]

pub use qibase::rng::Rng;

/// A position on a grid: `grid[rank][file]`, rank 0 = rank 1 (bottom).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NPos {
    pub grid: Vec<Vec<char>>,
    pub side: char,
}

pub struct Naive {
    pub w: usize,
    pub h: usize,
}

impl Naive {
    pub fn parse(&self, s: &str) -> NPos {
        let (board, side) = s.split_once(' ').expect("board and side");
        let mut grid: Vec<Vec<char>> = board.split('/').map(|r| r.chars().collect()).collect();
        grid.reverse();
        assert_eq!(grid.len(), self.h);
        for row in &grid {
            assert_eq!(row.len(), self.w);
        }
        NPos {
            grid,
            side: side.chars().next().unwrap(),
        }
    }

    pub fn format(&self, p: &NPos) -> String {
        let ranks: Vec<String> = p.grid.iter().rev().map(|r| r.iter().collect()).collect();
        format!("{} {}", ranks.join("/"), p.side)
    }

    fn count(&self, p: &NPos, c: char) -> usize {
        p.grid.iter().flatten().filter(|&&x| x == c).count()
    }

    fn enemy(c: char) -> char {
        if c == 'X' {
            'O'
        } else {
            'X'
        }
    }

    /// "loss", "win", "draw" by rule (side to move's view), or None.
    pub fn rule_end(&self, p: &NPos) -> Option<&'static str> {
        let me = self.count(p, p.side);
        let en = self.count(p, Self::enemy(p.side));
        if me == 0 {
            Some("loss")
        } else if en == 0 {
            Some("win")
        } else if me == 1 && en == 1 {
            Some("draw")
        } else {
            None
        }
    }

    fn name(f: usize, r: usize) -> String {
        format!("{}{}", (b'a' + f as u8) as char, r + 1)
    }

    fn inside(&self, f: i32, r: i32) -> bool {
        f >= 0 && r >= 0 && (f as usize) < self.w && (r as usize) < self.h
    }

    /// All children as (move name, position), in no particular order.
    pub fn children(&self, p: &NPos) -> Vec<(String, NPos)> {
        let me = p.side;
        let en = Self::enemy(me);
        let lone = self.count(p, me) == 1;
        let dirs = [(1i32, 0i32), (-1, 0), (0, 1), (0, -1)];
        let mut out = Vec::new();
        for r in 0..self.h {
            for f in 0..self.w {
                if p.grid[r][f] != me {
                    continue;
                }
                for &(df, dr) in &dirs {
                    let mut k = 1;
                    loop {
                        let nf = f as i32 + df * k;
                        let nr = r as i32 + dr * k;
                        if !self.inside(nf, nr) || p.grid[nr as usize][nf as usize] != '.' {
                            break;
                        }
                        let (nf, nr) = (nf as usize, nr as usize);
                        let mut g = p.grid.clone();
                        g[r][f] = '.';
                        g[nr][nf] = me;
                        if lone {
                            // Enemy immediately on both sides along a line.
                            for &(af, ar) in &[(1i32, 0i32), (0, 1)] {
                                let (f1, r1) = (nf as i32 - af, nr as i32 - ar);
                                let (f2, r2) = (nf as i32 + af, nr as i32 + ar);
                                if self.inside(f1, r1)
                                    && self.inside(f2, r2)
                                    && g[r1 as usize][f1 as usize] == en
                                    && g[r2 as usize][f2 as usize] == en
                                {
                                    g[r1 as usize][f1 as usize] = '.';
                                    g[r2 as usize][f2 as usize] = '.';
                                }
                            }
                        } else {
                            // The rank, then the file, through the destination.
                            let rank: Vec<(usize, usize)> = (0..self.w).map(|x| (x, nr)).collect();
                            let file: Vec<(usize, usize)> = (0..self.h).map(|y| (nf, y)).collect();
                            let mut remove = Vec::new();
                            for line in [rank, file] {
                                let pieces: Vec<(usize, (usize, usize))> = line
                                    .iter()
                                    .enumerate()
                                    .filter(|(_, &(x, y))| g[y][x] != '.')
                                    .map(|(i, &c)| (i, c))
                                    .collect();
                                if pieces.len() != 3 {
                                    continue;
                                }
                                if pieces[1].0 != pieces[0].0 + 1 || pieces[2].0 != pieces[1].0 + 1
                                {
                                    continue;
                                }
                                let cs: Vec<char> =
                                    pieces.iter().map(|&(_, (x, y))| g[y][x]).collect();
                                if cs == [me, me, en] {
                                    remove.push(pieces[2].1);
                                } else if cs == [en, me, me] {
                                    remove.push(pieces[0].1);
                                }
                            }
                            for (x, y) in remove {
                                g[y][x] = '.';
                            }
                        }
                        out.push((
                            format!("{}-{}", Self::name(f, r), Self::name(nf, nr)),
                            NPos { grid: g, side: en },
                        ));
                        if !lone {
                            break;
                        }
                        k += 1;
                    }
                }
            }
        }
        out
    }

    pub fn perft(&self, p: &NPos, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.rule_end(p).is_some() {
            return 0;
        }
        let ch = self.children(p);
        if depth == 1 {
            return ch.len() as u64;
        }
        ch.iter().map(|(_, c)| self.perft(c, depth - 1)).sum()
    }
}

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
