//! Views of arrays of 16-bit words: as atomics (the solver's state words,
//! updated by many threads) and as bytes (the scratch files' reads and
//! writes). The layouts are the same, so no copy is made.

use std::sync::atomic::AtomicU16;

/// View words as atomics (identical layout, see `AtomicU16`'s docs).
pub fn as_atomic_u16(v: &mut [u16]) -> &[AtomicU16] {
    // SAFETY: AtomicU16 has the same size and bit validity as u16, and the
    // exclusive borrow guarantees no non-atomic access while the view lives.
    unsafe { &*(v as *mut [u16] as *const [AtomicU16]) }
}
