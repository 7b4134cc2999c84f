//! Canonical ranking of a pair of disjoint point sets (A, B) under a grid's
//! symmetries, the numbering both grid game families use:
//!
//! ```text
//! index(A, B) = class(A) · C(n − |A|, |B|) + colex(pext(σ(B), free(rep)))
//! ```
//!
//! `class(A)` numbers the orbits of |A|-point sets ([`SetClasses`]); σ ranges
//! over the symmetries mapping A onto its class representative `rep`, and
//! the one giving the smallest rank is used; `pext` over the points `rep`
//! leaves free renumbers them 0..n−|A|. Because pext over a fixed mask and
//! colex on sets of one size both keep the integer order of bitboards, the
//! smallest rank belongs to the smallest image σ(B), so one pext and one
//! rank suffice. Indices whose B is not the smallest under the
//! representative's stabiliser hold no pair: `rank(unrank(i)) < i` there.

use super::bits::{pdep, pext};
use super::classes::SetClasses;
use super::colex::{binom, next_subset, unrank_subset, ColexTable};
use super::symmetry::GridSymmetry;
use std::ops::Range;

/// What [`PairNumbering::rank`] learns from A alone: where its class's
/// block starts, the points its representative leaves free, and the
/// symmetries mapping A onto the representative.
#[derive(Clone, Copy, Debug)]
pub struct FixedA {
    base: u64,
    free: u64,
    syms: u32,
}

/// What [`PairNumbering::rank`] needs of B when A varies and B stays:
/// its images under every symmetry, mapped once.
#[derive(Clone, Copy, Debug)]
pub struct FixedB {
    images: [u64; 8],
    o: u32,
}

/// A used index taken apart ([`PairNumbering::unrank_slot`]): the pair
/// stored there, and what ranking the pairs one move of a B piece away
/// needs.
#[derive(Clone, Copy, Debug)]
pub struct PairSlot {
    /// A: its class representative.
    pub a: u64,
    /// B.
    pub b: u64,
    /// The points A leaves free.
    free: u64,
    /// Where A's class block starts.
    base: u64,
    /// B on the free points renumbered 0..n − |A| (`pext(b, free)`).
    compact: u64,
    /// Whether A has no symmetry but the identity.
    trivial: bool,
}

impl PairSlot {
    /// Whether [`PairNumbering::b_move_rank`] answers: A's
    /// representative has no symmetry but the identity, so every pair
    /// (A, B′) is stored as it is, and distinct B′ have distinct indices.
    #[inline(always)]
    pub fn b_moves_are_incremental(&self) -> bool {
        self.trivial
    }

    /// B's compact set (on the free points renumbered 0..n − |A|) with
    /// its piece on `from` moved to the empty point `to`.
    #[inline(always)]
    fn b_moved_compact(&self, from: u32, to: u32) -> u64 {
        debug_assert!(self.b >> from & 1 == 1 && (self.a | self.b) >> to & 1 == 0);
        // A point's number among the free points: the free points below it.
        let compact = |p: u32| (self.free & !(u64::MAX << p)).count_ones();
        self.compact ^ (1 << compact(from)) ^ (1 << compact(to))
    }
}

/// The numbering of (A, B) pairs on one grid, |A| ≤ `a_max`, |B| ≤ `b_max`.
#[derive(Clone)]
pub struct PairNumbering {
    n: u32,
    /// `divisor[m][o]`: C(n − m, o), the block of each class, with its
    /// reciprocal for [`unrank`](Self::unrank)'s division.
    divisor: Box<[[Divisor; 65]; 65]>,
    sym: GridSymmetry,
    classes: SetClasses,
    colex: ColexTable,
}

impl PairNumbering {
    /// The numbering on a `w` × `h` grid, by all the grid's symmetries.
    pub fn new(w: u32, h: u32, a_max: u32, b_max: u32) -> Self {
        let sym = GridSymmetry::new(w, h);
        let n = w * h;
        let board = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        let classes = SetClasses::new(&sym, board, a_max);
        let mut divisor = Box::new([[Divisor::new(1); 65]; 65]);
        for (m, row) in divisor.iter_mut().enumerate().take(n as usize + 1) {
            for (o, d) in row.iter_mut().enumerate() {
                *d = Divisor::new(binom(n - m as u32, o as u32));
            }
        }
        PairNumbering {
            n,
            divisor,
            colex: ColexTable::new(n, a_max.max(b_max)),
            sym,
            classes,
        }
    }

