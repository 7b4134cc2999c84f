//! Orbits of point sets under a grid's symmetry group.
//!
//! Sets of m points are visited in colex order (for sets of one size, the
//! order of their bitboards as integers), so the first member of an orbit
//! met is its smallest and becomes its *representative*; classes of m-point
//! sets are numbered in the order of their representatives. For every set
//! the table keeps its class and the mask of the symmetries that map it
//! onto the representative (more than one bit when the representative has
//! a non-trivial stabiliser).

use super::colex::{binom, next_subset, ColexTable};
use super::symmetry::GridSymmetry;
use crate::prefetch::prefetch;

/// The number of orbits of m-point sets of the whole grid under its
/// symmetry group, without listing a set: by Burnside's lemma, the mean
/// over the symmetries of the sets each one fixes. A symmetry fixes a set
/// exactly when the set is a union of its point cycles, so it fixes the
/// coefficient of x^m in the product over its cycles of (1 + x^length).
pub fn orbit_count(sym: &GridSymmetry, m: u32) -> u64 {
    let (w, h) = sym.dims();
    let n = (w * h) as usize;
    if m as usize > n {
        return 0;
    }
    let mut fixed: u128 = 0;
    for s in 0..sym.len() {
        let mut seen = vec![false; n];
        // Sets fixed by s, by size: at most C(64, 32) < 2^63 each.
        let mut poly = vec![0u128; n + 1];
        poly[0] = 1;
        for p in 0..n {
            if seen[p] {
                continue;
            }
            let mut len = 0;
            let mut q = p;
            while !seen[q] {
                seen[q] = true;
                q = sym.point(s, q as u32) as usize;
                len += 1;
            }
            for k in (len..=n).rev() {
                poly[k] += poly[k - len];
            }
        }
        fixed += poly[m as usize];
    }
    (fixed / sym.len() as u128) as u64
}

/// Class tables for the sets of every size in `0..=m_max`.
#[derive(Clone)]
pub struct SetClasses {
    m_max: u32,
    /// Per set of m points, at `set_base[m] + colex rank`: class << 8 | the
    /// mask of the symmetries mapping it onto its representative.
    info: Vec<u32>,
    set_base: Vec<usize>,
    /// Per class of m-point sets, at `class_base[m] + class`: the
    /// representative, and the points it leaves free.
    rep: Vec<u64>,
    free: Vec<u64>,
    /// Per class: the symmetries mapping the representative onto itself
    /// (bit 0, the identity, always set).
    stabiliser: Vec<u8>,
    class_base: Vec<usize>,
    n_classes: Vec<u64>,
}

impl SetClasses {
    /// The classes of sets of at most `m_max` points of the board `board`
    /// (all points of the grid of `sym`).
    pub fn new(sym: &GridSymmetry, board: u64, m_max: u32) -> Self {
        // Sizes above n have no sets (C(n, m) = 0): their tables stay empty.
        let n = board.count_ones();
        let colex = ColexTable::new(n, m_max);
        let mut c = SetClasses {
            m_max,
            info: Vec::new(),
            set_base: Vec::new(),
            rep: Vec::new(),
            free: Vec::new(),
            stabiliser: Vec::new(),
            class_base: Vec::new(),
            n_classes: Vec::new(),
        };
        for m in 0..=m_max {
            let base = c.info.len();
            c.set_base.push(base);
            c.class_base.push(c.rep.len());
            let count = binom(n, m);
            c.info.reserve(count as usize);
            let mut set: u64 = if m == 0 { 0 } else { u64::MAX >> (64 - m) };
            // Sets go by blocks: each set's images first, with the table
            // entry of each representative met before prefetched, then the
            // entries in order. Waiting for those entries one at a time was
            // most of the time of building the tables of a large board.
            let mut block = [(0u64, None::<usize>, 0u32); 64];
            let mut images = [0u64; 8];
            let images = &mut images[..sym.len()];
            let mut r = 0;
            while r < count {
                let len = (count - r).min(block.len() as u64) as usize;
                for entry in &mut block[..len] {
                    for (s, image) in images.iter_mut().enumerate() {
                        *image = sym.map(s, set);
                    }
                    let rep = images.iter().copied().min().unwrap_or(set);
                    let mut mask = 0u32;
                    for (s, &image) in images.iter().enumerate() {
                        if image == rep {
                            mask |= 1 << s;
                        }
                    }
                    // The representative is the smallest of the images, so
                    // when it is not this set it was met before.
                    let met = (rep != set).then(|| base + colex.rank(rep) as usize);
                    if let Some(i) = met {
                        prefetch(c.info.as_ptr().wrapping_add(i));
                    }
                    *entry = (set, met, mask);
                    r += 1;
                    if r < count {
                        set = next_subset(set);
                    }
                }
                for &(set, met, mask) in &block[..len] {
                    let cls = match met {
                        Some(i) => c.info[i] >> 8,
                        None => {
                            c.rep.push(set);
                            c.free.push(board & !set);
                            // The representative's own mask: the maps onto
                            // itself.
                            c.stabiliser.push(mask as u8);
                            (c.rep.len() - 1 - c.class_base[m as usize]) as u32
                        }
                    };
                    c.info.push(cls << 8 | mask);
                }
            }
            c.n_classes
                .push((c.rep.len() - c.class_base[m as usize]) as u64);
        }
        c
    }

    /// The class counts alone, by [`orbit_count`], with no table: for the
    /// sizes of a numbering too large to build. Only [`count`](Self::count)
    /// and [`m_max`](Self::m_max) may be asked of the result; every other
    /// accessor would index an empty table.
    pub fn counts_only(sym: &GridSymmetry, m_max: u32) -> Self {
        SetClasses {
            m_max,
            info: Vec::new(),
            set_base: Vec::new(),
            rep: Vec::new(),
            free: Vec::new(),
            stabiliser: Vec::new(),
            class_base: Vec::new(),
            n_classes: (0..=m_max).map(|m| orbit_count(sym, m)).collect(),
        }
    }

    /// Largest set size covered.
    pub fn m_max(&self) -> u32 {
        self.m_max
    }

    /// Number of classes of m-point sets.
    #[inline]
    pub fn count(&self, m: u32) -> u64 {
        self.n_classes[m as usize]
    }

    /// Class and symmetry mask (see the module docs) of the m-point set of
    /// colex rank `r`: `class << 8 | mask`.
    #[inline(always)]
    pub fn info(&self, m: u32, r: u64) -> u32 {
        self.info[self.set_base[m as usize] + r as usize]
    }

    /// Representative and free points of class `cls` of m-point sets.
    #[inline(always)]
    pub fn rep_free(&self, m: u32, cls: u32) -> (u64, u64) {
        let i = self.class_base[m as usize] + cls as usize;
        (self.rep[i], self.free[i])
    }

    /// The symmetries (a mask, as in [`info`](Self::info)) mapping the
    /// representative of class `cls` of m-point sets onto itself; `1`, the
    /// identity alone, for most classes.
    #[inline(always)]
    pub fn stabiliser(&self, m: u32, cls: u32) -> u32 {
        self.stabiliser[self.class_base[m as usize] + cls as usize] as u32
    }
}
