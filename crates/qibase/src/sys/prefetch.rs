//! Software prefetch: ask for a cache line without waiting for it, so
//! that several memory accesses of one lookup or one batch overlap. A hint
//! only: it never faults, whatever the address, and does nothing off
//! x86_64.

/// Start loading the cache line that holds `x`.
#[inline(always)]
pub fn prefetch<T: ?Sized>(x: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, even on bad addresses.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x as *const u8 as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Start loading the cache lines of `b` (at most the first 16, and its
/// last byte's line).
#[inline]
pub fn prefetch_bytes(b: &[u8]) {
    let lines = b.len().div_ceil(64).min(16);
    for k in 0..lines {
        prefetch(&b[k * 64]);
    }
    // The last byte's line, when the slice does not start on a line.
    if let Some(last) = b.last() {
        prefetch(last);
    }
}