    /// The sizes alone of the numbering on a `w` × `h` grid, with no table
    /// built (class counts by Burnside's lemma): for estimating a variant
    /// whose tables would be too large. Only [`classes`](Self::classes),
    /// [`size`](Self::size) and [`slots`](Self::slots) may be asked of it;
    /// ranking and unranking would index empty tables.
    pub fn counts_only(w: u32, h: u32, a_max: u32) -> Self {
        let sym = GridSymmetry::new(w, h);
        let n = w * h;
        PairNumbering {
            n,
            divisor: Box::new([[Divisor::new(1); 65]; 65]),
            classes: SetClasses::counts_only(&sym, a_max.min(n)),
            colex: ColexTable::new(n, 0),
            sym,
        }
    }

    /// The symmetry group.
    pub fn symmetry(&self) -> &GridSymmetry {
        &self.sym
    }

    /// Number of classes of m-point sets A.
    #[inline]
    pub fn classes(&self, m: u32) -> u64 {
        self.classes.count(m)
    }

    /// Index slots of all pairs with |A| = m, |B| = o.
    #[inline]
    pub fn size(&self, m: u32, o: u32) -> u64 {
        self.classes.count(m) * binom(self.n - m, o)
    }

    /// [`size`](Self::size), saturating at `u64::MAX` (the sizes of a
    /// numbering too large to build may not fit 64 bits).
    pub fn slots(&self, m: u32, o: u32) -> u64 {
        self.classes.count(m).saturating_mul(binom(self.n - m, o))
    }

    /// The index of (a, b) among the pairs of their sizes (`< size`).
    #[inline(always)]
    pub fn rank(&self, a: u64, b: u64) -> u64 {
        self.rank_fixed(&self.fix_a(a, b.count_ones()), b)
    }

    /// What ranking the pairs (a, B) with |B| = o needs to know about a,
    /// found once: a move of B pieces alone then costs one pext and one
    /// colex rank ([`rank_fixed`](Self::rank_fixed)) instead of a whole
    /// [`rank`](Self::rank).
    #[inline(always)]
    pub fn fix_a(&self, a: u64, o: u32) -> FixedA {
        let m = a.count_ones();
        let info = self.classes.info(m, self.colex.rank(a));
        let cls = info >> 8;
        let (_, free) = self.classes.rep_free(m, cls);
        FixedA {
            base: cls as u64 * binom(self.n - m, o),
            free,
            syms: info & 0xff,
        }
    }

    /// What ranking the pairs (A, b) needs to know about b, found once: a
    /// move of A pieces alone then maps no set ([`rank_fixed_b`]).
    ///
    /// [`rank_fixed_b`]: Self::rank_fixed_b
    #[inline(always)]
    pub fn fix_b(&self, b: u64) -> FixedB {
        let mut images = [b; 8];
        self.sym.images(b, &mut images);
        FixedB {
            images,
            o: b.count_ones(),
        }
    }

    /// The index of (a, b), for the `b` of `fixed`.
    #[inline(always)]
    pub fn rank_fixed_b(&self, fixed: &FixedB, a: u64) -> u64 {
        let m = a.count_ones();
        let info = self.classes.info(m, self.colex.rank(a));
        let cls = info >> 8;
        let (_, free) = self.classes.rep_free(m, cls);
        let mut syms = info & 0xff;
        let mut canon = u64::MAX;
        while syms != 0 {
            let s = syms.trailing_zeros() as usize;
            syms &= syms - 1;
            canon = canon.min(fixed.images[s & 7]);
        }
        cls as u64 * binom(self.n - m, fixed.o) + self.colex.rank(pext(canon, free))
    }

