//! The machine's random-access limit: how many random atomic
//! read-modify-writes per second it manages on an array as large as a
//! tier's state words. The solver's parent updates are exactly such
//! operations, so `qibase bench` quotes the solver's rate as a fraction of
//! this one.

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};
use std::time::{Duration, Instant};

use rayon::prelude::*;

/// Operations between clock reads.
const ROUND: usize = 1 << 14;

/// Random atomic increments per second on `len` 16-bit words, with
/// `threads` threads hammering the same array for about `seconds`.
/// With `prefetch`, each thread prefetches its next addresses a few
/// operations ahead (what the solver's batches do), which shows how much of
/// the latency pipelining can hide.
pub fn random_atomic_rate(len: usize, threads: usize, seconds: f64, prefetch: bool) -> f64 {
    let len = len.max(1 << 16);
    // The same memory as the solver's state words (huge pages where the OS
    // gives them); every page touched first so page faults are not measured.
    let words = qibase::zeroed_atomic_u16(len);
    words.iter().step_by(2048).for_each(|w| w.store(1, Relaxed));
    let words = &words[..];
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(_) => return 0.0,
    };
    let limit = Duration::from_secs_f64(seconds);
    let t0 = Instant::now();
    let ops: u64 = pool.install(|| {
        (0..threads)
            .into_par_iter()
            .map(|k| hammer(words, k as u64, limit, prefetch))
            .sum()
    });
    let elapsed = t0.elapsed().as_secs_f64();
    // Nothing may optimise the increments away.
    std::hint::black_box(words);
    ops as f64 / elapsed.max(1e-9)
}

/// One thread's share: random increments until `limit` has passed.
fn hammer(words: &[AtomicU16], seed: u64, limit: Duration, prefetch: bool) -> u64 {
    const AHEAD: usize = 16;
    let n = words.len() as u64;
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ (seed.wrapping_mul(0xBF58_476D_1CE4_E5B9) | 1);
    let mut next = move || {
        // xorshift64*: cheap and good enough to defeat the caches.
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 16) % n
    };
    let mut ring = [0u64; AHEAD];
    for r in ring.iter_mut() {
        *r = next();
    }
    let t0 = Instant::now();
    let mut done = 0u64;
    while t0.elapsed() < limit {
        for k in 0..ROUND {
            let slot = k % AHEAD;
            let i = ring[slot];
            let fresh = next();
            if prefetch {
                qibase::prefetch_line(&words[fresh as usize]);
            }
            ring[slot] = fresh;
            words[i as usize].fetch_add(1, Relaxed);
        }
        done += ROUND as u64;
    }
    done
}
