//! The board part of a grid diagram: ranks from the top, each labelled
//! with its number, points three characters wide (the last move's points
//! marked `( )` from and `[ ]` to), and the file letters underneath.

use std::fmt::Write as _;

/// The diagram's board lines for a `w` × `h` board whose points hold
/// `occ` (in point order); `last` is the (from, to) of the move that led
/// here. Rank numbers are right-aligned in `label` columns and followed
/// by a space; the file letters line up under the points.
pub fn board_lines(w: u32, h: u32, occ: &[char], last: Option<(u32, u32)>, label: usize) -> String {
    let mut s = String::new();
    for rank in (0..h).rev() {
        let _ = write!(s, "{:>label$} ", rank + 1);
        for file in 0..w {
            let pt = rank * w + file;
            let (l, r) = match last {
                Some((_, to)) if to == pt => ('[', ']'),
                Some((from, _)) if from == pt => ('(', ')'),
                _ => (' ', ' '),
            };
            s.push(l);
            s.push(occ[pt as usize]);
            s.push(r);
        }
        s.push('\n');
    }
    s.push_str(&" ".repeat(label + 1));
    for file in 0..w {
        let _ = write!(s, " {} ", (b'a' + file as u8) as char);
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_last_move() {
        let occ = ['X', '.', '.', 'O'];
        assert_eq!(
            board_lines(2, 2, &occ, Some((0, 1)), 2),
            " 2  .  O \n 1 (X)[.]\n    a  b \n"
        );
    }
}