    /// The index of (a, b), for the `a` of `fixed` and |b| the size it was
    /// fixed for.
    #[inline(always)]
    pub fn rank_fixed(&self, fixed: &FixedA, b: u64) -> u64 {
        let canon = if fixed.syms == 1 {
            // A is its own representative with a trivial stabiliser.
            b
        } else {
            self.sym.min_image(fixed.syms, b)
        };
        fixed.base + self.colex.rank(pext(canon, fixed.free))
    }

    /// The index of (A, B with its piece on `from` moved to the empty
    /// point `to`) for the pair at `slot`: the slot's class block plus the
    /// colex rank of the moved compact set, no set mapped and no class
    /// looked up. Only where [`PairSlot::b_moves_are_incremental`] says
    /// so.
    // A whole colex rank by chunk table (four reads, no branch) measured
    // faster than the delta over the points the piece passes, whose loop
    // lengths the branch predictor cannot guess.
    #[inline(always)]
    pub fn b_move_rank(&self, slot: &PairSlot, from: u32, to: u32) -> u64 {
        debug_assert!(slot.trivial);
        slot.base + self.colex.rank(slot.b_moved_compact(from, to))
    }

    /// Whether two different moves of single pieces of `moving` (each one
    /// point left, one empty point entered) can lead from the pair
    /// (`fixed`, `moving`) to pairs with the same index, in either order of
    /// the sets. Same index means same orbit, so for children
    /// (fixed, moving ⊕ m1) = σ(fixed, moving ⊕ m2) some σ other than the
    /// identity must fix `fixed` and move `moving` by m1 ⊕ σ(m2), at most
    /// four points. When no σ does, every such move has its own slot and
    /// the children can be counted without being ranked.
    // Always inlined: called for every position of a solve.
    #[inline(always)]
    pub fn moves_may_share_slots(&self, fixed: u64, moving: u64) -> bool {
        (1..self.sym.len()).any(|s| {
            self.sym.map(s, fixed) == fixed && (self.sym.map(s, moving) ^ moving).count_ones() <= 4
        })
    }

    /// The pair stored at index `i` of the pairs of sizes (m, o): A is its
    /// class representative.
    #[inline]
    pub fn unrank(&self, m: u32, o: u32, i: u64) -> (u64, u64) {
        let (cls, r) = self.divisor[m as usize][o as usize].div_rem(i);
        let (rep, free) = self.classes.rep_free(m, cls as u32);
        (rep, pdep(unrank_subset(self.n - m, o, r), free))
    }

    /// [`unrank`](Self::unrank), keeping what ranking the pairs one B move
    /// away needs ([`PairSlot`]).
    #[inline(always)]
    pub fn unrank_slot(&self, m: u32, o: u32, i: u64) -> PairSlot {
        let (cls, offset) = self.divisor[m as usize][o as usize].div_rem(i);
        let (a, free) = self.classes.rep_free(m, cls as u32);
        let compact = unrank_subset(self.n - m, o, offset);
        PairSlot {
            a,
            b: pdep(compact, free),
            free,
            base: i - offset,
            compact,
            trivial: self.classes.stabiliser(m, cls as u32) == 1,
        }
    }

    /// Calls `f(i, a, b)` for each used index `i` in `range` of the pairs of
    /// sizes (m, o), in increasing order, with the pair stored there (what
    /// [`unrank`](Self::unrank) gives). No index is re-ranked: within a
    /// class's block the B sets follow in colex order, so each is the next
    /// subset of the one before; all of them are used when the class
    /// representative has no symmetry but the identity, and otherwise those
    /// that are the smallest of their images under its stabiliser.
    pub fn for_each_used(
        &self,
        m: u32,
        o: u32,
        range: Range<u64>,
        mut f: impl FnMut(u64, u64, u64),
    ) {
        let block = binom(self.n - m, o);
        let end = range.end.min(self.size(m, o));
        let mut i = range.start;
        while i < end {
            let cls = i / block;
            let stop = end.min((cls + 1) * block);
            let (rep, free) = self.classes.rep_free(m, cls as u32);
            // The symmetries mapping the representative onto itself,
            // without the identity (bit 0).
            let stabiliser = self.classes.stabiliser(m, cls as u32) & !1;
            let mut set = unrank_subset(self.n - m, o, i - cls * block);
            for j in i..stop {
                let b = pdep(set, free);
                let mut syms = stabiliser;
                let mut smallest = true;
                while syms != 0 {
                    let s = syms.trailing_zeros() as usize;
                    syms &= syms - 1;
                    smallest &= self.sym.map(s, b) >= b;
                }
                if smallest {
                    f(j, rep, b);
                }
                if set != 0 && j + 1 < stop {
                    set = next_subset(set);
                }
            }
            i = stop;
        }
    }

