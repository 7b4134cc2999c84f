//! Large zeroed arrays on transparent huge pages.
//!
//! The solver and the whole-tier reads touch arrays of hundreds of
//! megabytes at random. With 4 KiB pages nearly every such touch also
//! misses the TLB and walks the page tables, which costs about as much as
//! the cache miss itself; 2 MiB pages make the TLB cover the whole array.
//! Linux hands out huge pages for anonymous memory only where the program
//! asks (`transparent_hugepage=madvise`, the common default), so the
//! arrays ask before their first touch. Elsewhere this is a plain `Vec`.

/// Arrays smaller than this gain nothing from huge pages.
const WORTH_IT: usize = 4 << 20;
const HUGE_PAGE: usize = 2 << 20;

/// A vector of `n` zeros whose memory is advised to use huge pages.
///
/// The zeros come from fresh pages of the OS (the allocator's `calloc`
/// does not write them), so the advice is in place before any page is
/// faulted in.
pub fn zeroed_u16(n: usize) -> Vec<u16> {
    let v = vec![0u16; n];
    advise_huge(&v);
    v
}

/// A vector of `n` atomic zeros on huge pages, as [`zeroed_u16`]: the
/// memory of the solver's state words, for the benchmark that measures
/// the machine's random-access rate on it.
#[cfg(feature = "internals")]
pub fn zeroed_atomic_u16(n: usize) -> Vec<std::sync::atomic::AtomicU16> {
    let mut v = std::mem::ManuallyDrop::new(zeroed_u16(n));
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: AtomicU16 has the same size, alignment and bit validity as
    // u16, so the allocation (taken over whole, its old owner forgotten)
    // holds `len` valid atomics in room for `cap`, and frees the same way.
    unsafe { Vec::from_raw_parts(ptr.cast(), len, cap) }
}

/// Ask for huge pages on the 2 MiB-aligned part of `v`'s memory. A hint:
/// if the kernel refuses, the memory simply stays on small pages.
fn advise_huge<T>(v: &[T]) {
    let bytes = std::mem::size_of_val(v);
    if bytes < WORTH_IT {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = v.as_ptr() as usize;
        let lo = start.next_multiple_of(HUGE_PAGE);
        let hi = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
        if hi > lo {
            // SAFETY: [lo, hi) lies inside `v`'s allocation, and
            // MADV_HUGEPAGE changes neither its contents nor its mapping.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_vectors_are_zero_and_writable() {
        for n in [0, 1, 1000, (WORTH_IT / 2) + 12345] {
            let mut v = zeroed_u16(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 0));
            if let Some(last) = v.last_mut() {
                *last = 7;
                assert_eq!(v[n - 1], 7);
            }
        }
    }
}
