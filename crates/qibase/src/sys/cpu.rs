//! The processor's optional instructions, detected at run time.
//!
//! The default build targets every x86-64 processor, so that a binary (or
//! a Python wheel) built on one machine runs on any other. The bit tricks
//! of the numbering and the tablebase reader (`pext`/`pdep`) are single
//! instructions with BMI2 and loops without it, so they check for BMI2
//! once per call: `is_x86_feature_detected!` reads a flag that the
//! standard library caches after the first test, which costs a load and a
//! well-predicted branch. A build for the machine it runs on
//! (`RUSTFLAGS="-C target-cpu=native"`) knows BMI2 at compile time and
//! skips even that check.

/// True if the processor has BMI2 (`pext`, `pdep`).
#[inline(always)]
pub fn has_bmi2() -> bool {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        true
    }
    #[cfg(all(target_arch = "x86_64", not(target_feature = "bmi2")))]
    {
        std::arch::is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
