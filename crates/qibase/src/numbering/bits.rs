//! Parallel bit extract and deposit on 64-bit boards.
//!
//! With BMI2 these are the single `pext`/`pdep` instructions, chosen at run
//! time (see `sys::cpu`); elsewhere a portable loop over the mask bits.
//! Both versions are always compiled so the tests compare them.

// The bit instructions are `unsafe` to call (see the workspace lints).
#![allow(unsafe_code)]

use crate::sys::cpu::has_bmi2;

/// Parallel bit extract: gather the bits of `x` selected by `mask` into the
/// low bits, in order.
#[inline(always)]
pub fn pext(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_bmi2() {
        // SAFETY: the processor has BMI2, as just checked.
        return unsafe { bmi2::pext(x, mask) };
    }
    pext_portable(x, mask)
}

/// Parallel bit deposit: scatter the low bits of `x` to the positions of
/// the set bits of `mask`, in order. Inverse of [`pext`] on `mask`.
#[inline(always)]
pub fn pdep(x: u64, mask: u64) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if has_bmi2() {
        // SAFETY: as for `pext`.
        return unsafe { bmi2::pdep(x, mask) };
    }
    pdep_portable(x, mask)
}

/// Position of the `n`-th (from 0) set bit of `w`, which has more than `n`:
/// one `pdep` with BMI2 (detected at run time), a loop without.
#[inline(always)]
pub(crate) fn nth_one(w: u64, n: u32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if has_bmi2() {
        // SAFETY: the processor has BMI2, as just checked.
        return unsafe { bmi2::nth_one(w, n) };
    }
    nth_one_portable(w, n)
}

/// [`nth_one`] without `pdep`: clear the lowest set bit `n` times.
fn nth_one_portable(mut w: u64, n: u32) -> u32 {
    for _ in 0..n {
        w &= w - 1;
    }
    w.trailing_zeros()
}

/// The BMI2 instructions, whatever the build's target. Written as inline
/// assembly rather than `#[target_feature(enable = "bmi2")]` functions: a
/// target-feature function cannot be inlined into the portable build's
/// callers, and the call on every rank and unrank cost the two-cannons
/// solve about 4 % against a native build (docs/performance.md); the
/// assembly inlines, behind one predictable branch on the detected flag.
#[cfg(target_arch = "x86_64")]
pub(crate) mod bmi2 {
    use core::arch::asm;

    /// `pext`.
    ///
    /// # Safety
    ///
    /// Only on a processor with BMI2.
    #[inline(always)]
    pub unsafe fn pext(x: u64, mask: u64) -> u64 {
        let out: u64;
        // SAFETY: the caller guarantees BMI2; the instruction touches
        // only the registers named.
        unsafe {
            asm!("pext {0}, {1}, {2}", lateout(reg) out, in(reg) x, in(reg) mask,
                options(pure, nomem, nostack, preserves_flags));
        }
        out
    }

    /// `pdep`.
    ///
    /// # Safety
    ///
    /// Only on a processor with BMI2.
    #[inline(always)]
    pub unsafe fn pdep(x: u64, mask: u64) -> u64 {
        let out: u64;
        // SAFETY: as for `pext`.
        unsafe {
            asm!("pdep {0}, {1}, {2}", lateout(reg) out, in(reg) x, in(reg) mask,
                options(pure, nomem, nostack, preserves_flags));
        }
        out
    }

    /// Position of the `n`-th (from 0) set bit of `w`, which has more than
    /// `n`.
    ///
    /// # Safety
    ///
    /// Only on a processor with BMI2.
    #[inline(always)]
    pub unsafe fn nth_one(w: u64, n: u32) -> u32 {
        let bit: u64;
        // SAFETY: as for `pext`.
        unsafe {
            asm!("pdep {0}, {1}, {2}", lateout(reg) bit, in(reg) 1u64 << n, in(reg) w,
                options(pure, nomem, nostack, preserves_flags));
        }
        bit.trailing_zeros()
    }
}

/// [`pext`] without BMI2: one step per mask bit.
#[inline]
pub fn pext_portable(x: u64, mut mask: u64) -> u64 {
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
pub fn pdep_portable(mut x: u64, mut mask: u64) -> u64 {
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
    fn nth_one_matches_the_portable_loop() {
        let mut r = crate::rng::Rng::new(3);
        let mut next = move || r.next_u64();
        for _ in 0..10_000 {
            let w = next() | 1 << 63;
            let n = (next() % w.count_ones() as u64) as u32;
            assert_eq!(nth_one(w, n), nth_one_portable(w, n));
        }
    }

    #[test]
    fn portable_and_hardware_agree_and_invert() {
        let mut rng = Rng::new(7);
        for _ in 0..100_000 {
            let (x, mask) = (rng.next_u64(), rng.next_u64());
            let e = pext_portable(x, mask);
            assert_eq!(pext(x, mask), e);
            assert_eq!(pdep(x, mask), pdep_portable(x, mask));
            assert_eq!(pdep(e, mask), x & mask);
            assert_eq!(
                pext(pdep(x, mask), mask),
                x & (1u128 << mask.count_ones()).wrapping_sub(1) as u64
            );
        }
        assert_eq!(pext(0b1010, 0b1110), 0b101);
        assert_eq!(pdep(0b101, 0b1110), 0b1010);
        assert_eq!(pext(u64::MAX, u64::MAX), u64::MAX);
        assert_eq!(
            pdep(u64::MAX >> 40, 0xffff_ffff_0000_ff00),
            0x0000_ffff_0000_ff00
        );
    }
}
