//! Where the cannon games start: the default pattern a variant's board
//! and material give, and the plausible setups the report values
//! (readings of the original setups).

use super::{Cannons, CannonsParams};
use crate::games::variant;
use crate::games::SpecError;

impl CannonsParams {
    /// The default start: soldiers fill the ranks from the top, the last
    /// partial rank from both ends inward; the cannons stand centred on
    /// rank 1. Reproduces both presets' setups.
    ///
    /// # Errors
    ///
    /// [`SpecError::Unsupported`] if the soldiers' ranks and the cannons'
    /// rank do not fit on the board.
    pub fn default_setup(&self) -> Result<String, SpecError> {
        let (w, h) = (self.width, self.height);
        let rows = self.soldiers.div_ceil(w);
        if rows + 1 > h || self.cannons > w {
            return Err(SpecError::Unsupported {
                message: format!(
                    "{} soldiers and {} cannons do not fit the default setup on a {w}x{h} board \
                     (soldiers from the top rank down, cannons on rank 1): give setup=",
                    self.soldiers, self.cannons
                ),
            });
        }
        let mut grid = vec![vec!['.'; w as usize]; h as usize]; // grid[rank from 0 = rank 1]
        for r in 0..self.soldiers / w {
            grid[(h - 1 - r) as usize].fill('S');
        }
        for f in variant::from_ends(w, self.soldiers % w) {
            grid[(h - 1 - self.soldiers / w) as usize][f as usize] = 'S';
        }
        for f in variant::centred(w, self.cannons) {
            grid[0][f as usize] = 'C';
        }
        let ranks: Vec<String> = grid.iter().rev().map(|r| r.iter().collect()).collect();
        Ok(format!("{} C", ranks.join("/")))
    }

    /// Any legal placement of the material (row by row from the top, the
    /// cannons last), used only until the explicit setup replaces it.
    pub(super) fn placeholder_setup(&self) -> String {
        let (w, h) = (self.width as usize, self.height as usize);
        let mut cells = vec!['.'; w * h];
        for c in cells.iter_mut().take(self.soldiers as usize) {
            *c = 'S';
        }
        for c in cells
            .iter_mut()
            .skip(self.soldiers as usize)
            .take(self.cannons as usize)
        {
            *c = 'C';
        }
        let ranks: Vec<String> = cells.chunks(w).map(|r| r.iter().collect()).collect();
        format!("{} C", ranks.join("/"))
    }
}

/// What the report values besides the game itself (see `qibase report`):
/// other readings of the disputed rules and other plausible setups.
impl Cannons {
    /// Plausible start positions on this board and material, as (label,
    /// board part of a position), the rules' own setup first (the report
    /// values each; every position is solved, so no new tables are
    /// needed). Empty when none is known.
    pub fn plausible_setups(&self) -> Vec<(String, String)> {
        // Readings of the original setups on the 5 × 5 board: where the
        // soldiers that do not fill whole ranks stand, and where the cannons.
        let setups: &[(&str, &str)] = match (self.w, self.h, self.n_cannons, self.max_soldiers) {
            (5, 5, 2, 12) => &[
                (
                    "qibase: a3 e3, cannons b1 d1",
                    "SSSSS/SSSSS/S...S/...../.C.C.",
                ),
                ("b3 d3, cannons b1 d1", "SSSSS/SSSSS/.S.S./...../.C.C."),
                ("a3 e3, cannons a1 e1", "SSSSS/SSSSS/S...S/...../C...C"),
                ("b3 d3, cannons a1 e1", "SSSSS/SSSSS/.S.S./...../C...C"),
            ],
            (5, 5, 3, 15) => &[
                (
                    "original: cannons b1 c1 d1",
                    "SSSSS/SSSSS/SSSSS/...../.CCC.",
                ),
                ("cannons a1 c1 e1", "SSSSS/SSSSS/SSSSS/...../C.C.C"),
                ("cannons b1 d1 c2", "SSSSS/SSSSS/SSSSS/..C../.C.C."),
            ],
            _ => &[],
        };
        setups
            .iter()
            .map(|&(l, b)| (l.to_string(), b.to_string()))
            .collect()
    }
}
