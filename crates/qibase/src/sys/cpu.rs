//! The processor's optional instructions, detected at run time.
//!
//! The default build targets x86-64-v2 (`.cargo/config.toml`): every
//! x86-64 processor since about 2009, so that a binary (or a Python wheel)
//! built on one machine runs on any other. It compiles POPCNT in (the
//! original x86-64's software popcount made solving 12 % slower), and
//! [`check_cpu`] lets a program refuse an older processor with a clear
//! message. The bit tricks
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

/// The processor lacks instructions this build was compiled to use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedCpu {
    /// The missing instruction-set extensions, by their Rust names.
    pub missing: Vec<&'static str>,
}

impl std::fmt::Display for UnsupportedCpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "this processor lacks {}, which this build of qibase uses; build it for any \
             x86-64 processor with RUSTFLAGS=\"-C target-cpu=x86-64\"",
            self.missing.join(", ")
        )
    }
}

impl std::error::Error for UnsupportedCpu {}

/// Check that the processor has every instruction-set extension this build
/// was compiled to use (the default build: x86-64-v2), so that a program
/// can refuse to start with a clear message instead of failing on an
/// illegal instruction later. Programs call it first thing.
///
/// # Errors
/// [`UnsupportedCpu`] naming the missing extensions.
pub fn check_cpu() -> Result<(), UnsupportedCpu> {
    let missing = missing_features();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(UnsupportedCpu { missing })
    }
}

/// The extensions compiled in that the processor lacks.
fn missing_features() -> Vec<&'static str> {
    let mut missing = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! check {
            ($($f:tt),*) => {$(
                if cfg!(target_feature = $f) && !std::arch::is_x86_feature_detected!($f) {
                    missing.push($f);
                }
            )*};
        }
        check!(
            "popcnt",
            "sse3",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "cmpxchg16b",
            "bmi1",
            "bmi2",
            "lzcnt",
            "avx",
            "avx2",
            "fma"
        );
    }
    missing
}
