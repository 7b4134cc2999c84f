//! Perfect ranking of point sets: the combinatorial number system (colex).
//!
//! A k-subset {b_0 < b_1 < … < b_{k-1}} of n points has rank
//! Σ C(b_i, i+1), a bijection onto 0..C(n, k) that orders sets of one size
//! as the integers of their bitboards. [`rank_subset`] and
//! [`unrank_subset`] are the plain loops; [`ColexTable`] ranks by 8-bit
//! chunks of precomputed partial sums, which is what the hot paths use.

/// Binomial coefficients C(n, k) for n, k ≤ 64 (the largest, C(64, 32),
/// fits 64 bits), computed at compile time.
static BINOM: [[u64; 65]; 65] = {
    let mut t = [[0u64; 65]; 65];
    let mut n = 0;
    while n <= 64 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// C(n, k), zero when k > n. Both must be ≤ 64.
#[inline(always)]
pub fn binom(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Colex rank of the set bits of `set` among all subsets of the same size.
#[inline]
pub fn rank_subset(mut set: u64) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        let b = set.trailing_zeros();
        r += BINOM[b as usize][i];
        i += 1;
        set &= set - 1;
    }
    r
}

/// `BY_SIZE[i][b]` = C(b, i) for b < 32, as `u32` (the largest, C(31, 15),
/// fits): one row per element count, so [`unrank_subset`] scans a row of
/// contiguous entries.
const BY_SIZE: [[u32; 32]; 33] = {
    let mut t = [[0u32; 32]; 33];
    let mut i = 0;
    while i <= 32 {
        let mut b = 0;
        while b < 32 {
            t[i][b] = BINOM[b][i] as u32;
            b += 1;
        }
        i += 1;
    }
    t
};

/// The lowest points, whose subsets `TAIL` lists.
const TAIL_POINTS: usize = 12;

/// Every subset of the lowest `TAIL_POINTS` points by size and colex
/// rank: the j-subset of rank r is `TAIL.0[TAIL.1[j] + r]` (4096 entries,
/// 8 KiB). Colex order is integer order, so listing the patterns in
/// increasing order and appending each to its size's run ranks them.
static TAIL: ([u16; 1 << TAIL_POINTS], [u16; TAIL_POINTS + 1]) = {
    let mut start = [0u16; TAIL_POINTS + 1];
    let mut j = 1;
    while j <= TAIL_POINTS {
        start[j] = start[j - 1] + BINOM[TAIL_POINTS][j - 1] as u16;
        j += 1;
    }
    let mut seen = [0u16; TAIL_POINTS + 1];
    let mut sets = [0u16; 1 << TAIL_POINTS];
    let mut pattern = 0usize;
    while pattern < 1 << TAIL_POINTS {
        let j = (pattern as u32).count_ones() as usize;
        sets[(start[j] + seen[j]) as usize] = pattern as u16;
        seen[j] += 1;
        pattern += 1;
    }
    (sets, start)
};

/// The subset of the lowest `TAIL_POINTS` points with `i` elements and
/// colex rank `idx` (`idx < C(TAIL_POINTS, i)`).
#[inline(always)]
fn tail(i: usize, idx: u32) -> u32 {
    TAIL.0[(TAIL.1[i] as usize + idx as usize) & ((1 << TAIL_POINTS) - 1)] as u32
}

/// From this many elements on, [`unrank_subset`] scans instead of
/// comparing a whole row.
const DENSE: u32 = 10;

/// The k-subset of 0..n with colex rank `idx` (`idx < C(n, k)`, n ≤ 64).
///
/// Element i (from the top) is the largest b with C(b, i) ≤ idx. Row i of
/// `BY_SIZE` does not decrease, so the b with C(b, i) ≤ idx are exactly
/// 0..=that element, and it is their count minus one: a mask of 32 (on small
/// boards 16) comparisons, which the compiler turns into a few vector
/// instructions, and a popcount,
/// instead of a scan whose stopping branch the CPU mispredicts once per
/// element. (Everything at or above the previous element exceeds idx, so
/// the count never reaches it.) Sets of `DENSE` or more elements scan.
/// Once the i elements left all lie among the lowest `TAIL_POINTS`
/// points (idx < C(TAIL_POINTS, i)), one read of `TAIL` gives them all.
/// Boards of more than 32 points take a plain scan over 64-bit binomials.
#[inline]
pub fn unrank_subset(n: u32, k: u32, idx: u64) -> u64 {
    debug_assert!(n <= 64 && idx < binom(n, k).max(1));
    if n <= 32 {
        unrank_narrow(n, k, idx) as u64
    } else {
        unrank_wide(n, k, idx)
    }
}

