//! Test helpers for cannon chess: a seeded PRNG and a deliberately naive,
//! independent rules implementation on 2D character grids (no bitboards, no
//! code shared with the engine), used to cross-check the engine.

#![allow(dead_code)]

/// splitmix64: small, seeded, reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in 0..n.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

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
    let nx = rng.below(max as u64 + 1) as usize;
    let no = rng.below(max as u64 + 1) as usize;
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
            let i = rng.below((w * h) as u64) as usize;
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
