//! The slot numbers the solver keeps in its queues and messages.
//!
//! A tier of up to 2^32 slots is solved with 32-bit slot numbers, a larger
//! one with 64-bit numbers. The queues of decided positions and the
//! messages of a level hold one number per position, so the narrow type
//! halves their memory and the bandwidth spent on them on every tier of
//! today's games; the wide one lifts the limit on a tier's size. The two
//! instantiations share every line of the solver.

/// A slot number of the tier being solved: `u32` or `u64`.
pub(super) trait Slot:
    Copy + Eq + Default + Send + Sync + std::fmt::Debug + 'static
{
    /// The largest tier (in slots) this type can number.
    const MAX_SLOTS: u64;
    /// Bytes of the number as the spill files store it.
    const BYTES: usize;

    /// Slot `i`, which must be below [`MAX_SLOTS`](Self::MAX_SLOTS).
    fn new(i: u64) -> Self;

    /// The slot's number.
    fn get(self) -> u64;

    /// The slot's number as an index into the tier's arrays.
    #[inline]
    fn index(self) -> usize {
        self.get() as usize
    }
}

impl Slot for u32 {
    const MAX_SLOTS: u64 = 1 << 32;
    const BYTES: usize = 4;

    #[inline]
    fn new(i: u64) -> Self {
        debug_assert!(i < Self::MAX_SLOTS);
        i as u32
    }

    #[inline]
    fn get(self) -> u64 {
        self as u64
    }
}

impl Slot for u64 {
    const MAX_SLOTS: u64 = u64::MAX;
    const BYTES: usize = 8;

    #[inline]
    fn new(i: u64) -> Self {
        i
    }

    #[inline]
    fn get(self) -> u64 {
        self
    }
}

/// A tier's solve, written once for both widths of slot numbers.
pub(super) trait WithSlots {
    type Output;
    /// Solve with slot numbers of type `S`.
    fn run<S: Slot>(self) -> Self::Output;
}

/// Run `solve` with 32-bit slot numbers if a tier of `slots` slots fits
/// them and `wide` does not ask for 64 bits, with 64-bit ones if not.
pub(super) fn with_slots<W: WithSlots>(slots: u64, wide: bool, solve: W) -> W::Output {
    if slots <= <u32 as Slot>::MAX_SLOTS && !wide {
        solve.run::<u32>()
    } else {
        solve.run::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_numbers_round_trip() {
        for i in [0u64, 1, 65_535, (1 << 32) - 1] {
            assert_eq!(<u32 as Slot>::new(i).get(), i);
            assert_eq!(<u64 as Slot>::new(i).get(), i);
        }
        for i in [1u64 << 32, 7_321_056_419, (1 << 40) + 3] {
            assert_eq!(<u64 as Slot>::new(i).get(), i);
            assert_eq!(<u64 as Slot>::new(i).index(), i as usize);
        }
    }
}
