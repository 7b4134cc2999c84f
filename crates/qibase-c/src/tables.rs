//! The tables: a handle on one game's solved tables in a directory (fast
//! or compact files), and the lookups through it: values, moves with
//! their values, the program's move, the principal variation.

use std::ffi::c_char;
use std::path::Path;

use qibase::ai::Difficulty;
use qibase::analysis::{analyse, principal_variation};
use qibase::games::AnyTablebase;
use qibase::tablebase::game_dir;
use qibase::{with_tb, Notation, Rng, Tiers};

use crate::boundary::{guarded, null, read_str, write_out, write_str};
use crate::games::{game_static, qb_value};
use crate::status::{qb_status, Failure, Res};

/// An open tablebase: one game's tables under a directory. Made by
/// `qb_open`, freed by `qb_close`.
#[allow(non_camel_case_types)]
pub struct qb_tablebase {
    tb: AnyTablebase<'static>,
}

// Probing from many threads at once is what the handle is for (the
// header says so): make the compiler hold the library to it.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<qb_tablebase>();
};

/// The longest move text (with its NUL) in a [`qb_move`]: moves are two
/// point names, `a1-b2`.
pub const QB_MOVE_MAX: usize = 16;

/// One legal move and its value.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct qb_move {
    /// The move in the game's notation, NUL-terminated.
    pub text: [c_char; QB_MOVE_MAX],
    /// The move's value for the side that makes it (the move counted in
    /// the remoteness).
    pub value: qb_value,
}

/// Open the tables of `game` (a preset id or a variant string) under the
/// directory `dir` (the one `qibase solve --dir` or `qibase pack --out`
/// wrote: it holds a subdirectory per game). Every table file of the game that is there is
/// opened and its header checked now; values are read on demand.
///
/// Errors: `QB_ERR_NOT_FOUND` if `dir` does not exist,
/// `QB_ERR_UNKNOWN_GAME`, `QB_ERR_MISSING_TABLE` if no table of the game
/// is there, `QB_ERR_DAMAGED_TABLE`, `QB_ERR_FOREIGN_TABLE` (another game,
/// other rules, another format version), `QB_ERR_IO`. On failure `*out`
/// is set to NULL.
///
/// # Safety
/// `dir` and `game` are NULL or NUL-terminated strings; `out` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn qb_open(
    dir: *const c_char,
    game: *const c_char,
    out: *mut *mut qb_tablebase,
) -> qb_status {
    guarded(|| {
        if out.is_null() {
            return Err(null("out"));
        }
        // SAFETY: not NULL (checked above), writable (the caller's
        // contract): no handle until the open succeeds.
        unsafe { out.write(std::ptr::null_mut()) };
        // SAFETY: the caller's contract, passed on.
        let (dir, game) = unsafe { (read_str(dir, "dir")?, read_str(game, "game")?) };
        let handle = Box::new(open(Path::new(dir), game)?);
        // SAFETY: as above.
        unsafe { write_out(out, Box::into_raw(handle), "out") }
    })
}

fn open(dir: &Path, game: &str) -> Res<qb_tablebase> {
    if !dir.is_dir() {
        return Err(Failure::new(
            qb_status::QB_ERR_NOT_FOUND,
            format!("{}: no such tablebase directory", dir.display()),
        ));
    }
    let tb = AnyTablebase::open(game_static(game)?, dir);
    with_tb!(tb, |g, tb| {
        let mut found = 0;
        for t in g.tiers(None) {
            if tb.store().has_any_file(t) {
                tb.open_tier(t)?;
                found += 1;
            }
        }
        if found == 0 {
            return Err(Failure::new(
                qb_status::QB_ERR_MISSING_TABLE,
                format!(
                    "{}: no table of {} (`qibase solve {} --dir {}` makes them)",
                    game_dir(dir, g.id()).display(),
                    g.id(),
                    g.id(),
                    dir.display()
                ),
            ));
        }
    });
    Ok(qb_tablebase { tb })
}

/// Close a handle made by `qb_open` and free it. NULL is ignored. No other
/// call may use the handle during or after this one.
///
/// # Safety
/// `tb` is NULL or a handle from `qb_open` not closed yet.
#[no_mangle]
pub unsafe extern "C" fn qb_close(tb: *mut qb_tablebase) {
    // A panic while freeing has nowhere to be reported but the status
    // this function does not have: the message stays in qb_last_error.
    let _ = guarded(|| {
        if !tb.is_null() {
            // SAFETY: a handle from qb_open (Box::into_raw), closed once
            // (the caller's contract).
            drop(unsafe { Box::from_raw(tb) });
        }
        Ok(())
    });
}

/// The handle behind the caller's pointer.
///
/// # Safety
/// `tb` is NULL or a live handle from `qb_open`.
unsafe fn handle<'a>(tb: *const qb_tablebase) -> Res<&'a qb_tablebase> {
    // SAFETY: NULL or live (the caller's contract).
    unsafe { tb.as_ref() }.ok_or_else(|| null("the tablebase"))
}

