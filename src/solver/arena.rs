//! Zero-filled working arrays for the solver, as anonymous memory mappings
//! advised to use transparent huge pages.
//!
//! The solver's hot loop is random read-modify-writes on arrays of hundreds
//! of megabytes; with 4 KiB pages nearly every access also misses the TLB.
//! Where the kernel enables huge pages only on request (`madvise`, the usual
//! default), asking for them takes most of those misses away.

use std::sync::atomic::{AtomicU16, AtomicU8};

use memmap2::MmapMut;

/// A zeroed, huge-page-advised block of memory viewed as atomics.
pub struct Arena {
    map: MmapMut,
    len: usize,
}

impl Arena {
    /// Room for `len` elements of `elem_bytes` bytes each, all zero.
    pub fn zeroed(len: usize, elem_bytes: usize) -> std::io::Result<Arena> {
        // A mapping cannot be empty; one page costs nothing.
        let map = MmapMut::map_anon((len * elem_bytes).max(1))?;
        #[cfg(target_os = "linux")]
        {
            // Only a hint: without THP support the arrays still work.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(Arena { map, len })
    }

    /// The block as `len` 16-bit atomics (zero: undecided).
    pub fn u16s(&self) -> &[AtomicU16] {
        assert!(self.map.len() >= self.len * 2);
        // SAFETY: the mapping is page aligned, at least len * 2 bytes long
        // and zero-initialised; AtomicU16 has the size and bit validity of
        // u16, and all access through the slice is atomic.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr() as *const AtomicU16, self.len) }
    }

    /// The block as `len` 8-bit atomics.
    pub fn u8s(&self) -> &[AtomicU8] {
        assert!(self.map.len() >= self.len);
        // SAFETY: as above for u8.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr() as *const AtomicU8, self.len) }
    }
}
