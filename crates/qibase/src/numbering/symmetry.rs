//! The symmetry group of a W × H grid (points `rank * W + file`, at most 64).
//!
//! Symmetry `s` first transposes if `s & 4` (square boards only), then
//! mirrors the files if `s & 1` and the ranks if `s & 2`: 8 maps on a square
//! board, 4 on a rectangle, identity first. This order is part of the slot
//! numbering of every grid game (it decides which symmetry wins a tie), so
//! it must not change.
//!
//! Maps of whole bitboards go through 8-bit chunk tables: the image of a set
//! is the union of the precomputed images of its bytes. Boards of at most
//! 32 points keep 32-bit tables of four chunks: half the cache of 64-bit
//! entries, on the hottest map of the solver.

/// Chunk tables, `[s][c][bits]`: the image under s of the set `bits << 8c`.
#[derive(Clone)]
enum Chunks {
    /// Boards of at most 32 points: four chunks, 32-bit images.
    Narrow(Box<[[[u32; 256]; 4]; 8]>),
    /// Larger boards: eight chunks, 64-bit images.
    Wide(Box<[[[u64; 256]; 8]; 8]>),
}

/// A grid's symmetries as point maps and bitboard chunk tables.
#[derive(Clone)]
pub struct GridSymmetry {
    w: u32,
    h: u32,
    len: usize,
    /// `point[s][p]`: the image of point p under symmetry s.
    point: [[u8; 64]; 8],
    chunks: Chunks,
    /// `inverse[s]`: the symmetry undoing s.
    inverse: [u8; 8],
}

impl GridSymmetry {
    /// The group of a `w` × `h` grid (1 ≤ w, h; w·h ≤ 64).
    pub fn new(w: u32, h: u32) -> Self {
        assert!(
            w >= 1 && h >= 1 && w * h <= 64,
            "grid {w} × {h} unsupported"
        );
        let n = w * h;
        let len = if w == h { 8 } else { 4 };
        let mut point = [[0u8; 64]; 8];
        for (s, map) in point.iter_mut().enumerate().take(len) {
            for p in 0..n {
                let (mut x, mut y) = (p % w, p / w);
                if s & 4 != 0 {
                    std::mem::swap(&mut x, &mut y);
                }
                if s & 1 != 0 {
                    x = w - 1 - x;
                }
                if s & 2 != 0 {
                    y = h - 1 - y;
                }
                map[p as usize] = (y * w + x) as u8;
            }
        }
        // The image of the set `bits << 8c` under s.
        let image = |s: usize, c: u32, bits: u32| -> u64 {
            (0..8)
                .map(|j| 8 * c + j)
                .filter(|&p| bits >> (p - 8 * c) & 1 != 0 && p < n)
                .fold(0u64, |out, p| out | 1 << point[s][p as usize])
        };
        let chunks = if n <= 32 {
            let mut t = Box::new([[[0u32; 256]; 4]; 8]);
            for (s, per_s) in t.iter_mut().enumerate().take(len) {
                for (c, per_c) in per_s.iter_mut().enumerate() {
                    for (bits, e) in per_c.iter_mut().enumerate() {
                        *e = image(s, c as u32, bits as u32) as u32;
                    }
                }
            }
            Chunks::Narrow(t)
        } else {
            let mut t = Box::new([[[0u64; 256]; 8]; 8]);
            for (s, per_s) in t.iter_mut().enumerate().take(len) {
                for (c, per_c) in per_s.iter_mut().enumerate() {
                    for (bits, e) in per_c.iter_mut().enumerate() {
                        *e = image(s, c as u32, bits as u32);
                    }
                }
            }
            Chunks::Wide(t)
        };
        let mut inverse = [0u8; 8];
        for s in 0..len {
            inverse[s] = (0..len)
                .find(|&t| (0..n as usize).all(|p| point[t][point[s][p] as usize] as usize == p))
                .expect("the maps form a group") as u8;
        }
        GridSymmetry {
            w,
            h,
            len,
            point,
            chunks,
            inverse,
        }
    }

    /// Number of symmetries (8 on a square board, 4 otherwise).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never: the identity is always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Board width and height.
    pub fn dims(&self) -> (u32, u32) {
        (self.w, self.h)
    }

    /// The image of point `p` under symmetry `s`.
    #[inline]
    pub fn point(&self, s: usize, p: u32) -> u32 {
        self.point[s][p as usize] as u32
    }

    /// Every symmetry as a point map (`maps[s][p]`), identity first.
    pub fn point_maps(&self) -> Vec<Vec<u32>> {
        let n = (self.w * self.h) as usize;
        (0..self.len)
            .map(|s| self.point[s][..n].iter().map(|&q| q as u32).collect())
            .collect()
    }

