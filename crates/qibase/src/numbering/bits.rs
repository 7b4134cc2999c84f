//! Parallel bit extract and deposit on 32-bit boards.
//!
//! With BMI2 (the build uses `target-cpu=native`) these are the single
//! `pext`/`pdep` instructions; elsewhere a portable loop over the mask bits.
//! Both versions are always compiled so the tests compare them.

/// Parallel bit extract: gather the bits of `x` selected by `mask` into the
/// low bits, in order.
#[inline(always)]
pub fn pext(x: u32, mask: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: the instruction exists, as the target feature says.
        unsafe { core::arch::x86_64::_pext_u32(x, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        pext_portable(x, mask)
    }
}

/// Parallel bit deposit: scatter the low bits of `x` to the positions of
/// the set bits of `mask`, in order. Inverse of [`pext`] on `mask`.
#[inline(always)]
pub fn pdep(x: u32, mask: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // SAFETY: as for `pext`.
        unsafe { core::arch::x86_64::_pdep_u32(x, mask) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        pdep_portable(x, mask)
    }
}

/// [`pext`] without BMI2: one step per mask bit.
#[inline]
pub fn pext_portable(x: u32, mut mask: u32) -> u32 {
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

/// [`pdep`] without BMI2: one step per mask bit.
#[inline]
pub fn pdep_portable(mut x: u32, mut mask: u32) -> u32 {
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
    use crate::rng::Rng;

    #[test]
    fn portable_and_hardware_agree_and_invert() {
        let mut rng = Rng::new(7);
        for _ in 0..100_000 {
            let r = rng.next_u64();
            let (x, mask) = (r as u32, (r >> 32) as u32);
            let e = pext_portable(x, mask);
            assert_eq!(pext(x, mask), e);
            assert_eq!(pdep(x, mask), pdep_portable(x, mask));
            assert_eq!(pdep(e, mask), x & mask);
            assert_eq!(
                pext(pdep(x, mask), mask),
                x & (1u64 << mask.count_ones()).wrapping_sub(1) as u32
            );
        }
        assert_eq!(pext(0b1010, 0b1110), 0b101);
        assert_eq!(pdep(0b101, 0b1110), 0b1010);
        assert_eq!(pext(u32::MAX, u32::MAX), u32::MAX);
    }
}
