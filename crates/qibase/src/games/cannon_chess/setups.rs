//! Where cannon chess starts: the default pattern a variant's board and
//! piece count give, and the plausible setups the report values (readings
//! of the original setup).

use super::{CannonChess, CannonChessParams};
use crate::games::variant;
use crate::games::SpecError;

impl CannonChessParams {
    /// The default start: X fills its edge rows (rank 1 up) and puts the
    /// rest of its pieces on the next rank from both ends inward; O the
    /// same from the top. Six pieces on four files give both presets'
    /// setups (a full row plus the two ends of the next).
    ///
    /// # Errors
    ///
    /// [`SpecError::Unsupported`] if the two sides' rows do not fit on the
    /// board apart.
    pub fn default_setup(&self) -> Result<String, SpecError> {
        let (w, h, p) = (self.width, self.height, self.pieces);
        let rows = p.div_ceil(w);
        if 2 * rows > h {
            return Err(SpecError::Unsupported {
                message: format!(
                    "{p} pieces a side do not fit the default setup on a {w}x{h} board \
                     ({rows} ranks each side): give setup="
                ),
            });
        }
        let mut grid = vec![vec!['.'; w as usize]; h as usize]; // grid[0] = rank 1
        let mut row_files = vec![(0..w).collect::<Vec<u32>>(); (p / w) as usize];
        if p % w != 0 {
            row_files.push(variant::from_ends(w, p % w));
        }
        for (r, files) in row_files.iter().enumerate() {
            for &f in files {
                grid[r][f as usize] = 'X';
                grid[h as usize - 1 - r][f as usize] = 'O';
            }
        }
        let ranks: Vec<String> = grid.iter().rev().map(|r| r.iter().collect()).collect();
        Ok(format!("{} X", ranks.join("/")))
    }
}

/// What the report values besides the game itself (see `qibase report`):
/// other readings of the disputed rules and other plausible setups.
impl CannonChess {
    /// Plausible start positions on this board and material, as (label,
    /// board part of a position), the rules' own setup first (the report
    /// values each; every position is solved, so no new tables are
    /// needed). Empty when none is known.
    pub fn plausible_setups(&self) -> Vec<(String, String)> {
        let w = self.w as usize;
        if w < 3 || self.h < 4 {
            return Vec::new();
        }
        let row = |c: char, cells: &dyn Fn(usize) -> bool| -> String {
            (0..w).map(|x| if cells(x) { c } else { '.' }).collect()
        };
        // A full edge row each and some points of the next row (the same
        // files for both sides).
        let board = |second: &dyn Fn(usize) -> bool| {
            let mut ranks = vec![row('O', &|_| true), row('O', second)];
            ranks.extend((0..self.h as usize - 4).map(|_| ".".repeat(w)));
            ranks.push(row('X', second));
            ranks.push(row('X', &|_| true));
            ranks.join("/")
        };
        let extra = self.max_side as usize;
        if extra == w + 2 && w >= 4 {
            // The original pattern (a full edge row and the two ends of the
            // next row) and, on an even width, its reading with the middle
            // pair of the next row.
            let mut v = vec![(
                "original: edge row + its two ends".to_string(),
                board(&|x| x == 0 || x == w - 1),
            )];
            if w.is_multiple_of(2) {
                v.push((
                    "edge row + the middle pair".into(),
                    board(&|x| x == w / 2 - 1 || x == w / 2),
                ));
            }
            v
        } else if extra == w + 1 {
            // One piece over a row: the default puts it at one end of the
            // next row; on an odd width it can also stand in the middle.
            let mut v = vec![(
                "default: edge row + one end of the next".to_string(),
                board(&|x| x == 0),
            )];
            if !w.is_multiple_of(2) {
                v.push((
                    "edge row + the middle point of the next".into(),
                    board(&|x| x == w / 2),
                ));
            }
            v
        } else {
            Vec::new()
        }
    }
}