    /// The symmetry undoing `s`.
    pub fn inverse(&self, s: usize) -> usize {
        self.inverse[s] as usize
    }

    /// The smallest image of `bb` under the symmetries of the mask `syms`
    /// (bit s for symmetry s; not empty). The table width is chosen once,
    /// outside the loop.
    #[inline(always)]
    pub fn min_image(&self, mut syms: u32, bb: u64) -> u64 {
        let mut best = u64::MAX;
        match &self.chunks {
            Chunks::Narrow(t) => {
                while syms != 0 {
                    let s = syms.trailing_zeros() as usize;
                    syms &= syms - 1;
                    best = best.min(narrow_map(&t[s & 7], bb));
                }
            }
            Chunks::Wide(t) => {
                while syms != 0 {
                    let s = syms.trailing_zeros() as usize;
                    syms &= syms - 1;
                    best = best.min(wide_map(&t[s & 7], bb));
                }
            }
        }
        best
    }

    /// The images of `bb` under every symmetry, `out[s]` for s below
    /// [`len`](Self::len) (the rest of `out` untouched).
    #[inline(always)]
    pub fn images(&self, bb: u64, out: &mut [u64; 8]) {
        match &self.chunks {
            Chunks::Narrow(t) => {
                for (s, image) in out.iter_mut().enumerate().take(self.len) {
                    *image = narrow_map(&t[s], bb);
                }
            }
            Chunks::Wide(t) => {
                for (s, image) in out.iter_mut().enumerate().take(self.len) {
                    *image = wide_map(&t[s], bb);
                }
            }
        }
    }

    /// The image of the set `bb` under symmetry `s`.
    #[inline(always)]
    pub fn map(&self, s: usize, bb: u64) -> u64 {
        match &self.chunks {
            Chunks::Narrow(t) => narrow_map(&t[s & 7], bb),
            Chunks::Wide(t) => wide_map(&t[s & 7], bb),
        }
    }
}

/// The image of `bb` (at most 32 points) by one symmetry's narrow tables.
#[inline(always)]
fn narrow_map(t: &[[u32; 256]; 4], bb: u64) -> u64 {
    (t[0][(bb & 255) as usize]
        | t[1][(bb >> 8 & 255) as usize]
        | t[2][(bb >> 16 & 255) as usize]
        | t[3][(bb >> 24 & 255) as usize]) as u64
}

/// The image of `bb` by one symmetry's wide tables.
#[inline(always)]
fn wide_map(t: &[[u64; 256]; 8], bb: u64) -> u64 {
    let mut out = 0;
    for (c, byte) in bb.to_le_bytes().into_iter().enumerate() {
        out |= t[c][byte as usize];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_slow(g: &GridSymmetry, s: usize, bb: u64) -> u64 {
        (0..64)
            .filter(|p| bb >> p & 1 != 0)
            .map(|p| 1 << g.point(s, p))
            .fold(0, |a, b| a | b)
    }

    #[test]
    fn groups_of_all_small_grids() {
        for w in 1..=10u32 {
            for h in 1..=10u32 {
                if w * h > 64 {
                    continue;
                }
                let g = GridSymmetry::new(w, h);
                let n = w * h;
                let full = if n == 64 { u64::MAX } else { (1 << n) - 1 };
                assert_eq!(g.len(), if w == h { 8 } else { 4 });
                for s in 0..g.len() {
                    assert_eq!(g.map(s, full), full, "{w}x{h} s{s} maps the board");
                    let inv = g.inverse(s);
                    for bb in [
                        1u64,
                        0b1011,
                        0x00f0_f0f1,
                        0xdead_beef,
                        0x8123_4567_dead_beef,
                    ]
                    .map(|b| b & full)
                    {
                        assert_eq!(g.map(s, bb), map_slow(&g, s, bb));
                        assert_eq!(g.map(inv, g.map(s, bb)), bb);
                    }
                    // Closed under composition.
                    for t in 0..g.len() {
                        let composed: Vec<u32> =
                            (0..n).map(|p| g.point(t, g.point(s, p))).collect();
                        assert!((0..g.len())
                            .any(|u| (0..n).all(|p| g.point(u, p) == composed[p as usize])));
                    }
                }
                // Neighbours stay neighbours (the maps are grid automorphisms).
                for s in 0..g.len() {
                    for p in 0..n {
                        if p % w + 1 < w {
                            let (a, b) = (g.point(s, p), g.point(s, p + 1));
                            let d = a.abs_diff(b);
                            assert!(d == 1 || d == w, "{w}x{h} s{s} p{p}");
                        }
                    }
                }
                assert_eq!(g.point_maps()[0], (0..n).collect::<Vec<_>>());
            }
        }
    }
}