/// The exact value of `pos` for the side to move, from the tables.
///
/// # Safety
/// `tb` is NULL or a live handle; `pos` is NULL or a NUL-terminated
/// string; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn qb_probe(
    tb: *const qb_tablebase,
    pos: *const c_char,
    out: *mut qb_value,
) -> qb_status {
    guarded(|| {
        // SAFETY: the caller's contract, passed on.
        let (h, pos) = unsafe { (handle(tb)?, read_str(pos, "position")?) };
        if out.is_null() {
            return Err(null("out"));
        }
        let v = with_tb!(h.tb, |g, tb| tb.probe(&g.parse_pos(pos)?)?);
        // SAFETY: the caller's contract, passed on.
        unsafe { write_out(out, qb_value::of(v), "out") }
    })
}

/// Every legal move of `pos` with its value, best first (the fastest win,
/// then draws, then the longest loss; equal values in notation order).
/// `*count` gets the number of moves (0 when the game is over); if it is
/// more than `cap`, nothing is written and the status is
/// `QB_ERR_BUFFER_TOO_SMALL`. `moves` may be NULL when `cap` is 0.
///
/// # Safety
/// `tb` is NULL or a live handle; `pos` is NULL or a NUL-terminated
/// string; `moves` is NULL or writable for `cap` entries; `count` is NULL
/// or writable.
#[no_mangle]
pub unsafe extern "C" fn qb_moves(
    tb: *const qb_tablebase,
    pos: *const c_char,
    moves: *mut qb_move,
    cap: usize,
    count: *mut usize,
) -> qb_status {
    guarded(|| {
        // SAFETY: the caller's contract, passed on.
        let (h, pos) = unsafe { (handle(tb)?, read_str(pos, "position")?) };
        if count.is_null() {
            return Err(null("count"));
        }
        let list = with_tb!(h.tb, |g, tb| {
            let a = analyse(g, tb, &g.parse_pos(pos)?)?;
            a.moves
                .iter()
                .map(|m| c_move(&m.text, m.value))
                .collect::<Res<Vec<_>>>()?
        });
        // SAFETY: not NULL (checked above), writable (the caller's contract).
        unsafe { count.write(list.len()) };
        if moves.is_null() && cap > 0 {
            return Err(null("moves (with a non-zero cap)"));
        }
        if cap < list.len() {
            return Err(Failure::new(
                qb_status::QB_ERR_BUFFER_TOO_SMALL,
                format!("room for {cap} moves, the position has {}", list.len()),
            ));
        }
        // SAFETY: `moves` is writable for cap >= list.len() entries (the
        // caller's contract; not NULL when list is not empty, since then
        // cap > 0); `list` is our own allocation, so they do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(list.as_ptr(), moves, list.len()) };
        Ok(())
    })
}

fn c_move(text: &str, value: qibase::Value) -> Res<qb_move> {
    let mut out = qb_move {
        text: [0; QB_MOVE_MAX],
        value: qb_value::of(value),
    };
    if text.len() >= QB_MOVE_MAX {
        return Err(Failure::new(
            qb_status::QB_ERR_INTERNAL,
            format!("move {text:?} is longer than QB_MOVE_MAX"),
        ));
    }
    for (o, &b) in out.text.iter_mut().zip(text.as_bytes()) {
        *o = b as c_char;
    }
    Ok(out)
}

/// The program's move in `pos` at `difficulty` (`"perfect"`, `"hard"`,
/// `"medium"` or `"easy"`), its random choices drawn from `seed` (the same
/// seed, the same move). An empty string when the game is over.
/// `QB_ERR_BAD_ARGUMENT` for another difficulty name.
///
/// # Safety
/// `tb` is NULL or a live handle; `pos` and `difficulty` are NULL or
/// NUL-terminated strings; `buf` is NULL or writable for `len` bytes;
/// `needed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn qb_best_move(
    tb: *const qb_tablebase,
    pos: *const c_char,
    difficulty: *const c_char,
    seed: u64,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> qb_status {
    guarded(|| {
        // SAFETY: the caller's contract, passed on.
        let (h, pos, level) = unsafe {
            (
                handle(tb)?,
                read_str(pos, "position")?,
                read_str(difficulty, "difficulty")?,
            )
        };
        let level: Difficulty = level.parse().map_err(|e: qibase::ai::UnknownDifficulty| {
            Failure::new(qb_status::QB_ERR_BAD_ARGUMENT, e.to_string())
        })?;
        let text = with_tb!(h.tb, |g, tb| {
            let mut rng = Rng::new(seed);
            let (a, i) = qibase::ai::choose(g, tb, &g.parse_pos(pos)?, level, &mut rng)?;
            i.map(|i| a.moves[i].text.clone()).unwrap_or_default()
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { write_str(&text, buf, len, needed) }
    })
}

/// The principal variation from `pos`: the moves of perfect play for both
/// sides, separated by spaces, until the game ends (for a draw, its first
/// 40 plies). An empty string when the game is over.
///
/// # Safety
/// As [`qb_best_move`], without `difficulty`.
#[no_mangle]
pub unsafe extern "C" fn qb_pv(
    tb: *const qb_tablebase,
    pos: *const c_char,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> qb_status {
    guarded(|| {
        // SAFETY: the caller's contract, passed on.
        let (h, pos) = unsafe { (handle(tb)?, read_str(pos, "position")?) };
        let text = with_tb!(h.tb, |g, tb| {
            let line = principal_variation(g, tb, &g.parse_pos(pos)?)?;
            line.iter()
                .map(|m| m.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        });
        // SAFETY: the caller's contract, passed on.
        unsafe { write_str(&text, buf, len, needed) }
    })
}