/// [`unrank_subset`] on more than 32 points: element i (from the top) is
/// the largest b with C(b, i) ≤ idx, found by scanning down.
fn unrank_wide(n: u32, k: u32, mut idx: u64) -> u64 {
    let mut set = 0u64;
    let mut b = n as usize;
    for i in (1..=k as usize).rev() {
        b -= 1;
        while BINOM[b][i] > idx {
            b -= 1;
        }
        idx -= BINOM[b][i];
        set |= 1 << b;
    }
    set
}

/// [`unrank_subset`] on at most 32 points, where every rank fits 32 bits.
#[inline(always)]
fn unrank_narrow(n: u32, k: u32, idx: u64) -> u32 {
    let mut idx = idx as u32;
    let mut set = 0u32;
    if k >= DENSE {
        // Many elements: they sit close together, so the scan down from
        // the previous element stops after a step or two, and its branch
        // is predictable (measured with `examples/rank_bench`).
        let mut b = n as usize;
        for i in (1..=k as usize).rev() {
            let row = &BY_SIZE[i];
            if idx < row[TAIL_POINTS] {
                return set | tail(i, idx);
            }
            b -= 1;
            while row[b] > idx {
                b -= 1;
            }
            idx -= row[b];
            set |= 1 << b;
        }
        return set;
    }
    for i in (1..=k as usize).rev() {
        let row = &BY_SIZE[i];
        if idx < row[TAIL_POINTS] {
            return set | tail(i, idx);
        }
        // On at most 16 points half the row is enough (elements are < n).
        let lanes = if n <= 16 { &row[..16] } else { &row[..] };
        let below: u32 = lanes.iter().map(|&c| (c <= idx) as u32).sum();
        let b = below - 1;
        idx -= row[b as usize];
        set |= 1 << b;
    }
    set
}

/// The next larger set with as many elements as `set` (≠ 0), in colex
/// order, i.e. the next integer with as many bits (Gosper's hack). Wraps
/// meaninglessly after the last set of a width; callers stop before.
#[inline(always)]
pub fn next_subset(set: u64) -> u64 {
    debug_assert!(set != 0);
    let low = set & set.wrapping_neg();
    let ripple = set.wrapping_add(low);
    (((ripple ^ set) >> 2) / low) | ripple
}

/// Colex ranks of subsets of `0..n` with at most `k_max` elements, by 8-bit
/// chunks: chunk c of a set, with j elements below it, contributes
/// Σ C(8c + b, j + 1 + (rank of b within the chunk)) over its bits b, a
/// number that depends only on (c, j, chunk bits). A rank is then one table
/// read per chunk instead of one binomial per element.
///
/// On at most 32 points the table has four chunks of 32 rows (j ≤ 24
/// below the last chunk) of `u32` entries (every colex rank on 32 points
/// is below C(32, 16)), unused rows zero, so a rank is four reads and three
/// popcounts with no loop and no bounds check; only the rows a set can
/// select are ever read, so the padding costs address space, not cache.
/// Larger boards take eight chunks of 64 rows of `u64` entries.
#[derive(Clone, Debug)]
pub struct ColexTable {
    chunks: ColexChunks,
}

/// The chunk tables, `[c][j][bits]`.
#[derive(Clone, Debug)]
enum ColexChunks {
    Narrow(Box<[[[u32; 256]; 32]; 4]>),
    Wide(Box<[[[u64; 256]; 64]]>),
}

/// Fills `table[c][j][bits]` with chunk c's contribution (as `entry`
/// converts it) for the chunks on a board of `n` points and the rows a set
/// of at most `k_max` elements can select. Sets beyond n points or k_max
/// elements never occur: their entries stay zero and are never read.
fn fill_chunks<T, const J: usize>(
    table: &mut [[[T; 256]; J]],
    n: u32,
    k_max: u32,
    entry: impl Fn(u64) -> T,
) {
    let on_board = n.max(1).div_ceil(8) as usize;
    for (c, per_c) in table.iter_mut().enumerate().take(on_board) {
        let rows = (8 * c).min(k_max as usize) + 1;
        for (j, row) in per_c.iter_mut().enumerate().take(rows) {
            for (bits, e) in row.iter_mut().enumerate() {
                // Bit b of the chunk is point 8c + b, the (j + 1 + its
                // rank in the chunk)-th element of the set.
                let mut r = 0u64;
                let mut i = j as u32 + 1;
                let mut rest = bits as u32;
                while rest != 0 {
                    r += binom(8 * c as u32 + rest.trailing_zeros(), i);
                    i += 1;
                    rest &= rest - 1;
                }
                *e = entry(r);
            }
        }
    }
}