    /// Number of distinct images of (a, b) under the group.
    pub fn orbit_size(&self, a: u64, b: u64) -> u64 {
        let stab = (0..self.sym.len())
            .filter(|&s| self.sym.map(s, a) == a && self.sym.map(s, b) == b)
            .count();
        (self.sym.len() / stab) as u64
    }
}

/// A divisor with its reciprocal: the slot indices of today's games fit
/// 32 bits, and for 32-bit dividends a multiplication by
/// M = ⌊(2⁶⁴ − 1) / d⌋ + 1 and a shift give the exact quotient (Lemire,
/// Kaser & Kurz, "Faster remainder by direct computation", 2019), several
/// times cheaper than a hardware division. Larger indices (tiers past
/// 2^32 slots) take the hardware division.
#[derive(Clone, Copy, Debug)]
struct Divisor {
    d: u64,
    /// M, or 0 where d or the dividend may exceed 32 bits or d is 0 or 1.
    m: u64,
}

impl Divisor {
    fn new(d: u64) -> Self {
        let m = if (2..=u32::MAX as u64).contains(&d) {
            (u64::MAX / d).wrapping_add(1)
        } else {
            0
        };
        Divisor { d, m }
    }

    /// (i / d, i % d).
    #[inline(always)]
    fn div_rem(&self, i: u64) -> (u64, u64) {
        if self.m != 0 && i <= u32::MAX as u64 {
            let q = ((self.m as u128 * i as u128) >> 64) as u64;
            (q, i - q * self.d)
        } else {
            (i / self.d, i % self.d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn divisions_by_reciprocal_are_exact() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        };
        let divisors = [
            1,
            2,
            3,
            7,
            10,
            255,
            1 << 20,
            300_540_195,
            u32::MAX as u64 - 1,
        ];
        let random: Vec<u64> = (0..200).map(|_| 1 + next() % u32::MAX as u64).collect();
        for d in divisors.into_iter().chain(random) {
            let div = Divisor::new(d);
            let edges = [0, 1, d - 1, d, d + 1, u32::MAX as u64 - 1, u32::MAX as u64];
            let random: Vec<u64> = (0..500).map(|_| next() >> 32).collect();
            for i in edges.into_iter().chain(random) {
                assert_eq!(div.div_rem(i), (i / d, i % d), "{i} / {d}");
            }
            // Beyond 32 bits the plain division answers.
            let big = (u32::MAX as u64 + 1) * 3 + 5;
            assert_eq!(div.div_rem(big), (big / d, big % d));
        }
    }

    /// The class counts by Burnside's lemma equal the counts of the built
    /// tables, on square and oblong grids up to 64 points.
    #[test]
    fn counts_without_tables_equal_the_tables() {
        for (w, h, m_max) in [
            (3, 3, 9),
            (4, 4, 8),
            (5, 4, 7),
            (5, 5, 6),
            (6, 6, 4),
            (8, 8, 3),
            (7, 5, 4),
            (11, 3, 3),
            (1, 7, 7),
        ] {
            let built = PairNumbering::new(w, h, m_max, 2);
            let counted = PairNumbering::counts_only(w, h, m_max);
            for m in 0..=m_max {
                assert_eq!(counted.classes(m), built.classes(m), "{w}x{h}, {m} points");
                for o in 0..=2 {
                    assert_eq!(counted.slots(m, o), built.size(m, o));
                }
            }
        }
        // Past what any table could hold: C(64, 32) / 8 classes at least.
        let big = PairNumbering::counts_only(8, 8, 32);
        assert!(big.classes(32) >= binom(64, 32) / 8);
        assert_eq!(big.slots(15, 15), u64::MAX, "saturates");
    }

    /// Brute force on small grids: every pair's rank is shared exactly by
    /// its orbit, and every used index unranks to a pair of that orbit.
    #[test]
    fn ranks_are_orbits() {
        for (w, h, a_max, b_max) in [(3, 3, 3, 3), (2, 4, 3, 2), (4, 3, 2, 3), (1, 5, 2, 2)] {
            let pn = PairNumbering::new(w, h, a_max, b_max);
            let n = w * h;
            for m in 0..=a_max {
                for o in 0..=b_max.min(n - m) {
                    let size = pn.size(m, o);
                    let mut orbit_of: HashMap<u64, (u64, u64)> = HashMap::new();
                    let mut total = 0u64;
                    for a in 0u64..1 << n {
                        if a.count_ones() != m {
                            continue;
                        }
                        for b in 0u64..1 << n {
                            if b.count_ones() != o || a & b != 0 {
                                continue;
                            }
                            total += 1;
                            let r = pn.rank(a, b);
                            assert!(r < size);
                            // Ranking with A fixed once is the same rank,
                            // also for an A that is not a representative.
                            assert_eq!(pn.rank_fixed(&pn.fix_a(a, o), b), r);
                            assert_eq!(pn.rank_fixed_b(&pn.fix_b(b), a), r);
                            let (ua, ub) = pn.unrank(m, o, r);
                            assert_eq!(pn.rank(ua, ub), r, "used slot round-trips");
                            let same = (0..pn.symmetry().len()).any(|s| {
                                pn.symmetry().map(s, a) == ua && pn.symmetry().map(s, b) == ub
                            });
                            assert!(same, "{w}x{h}: ({a:b},{b:b}) ranks to another orbit");
                            orbit_of.entry(r).or_insert((a, b));
                        }
                    }
                    let weighted: u64 = orbit_of.values().map(|&(a, b)| pn.orbit_size(a, b)).sum();
                    assert_eq!(weighted, total, "{w}x{h} m{m} o{o}: orbits cover all pairs");
                    let used = (0..size)
                        .filter(|&i| {
                            let (a, b) = pn.unrank(m, o, i);
                            pn.rank(a, b) == i
                        })
                        .count();
                    // Ranks one B move away, incremental where A's
                    // representative has no symmetry, are the plain ranks.
                    let mut incremental = 0;
                    for i in 0..size {
                        let slot = pn.unrank_slot(m, o, i);
                        assert_eq!((slot.a, slot.b), pn.unrank(m, o, i));
                        if !slot.b_moves_are_incremental() {
                            continue;
                        }
                        incremental += 1;
                        let empty = !(slot.a | slot.b) & ((1 << n) - 1);
                        for from in (0..n).filter(|&p| slot.b >> p & 1 == 1) {
                            for to in (0..n).filter(|&p| empty >> p & 1 == 1) {
                                let moved = slot.b ^ 1 << from ^ 1 << to;
                                assert_eq!(pn.b_move_rank(&slot, from, to), pn.rank(slot.a, moved));
                            }
                        }
                    }
                    if m == 1 && o >= 1 && w != h && w > 1 && h > 1 {
                        // A corner has no symmetry on a non-square board
                        // (on a single row, the flip across it fixes all).
                        assert!(incremental > 0, "{w}x{h} m{m} o{o}");
                    }
                    assert_eq!(used, orbit_of.len());
                    // Enumeration without the round trip, over ranges that
                    // start and end inside class blocks.
                    let filtered: Vec<(u64, u64, u64)> = (0..size)
                        .filter_map(|i| {
                            let (a, b) = pn.unrank(m, o, i);
                            (pn.rank(a, b) == i).then_some((i, a, b))
                        })
                        .collect();
                    for step in [1, 3, 7, size.max(1)] {
                        let mut listed = Vec::new();
                        let mut lo = 0;
                        while lo < size {
                            let hi = (lo + step).min(size);
                            pn.for_each_used(m, o, lo..hi, |i, a, b| listed.push((i, a, b)));
                            lo = hi;
                        }
                        assert_eq!(listed, filtered, "{w}x{h} m{m} o{o} step {step}");
                    }
                }
            }
        }
    }
}
