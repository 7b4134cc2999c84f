//! Weiming, naively: a board of chars in position-string order and an
//! adjacency list typed out by hand from the RULES picture.

use super::NaiveGame;

/// The point names in position-string order.
pub const NAMES: [&str; 9] = ["tl", "tm", "tr", "s", "x", "m", "bl", "bm", "br"];

/// The points joined to `name` by a line.
pub fn neighbours(name: &str) -> &'static [&'static str] {
    match name {
        "tl" => &["tm", "x"],
        "tm" => &["tl", "tr", "x", "m"],
        "tr" => &["tm", "br"],
        "s" => &["x"],
        "x" => &["tl", "tm", "s", "m", "bl", "bm"],
        "m" => &["tm", "x", "bm"],
        "bl" => &["x", "bm"],
        "bm" => &["bl", "x", "m", "br"],
        "br" => &["bm", "tr"],
        _ => panic!("no point {name}"),
    }
}

/// A position: the nine points, the side to move, the lock flag.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct State {
    pub board: [char; 9],
    pub side: char,
    pub locked: bool,
}

/// The index of a point name.
pub fn idx(name: &str) -> usize {
    NAMES.iter().position(|&n| n == name).unwrap()
}

/// The naive weiming generator.
pub struct Naive;

impl NaiveGame for Naive {
    type State = State;

    fn parse(&self, s: &str) -> State {
        let parts: Vec<&str> = s.split(' ').collect();
        let cells: Vec<char> = parts[0].chars().filter(|&c| c != '/').collect();
        let mut board = ['.'; 9];
        board.copy_from_slice(&cells);
        State {
            board,
            side: parts[1].chars().next().unwrap(),
            locked: parts[2] == "!",
        }
    }

    fn format(&self, st: &State) -> String {
        let b: String = st.board.iter().collect();
        format!(
            "{}/{}/{} {} {}",
            &b[0..3],
            &b[3..6],
            &b[6..9],
            st.side,
            if st.locked { "!" } else { "-" }
        )
    }

    /// Weiming has no end by rule: only a side without moves loses.
    fn is_over(&self, _st: &State) -> bool {
        false
    }

    fn children(&self, st: &State) -> Vec<(String, State)> {
        let mut out = Vec::new();
        for from in NAMES {
            let c = st.board[idx(from)];
            let may_move = c == st.side || (c == 'S' && !st.locked);
            if !may_move {
                continue;
            }
            for &to in neighbours(from) {
                if st.board[idx(to)] != '.' {
                    continue;
                }
                let mut next = st.clone();
                next.board[idx(to)] = c;
                next.board[idx(from)] = '.';
                next.side = if st.side == 'X' { 'O' } else { 'X' };
                next.locked = c == 'S';
                out.push((format!("{from}-{to}"), next));
            }
        }
        out
    }
}