impl ColexTable {
    /// The table for subsets of `0..n` (n ≤ 64) with at most `k_max` elements.
    pub fn new(n: u32, k_max: u32) -> Self {
        assert!(n <= 64, "at most 64 points");
        let chunks = if n <= 32 {
            let mut table = Box::new([[[0u32; 256]; 32]; 4]);
            // Clamped where a set of more than 32 elements would overflow:
            // such sets never occur.
            fill_chunks(&mut table[..], n, k_max, |r| r.min(u32::MAX as u64) as u32);
            ColexChunks::Narrow(table)
        } else {
            // Built on the heap: 1 MiB would not fit a worker's stack.
            let mut table = vec![[[0u64; 256]; 64]; 8].into_boxed_slice();
            fill_chunks(&mut table, n, k_max, |r| r);
            ColexChunks::Wide(table)
        };
        ColexTable { chunks }
    }

    /// Colex rank of `set` (a subset of `0..n` with at most `k_max` elements).
    #[inline(always)]
    pub fn rank(&self, set: u64) -> u64 {
        match &self.chunks {
            ColexChunks::Narrow(t) => {
                let [b0, b1, b2, b3, ..] = set.to_le_bytes();
                let j1 = b0.count_ones() as usize;
                let j2 = j1 + b1.count_ones() as usize;
                let j3 = j2 + b2.count_ones() as usize;
                let r = t[0][0][b0 as usize]
                    .wrapping_add(t[1][j1 & 31][b1 as usize])
                    .wrapping_add(t[2][j2 & 31][b2 as usize])
                    .wrapping_add(t[3][j3 & 31][b3 as usize]);
                r as u64
            }
            ColexChunks::Wide(t) => {
                let mut r = 0u64;
                let mut j = 0usize;
                for (c, byte) in set.to_le_bytes().into_iter().enumerate() {
                    r = r.wrapping_add(t[c & 7][j & 63][byte as usize]);
                    j += byte.count_ones() as usize;
                }
                r
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(binom(5, 2), 10);
        assert_eq!(binom(23, 12), 1_352_078);
        assert_eq!(binom(25, 3), 2300);
        assert_eq!(binom(3, 5), 0);
        assert_eq!(binom(0, 0), 1);
        assert_eq!(binom(32, 16), 601_080_390);
        assert_eq!(binom(64, 32), 1_832_624_140_942_590_534);
        assert_eq!(binom(36, 6), 1_947_792);
    }

    #[test]
    fn tail_lists_every_small_subset_by_rank() {
        for i in 0..=TAIL_POINTS {
            for r in 0..binom(TAIL_POINTS as u32, i as u32) {
                let set = tail(i, r as u32);
                assert_eq!(set.count_ones() as usize, i);
                assert_eq!(rank_subset(set as u64), r);
            }
        }
    }

    #[test]
    fn subset_rank_is_a_bijection() {
        for n in 0..=10u32 {
            let table = ColexTable::new(n, n);
            for k in 0..=n {
                let count = binom(n, k);
                let mut seen = vec![false; count as usize];
                for set in 0u64..(1 << n) {
                    if set.count_ones() != k {
                        continue;
                    }
                    let r = rank_subset(set);
                    assert!(r < count);
                    assert!(!seen[r as usize]);
                    seen[r as usize] = true;
                    assert_eq!(unrank_subset(n, k, r), set);
                    assert_eq!(table.rank(set), r);
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    #[test]
    fn table_matches_the_loop_on_large_sets() {
        let mut s = 0x1234_5678u64;
        let cases = [
            (32, 32),
            (25, 15),
            (22, 12),
            (20, 6),
            (9, 3),
            (17, 16),
            (33, 33),
            (36, 8),
            (49, 20),
            (64, 64),
            (64, 12),
        ];
        for (n, k_max) in cases {
            let table = ColexTable::new(n, k_max);
            for _ in 0..20_000 {
                s = s
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let mut set = s ^ s << 23;
                if n < 64 {
                    set &= (1 << n) - 1;
                }
                while set.count_ones() > k_max {
                    set &= set - 1;
                }
                assert_eq!(table.rank(set), rank_subset(set), "n {n} set {set:#x}");
                let k = set.count_ones();
                assert_eq!(unrank_subset(n, k, rank_subset(set)), set);
                if set != 0 && rank_subset(set) + 1 < binom(n, k) {
                    assert_eq!(
                        rank_subset(next_subset(set)),
                        rank_subset(set) + 1,
                        "n {n} set {set:#x}"
                    );
                }
            }
        }
    }
}
