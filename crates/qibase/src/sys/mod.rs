//! Everything that depends on the operating system or the processor, in one
//! place: huge pages, software prefetch, file maps, the process's peak
//! memory, and run-time detection of the bit-manipulation instructions. The rest of
//! the library is portable Rust.
//!
//! * [`hugemem`] — large zeroed arrays on transparent huge pages;
//! * [`prefetch`] — software prefetch of cache lines;
//! * [`memory`] — peak resident memory and the machine's memory from `/proc`;
//! * [`cpu`] — BMI2 detected once at run time;
//! * [`guarded_map`] — file maps that survive their file shrinking;
//! * [`words`] — arrays of 16-bit words viewed as atomics.
//!
//! With the bit-twiddling module `numbering::bits` and two audited spots
//! (the block cache's sets, the out-of-core scatter of requests), this is
//! where the library's `unsafe` code lives: the workspace denies it
//! everywhere else.

// The one module of the library where `unsafe` code is at home (see the
// workspace lints).
#![allow(unsafe_code)]

pub mod cpu;
pub mod guarded_map;
pub mod hugemem;
pub mod memory;
pub mod prefetch;
pub mod words;
