//! Read-only memory maps of files that survive their file shrinking.
//!
//! A mapped file that is truncated under the process turns the next read
//! of a vanished page into a SIGBUS, which by default kills the process:
//! a server with every client, an engine in the middle of a game. Reading
//! with a system call per block instead is safe but costs 2–3× on cold
//! lookups (a `pread` of a few hundred cached bytes is about a microsecond
//! of CPU, a fault-free read of a mapped page is nothing).
//!
//! So tier files are mapped, and a SIGBUS handler, installed once, guards
//! the maps made here. A fault inside one of them is answered by mapping a
//! page of zeros over the vanished page and marking that map damaged; the
//! read then completes with zeros, the block's checksum fails, and the
//! reader, seeing the mark, reports the file as truncated. A fault
//! anywhere else goes to the handler that was installed before (the
//! standard library's, or the default action), as if this one did not
//! exist.
//!
//! The handler only reads a fixed table of atomics and calls `mmap`, a
//! plain system call on Linux; it allocates nothing and takes no lock.

use std::fs::File;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

use memmap2::Mmap;

/// How many maps can be guarded at once. Each open tier file holds one;
/// past this many, [`GuardedMap::new`] declines and the caller reads with
/// system calls instead.
const SLOTS: usize = 4096;

/// One guarded range. `start == 0` means free. `end` is written before
/// `start`, so a handler that sees a start sees its end.
struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    claimed: AtomicBool,
    damaged: AtomicBool,
}

#[allow(clippy::declare_interior_mutable_const)] // only to build the array
const FREE: Slot = Slot {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    claimed: AtomicBool::new(false),
    damaged: AtomicBool::new(false),
};

static TABLE: [Slot; SLOTS] = [FREE; SLOTS];

/// The SIGBUS action that was in place before ours, and the page size,
/// set once when the handler is installed.
struct Installed {
    previous: libc::sigaction,
    page: usize,
}

static INSTALLED: OnceLock<Option<Installed>> = OnceLock::new();

/// Install the handler once; `None` if the system refused it.
fn installed() -> Option<&'static Installed> {
    INSTALLED
        .get_or_init(|| {
            // SAFETY: sysconf and sigaction with valid arguments; the
            // handler is async-signal-safe (atomics and mmap only).
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page <= 0 {
                    return None;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    on_sigbus;
                action.sa_sigaction = handler as libc::sighandler_t;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGBUS, &action, &mut previous) != 0 {
                    return None;
                }
                Some(Installed {
                    previous,
                    page: page as usize,
                })
            }
        })
        .as_ref()
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers.
    let addr = unsafe { (*info).si_addr() } as usize;
    let Some(inst) = INSTALLED.get().and_then(Option::as_ref) else {
        return;
    };
    for slot in &TABLE {
        let start = slot.start.load(Ordering::Acquire);
        if start == 0 || addr < start || addr >= slot.end.load(Ordering::Acquire) {
            continue;
        }
        let page = addr & !(inst.page - 1);
        // SAFETY: the page lies inside a live map of ours (a map is
        // unregistered before it is unmapped); replacing it with zeros
        // changes only what that map reads.
        let zero = unsafe {
            libc::mmap(
                page as *mut libc::c_void,
                inst.page,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        if zero != libc::MAP_FAILED {
            slot.damaged.store(true, Ordering::Release);
            return;
        }
        break;
    }
    // Not ours (or the page could not be replaced): what would have
    // happened without this handler.
    let prev = &inst.previous;
    let handler = prev.sa_sigaction;
    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        // SAFETY: restoring the default action; returning re-runs the
        // faulting access, which then takes it.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
        }
    } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous handler was installed for SIGBUS with
        // this signature.
        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(handler) };
        f(sig, info, ctx);
    } else {
        // SAFETY: as above, the one-argument form.
        let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
        f(sig);
    }
}

/// A read-only map of a whole file, guarded against the file shrinking.
pub struct GuardedMap {
    map: Mmap,
    slot: usize,
}

impl GuardedMap {
    /// Map `file` (whose length is `len`, at least one byte) read-only.
    /// `Ok(None)` if it cannot be guarded (the handler could not be
    /// installed or every slot is taken): the caller then reads the file
    /// another way rather than hold an unguarded map.
    ///
    /// # Errors
    /// The system's error if the map fails.
    pub fn new(file: &File, len: u64) -> std::io::Result<Option<GuardedMap>> {
        if installed().is_none() {
            return Ok(None);
        }
        let Some(slot) = TABLE.iter().position(|s| {
            s.claimed
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        }) else {
            return Ok(None);
        };
        let len = match usize::try_from(len) {
            Ok(l) => l,
            Err(_) => {
                TABLE[slot].claimed.store(false, Ordering::Release);
                return Ok(None);
            }
        };
        // SAFETY: the map is read-only and private to this process; a
        // change of the file's bytes is caught by the block checksums, and
        // its shrinking by the handler above.
        let map = match unsafe { memmap2::MmapOptions::new().len(len).map(file) } {
            Ok(m) => m,
            Err(e) => {
                TABLE[slot].claimed.store(false, Ordering::Release);
                return Err(e);
            }
        };
        // Lookups read a few hundred bytes at random places: read-ahead
        // of whole clusters would only evict other pages.
        let _ = map.advise(memmap2::Advice::Random);
        let s = &TABLE[slot];
        let start = map.as_ptr() as usize;
        s.damaged.store(false, Ordering::Relaxed);
        s.end.store(start + len, Ordering::Release);
        s.start.store(start, Ordering::Release);
        Ok(Some(GuardedMap { map, slot }))
    }

    /// The file's bytes (zeros where pages vanished under the map).
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// True once a read touched a page past the file's current end.
    #[inline]
    pub fn damaged(&self) -> bool {
        TABLE[self.slot].damaged.load(Ordering::Acquire)
    }
}

impl Drop for GuardedMap {
    fn drop(&mut self) {
        // Unregister before the map goes (memmap2 unmaps after this), so
        // the handler never replaces a page of someone else's later map.
        let s = &TABLE[self.slot];
        s.start.store(0, Ordering::Release);
        s.end.store(0, Ordering::Release);
        s.claimed.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file cut short under its map reads zeros where its pages
    /// vanished, marks the map damaged, and does not kill the process.
    #[test]
    fn a_shrunk_file_reads_zeros_and_is_marked() {
        let path = std::env::temp_dir().join(format!("qibase-guard-{}", std::process::id()));
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        drop(f);
        let f = File::open(&path).unwrap();
        let map = GuardedMap::new(&f, 1 << 20).unwrap().expect("guarded");
        assert_eq!(map.bytes()[900_000], 7);
        assert!(!map.damaged());
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        assert_eq!(std::hint::black_box(map.bytes())[900_000], 0);
        assert!(map.damaged());
        // Another map of the same file is not marked by the first one's
        // fault, and its own fault marks it.
        let other = GuardedMap::new(&f, 1 << 20).unwrap().expect("guarded");
        assert!(!other.damaged());
        assert_eq!(std::hint::black_box(other.bytes())[500_000], 0);
        assert!(other.damaged());
        drop(map);
        drop(other);
        let _ = std::fs::remove_file(&path);
    }
}
