//! The qibase C library (`libqibase_c`): the solved tables of qibase's
//! games behind a C ABI with the prefix `qb_`, for apps and engines in
//! any language with a C FFI. `include/qibase.h` is generated from this
//! crate by cbindgen (a test checks it is current); `docs/embedding.md`
//! is the guide.
//!
//! Rules of the boundary (the `boundary` module holds them):
//! * every entry point returns a [`qb_status`] and keeps the failure's
//!   message, per thread, for [`qb_last_error`]; a Rust panic is caught
//!   and becomes `QB_ERR_INTERNAL`;
//! * every pointer is checked for NULL; strings are NUL-terminated UTF-8
//!   both ways; output strings go to caller-owned buffers, with the size
//!   needed returned when the buffer is too small;
//! * a tablebase handle may be shared by threads for lookups.

// An FFI crate: its entry points take raw pointers from C, so it must use
// `unsafe` (denied in the rest of the workspace). Every block says why it
// is sound in a `// SAFETY:` comment.
#![allow(unsafe_code)]

mod boundary;
mod games;
mod status;
mod tables;

use std::ffi::c_char;

pub use games::{qb_apply, qb_game_end, qb_games, qb_start_position, qb_value, qb_variants};
pub use status::qb_status;
pub use tables::{
    qb_best_move, qb_close, qb_move, qb_moves, qb_open, qb_probe, qb_pv, qb_tablebase, QB_MOVE_MAX,
};

/// The message of this thread's last failure: one line naming what was
/// wrong (an empty string after a success). The pointer stays valid until
/// this thread's next call into the library; copy the text to keep it.
#[no_mangle]
pub extern "C" fn qb_last_error() -> *const c_char {
    boundary::last_error_ptr()
}

/// The library's version, e.g. `"0.1.0"` (a static string).
#[no_mangle]
pub extern "C" fn qb_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
