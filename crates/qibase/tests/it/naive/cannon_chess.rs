//! Cannon chess, naively: 2D character grids, the rules read off
//! docs/rules.md with the presets' switches (a lone piece slides and takes
//! a pair by 挑, others step and shoot; one piece against one is a draw).

use super::NaiveGame;

/// A position on a grid: `grid[rank][file]`, rank 0 = rank 1 (bottom).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NPos {
    pub grid: Vec<Vec<char>>,
    pub side: char,
}

/// The naive generator of a `w` × `h` board.
pub struct Naive {
    pub w: usize,
    pub h: usize,
}

impl Naive {
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
}

impl NaiveGame for Naive {
    type State = NPos;

    fn parse(&self, s: &str) -> NPos {
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

    fn format(&self, p: &NPos) -> String {
        let ranks: Vec<String> = p.grid.iter().rev().map(|r| r.iter().collect()).collect();
        format!("{} {}", ranks.join("/"), p.side)
    }

    fn is_over(&self, p: &NPos) -> bool {
        self.rule_end(p).is_some()
    }

    /// All children as (move name, position), in no particular order.
    fn children(&self, p: &NPos) -> Vec<(String, NPos)> {
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
}
