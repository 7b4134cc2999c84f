//! The cannon games, naively: a char grid of the position's own size
//! (row 0 = the top rank), the presets' threshold of four soldiers, no
//! bitboards.

use super::NaiveGame;

/// A position: the grid, top rank first, and the letter of the side to move.
#[derive(Clone)]
pub struct State {
    pub grid: Vec<Vec<char>>,
    pub mover: char,
}

/// The naive generator of the presets (`two-cannons`, `three-cannons`)
/// and of any board with their rules: the board is the grid parsed.
pub struct Naive;

/// The name of the point on `row` (from the top of `h` ranks) and `col`.
fn name(h: i32, row: i32, col: i32) -> String {
    format!("{}{}", (b'a' + col as u8) as char, h - row)
}

impl NaiveGame for Naive {
    type State = State;

    fn parse(&self, s: &str) -> State {
        let (board, side) = s.split_once(' ').unwrap();
        State {
            grid: board.split('/').map(|r| r.chars().collect()).collect(),
            mover: side.chars().next().unwrap(),
        }
    }

    fn format(&self, n: &State) -> String {
        let rows: Vec<String> = n.grid.iter().map(|r| r.iter().collect()).collect();
        format!("{} {}", rows.join("/"), n.mover)
    }

    /// Fewer than four soldiers: the cannons have won.
    fn is_over(&self, n: &State) -> bool {
        n.grid.iter().flatten().filter(|&&ch| ch == 'S').count() < 4
    }

    fn children(&self, n: &State) -> Vec<(String, State)> {
        let mut out = Vec::new();
        let (h, w) = (n.grid.len() as i32, n.grid[0].len() as i32);
        let name = |r: i32, c: i32| name(h, r, c);
        let at = |r: i32, c: i32| -> Option<char> {
            if (0..h).contains(&r) && (0..w).contains(&c) {
                Some(n.grid[r as usize][c as usize])
            } else {
                None
            }
        };
        let next = if n.mover == 'C' { 'S' } else { 'C' };
        for r in 0..h {
            for c in 0..w {
                if n.grid[r as usize][c as usize] != n.mover {
                    continue;
                }
                for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    if at(r + dr, c + dc) == Some('.') {
                        let mut m = n.clone();
                        m.grid[r as usize][c as usize] = '.';
                        m.grid[(r + dr) as usize][(c + dc) as usize] = n.mover;
                        m.mover = next;
                        out.push((format!("{}-{}", name(r, c), name(r + dr, c + dc)), m));
                        if n.mover == 'C' && at(r + 2 * dr, c + 2 * dc) == Some('S') {
                            let mut m = n.clone();
                            m.grid[r as usize][c as usize] = '.';
                            m.grid[(r + 2 * dr) as usize][(c + 2 * dc) as usize] = 'C';
                            m.mover = next;
                            out.push((
                                format!("{}-{}", name(r, c), name(r + 2 * dr, c + 2 * dc)),
                                m,
                            ));
                        }
                    }
                }
            }
        }
        out
    }
}
