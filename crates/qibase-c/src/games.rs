//! The games without tables: the list of games and their variant
//! parameters, start positions, moves applied, the rules' end of a
//! position. Every function takes the game as a preset id or a variant
//! string (`cannon-chess:board=4x4,tiao=any`).

use std::ffi::c_char;

use qibase::games::{AnyGame, Describe, GAME_IDS};
use qibase::{with_game, Game, Notation, ParseError, Rules, Value};

use crate::boundary::{guarded, read_str, write_out, write_str};
use crate::status::{qb_status, Res};

/// A value for the side to move.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct qb_value {
    /// 1 win, 0 draw, -1 loss.
    pub wdl: i32,
    /// Plies to the end with perfect play; -1 for a draw.
    pub remoteness: i32,
}

impl qb_value {
    pub(crate) fn of(v: Value) -> qb_value {
        let wdl = match v {
            Value::Win(_) => 1,
            Value::Draw => 0,
            Value::Loss(_) => -1,
        };
        qb_value {
            wdl,
            remoteness: v.remoteness().map_or(-1, i32::from),
        }
    }
}

/// The game of `spec`, made once per process ([`AnyGame::shared`]).
pub(crate) fn game_static(spec: &str) -> Res<&'static AnyGame> {
    Ok(AnyGame::shared(spec)?)
}

/// The game named by the caller's string `game`.
///
/// # Safety
/// As [`read_str`].
unsafe fn game_arg(game: *const c_char) -> Res<&'static AnyGame> {
    // SAFETY: the caller's contract, passed on.
    game_static(unsafe { read_str(game, "game") }?)
}

/// The preset game ids, one per line (`\n` after each), into `buf`.
///
/// # Safety
/// `buf` is NULL or writable for `len` bytes; `needed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn qb_games(buf: *mut c_char, len: usize, needed: *mut usize) -> qb_status {
    guarded(|| {
        let text: String = GAME_IDS.iter().map(|id| format!("{id}\n")).collect();
        // SAFETY: the caller's contract, passed on.
        unsafe { write_str(&text, buf, len, needed) }
    })
}

/// The variant parameters of `game`'s family, one per line as
/// `key=values<TAB>what it does` (empty for a game without parameters).
/// A variant string is the preset id, `:` and `key=value` pairs joined by
/// `,`.
///
/// # Safety
/// `game` is NULL or a NUL-terminated string; `buf` is NULL or writable
/// for `len` bytes; `needed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn qb_variants(
    game: *const c_char,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> qb_status {
    guarded(|| {
        // SAFETY: the caller's contract, passed on.
        let g = unsafe { game_arg(game) }?;
        let text: String = with_game!(g, |g| g
            .param_docs()
            .iter()
            .map(|d| format!("{}={}\t{}\n", d.key, d.values, d.help))
            .collect());
        // SAFETY: the caller's contract, passed on.
        unsafe { write_str(&text, buf, len, needed) }
    })
}

/// The start position of `game`.
///
/// # Safety
/// As [`qb_variants`].
#[no_mangle]
pub unsafe extern "C" fn qb_start_position(
    game: *const c_char,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> qb_status {
    guarded(|| {
        // SAFETY: the caller's contract, passed on.
        let g = unsafe { game_arg(game) }?;
        let text = with_game!(g, |g| g.format_pos(&g.start()));
        // SAFETY: the caller's contract, passed on.
        unsafe { write_str(&text, buf, len, needed) }
    })
}

/// The position after `mv` in `pos`, in canonical notation.
/// `QB_ERR_ILLEGAL_MOVE` if the move is malformed or illegal there, or
/// the game is over.
///
/// # Safety
/// `game`, `pos` and `mv` are NULL or NUL-terminated strings; `buf` is
/// NULL or writable for `len` bytes; `needed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn qb_apply(
    game: *const c_char,
    pos: *const c_char,
    mv: *const c_char,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> qb_status {
    guarded(|| {
        // SAFETY: the caller's contract, passed on (for the three strings).
        let (g, pos, mv) = unsafe {
            (
                game_arg(game)?,
                read_str(pos, "position")?,
                read_str(mv, "move")?,
            )
        };
        let text = with_game!(g, |g| apply(g, pos, mv))?;
        // SAFETY: the caller's contract, passed on.
        unsafe { write_str(&text, buf, len, needed) }
    })
}

pub(crate) fn apply<G: Game>(g: &G, pos: &str, mv: &str) -> Res<String> {
    let p = g.parse_pos(pos)?;
    if g.game_end(&p).is_some() {
        return Err(
            ParseError::illegal_move(format!("illegal move '{mv}': the game is over")).into(),
        );
    }
    let m = g.parse_move(&p, mv)?;
    Ok(g.format_pos(&g.apply(&p, &m)))
}

/// Whether the game is over in `pos` by its rules: `*over` is 1 (and
/// `*value` the value for the side to move, the reason in words in
/// `reason`) or 0 (`*value` and `reason` untouched). `reason` may be NULL
/// with `reason_len` 0 when the words are not wanted.
///
/// # Safety
/// `game` and `pos` are NULL or NUL-terminated strings; `over` and `value`
/// are NULL or writable; `reason` is NULL or writable for `reason_len`
/// bytes; `needed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn qb_game_end(
    game: *const c_char,
    pos: *const c_char,
    over: *mut i32,
    value: *mut qb_value,
    reason: *mut c_char,
    reason_len: usize,
    needed: *mut usize,
) -> qb_status {
    guarded(|| {
        // SAFETY: the caller's contract, passed on.
        let (g, pos) = unsafe { (game_arg(game)?, read_str(pos, "position")?) };
        if over.is_null() {
            return Err(crate::boundary::null("over"));
        }
        if value.is_null() {
            return Err(crate::boundary::null("value"));
        }
        let end = with_game!(g, |g| g
            .parse_pos(pos)
            .map(|p| g.game_end(&p).map(|e| (e.value, g.describe_end(e.reason)))))?;
        let Some((v, words)) = end else {
            // SAFETY: `over` is not NULL (checked above), writable (the
            // caller's contract).
            return unsafe { write_out(over, 0, "over") };
        };
        if !reason.is_null() || reason_len > 0 {
            // SAFETY: the caller's contract, passed on.
            unsafe { write_str(&words, reason, reason_len, needed) }?;
        }
        // SAFETY: both not NULL (checked above), writable (the caller's
        // contract).
        unsafe {
            write_out(value, qb_value::of(v), "value")?;
            write_out(over, 1, "over")
        }
    })
}
