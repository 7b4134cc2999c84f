//! Perfect ranking of point sets: the combinatorial number system (colex).
//!
//! A k-subset {b_0 < b_1 < … < b_{k-1}} of n points has rank
//! Σ C(b_i, i+1), a bijection onto 0..C(n, k). Games rank one piece class
//! over all points and the next class over the points left free, by
//! compressing its bitboard around the occupied points ([`pext`]).

/// Binomial coefficients C(n, k) for n, k ≤ 32, computed at compile time.
const BINOM: [[u64; 33]; 33] = {
    let mut t = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
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

/// C(n, k), zero when k > n. Both must be ≤ 32.
#[inline]
pub fn binom(n: u32, k: u32) -> u64 {
    if k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Colex rank of the set bits of `set` among all subsets of the same size.
#[inline]
pub fn rank_subset(mut set: u32) -> u64 {
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

/// The k-subset of 0..n with colex rank `idx` (`idx < C(n, k)`).
#[inline]
pub fn unrank_subset(n: u32, k: u32, mut idx: u64) -> u32 {
    let mut set = 0u32;
    let mut top = n;
    let mut i = k;
    while i > 0 {
        // Largest b < top with C(b, i) <= idx.
        let mut b = top - 1;
        while BINOM[b as usize][i as usize] > idx {
            b -= 1;
        }
        idx -= BINOM[b as usize][i as usize];
        set |= 1 << b;
        top = b;
        i -= 1;
    }
    set
}

/// Parallel bit extract: gather the bits of `x` selected by `mask` into the
/// low bits, in order.
#[inline]
pub fn pext(x: u32, mut mask: u32) -> u32 {
    let mut out = 0;
    let mut bit = 1;
    while mask != 0 {
        let m = mask & mask.wrapping_neg();
        if x & m != 0 {
            out |= bit;
        }
        bit <<= 1;
        mask &= mask - 1;
    }
    out
}

/// Parallel bit deposit: scatter the low bits of `x` to the positions of
/// the set bits of `mask`, in order. Inverse of [`pext`] on `mask`.
#[inline]
pub fn pdep(mut x: u32, mut mask: u32) -> u32 {
    let mut out = 0;
    while mask != 0 && x != 0 {
        let m = mask & mask.wrapping_neg();
        if x & 1 != 0 {
            out |= m;
        }
        x >>= 1;
        mask &= mask - 1;
    }
    out
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
    }

    #[test]
    fn subset_rank_is_a_bijection() {
        for n in 0..=10u32 {
            for k in 0..=n {
                let count = binom(n, k);
                let mut seen = vec![false; count as usize];
                for set in 0u32..(1 << n) {
                    if set.count_ones() != k {
                        continue;
                    }
                    let r = rank_subset(set);
                    assert!(r < count);
                    assert!(!seen[r as usize]);
                    seen[r as usize] = true;
                    assert_eq!(unrank_subset(n, k, r), set);
                }
                assert!(seen.iter().all(|&s| s));
            }
        }
    }

    #[test]
    fn pext_pdep_inverse() {
        let mask = 0b1011_0110_1001u32;
        for x in 0..(1u32 << mask.count_ones()) {
            assert_eq!(pext(pdep(x, mask), mask), x);
        }
        assert_eq!(pext(0b1010, 0b1110), 0b101);
        assert_eq!(pdep(0b101, 0b1110), 0b1010);
    }
}
