//! qibase's measurement tools as a library, so that the examples share the
//! benchmarks' samplers: `bench` (move generation and a solve from
//! scratch), `ceiling` (the machine's bound on a propagation level),
//! `access` (the machine's random-access rate), `bench_probe`
//! (random lookups), `bench_c` (lookups through the C library),
//! `bench_http` (load on `serve`), `soak` (the server under mixed load
//! while its tables change).

pub mod access;
pub mod bench;
pub mod bench_c;
pub mod bench_http;
pub mod bench_probe;
pub mod ceiling;
pub mod levels;
pub mod soak;
