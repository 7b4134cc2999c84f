//! The rules of the C boundary in one place: every entry point runs its
//! body through [`guarded`] (panics caught, the failure's message kept for
//! `qb_last_error`), reads its strings with [`read_str`] and writes them
//! with [`write_str`] (caller-owned buffers, the needed size returned when
//! too small).

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::status::{qb_status, Failure, Res};

thread_local! {
    /// The last failure's message on this thread (empty after a success).
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    // A message never holds a NUL of its own; if one did, cut it there
    // rather than lose the message.
    let text = message.split('\0').next().unwrap_or_default();
    let c = CString::new(text).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// The last failure's message on this thread, as a pointer valid until the
/// thread's next call into the library.
pub(crate) fn last_error_ptr() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a Rust panic".to_string()
    }
}

/// Run an entry point's body: its status, with the message of a failure
/// (or of a caught panic) kept for `qb_last_error`.
pub(crate) fn guarded(f: impl FnOnce() -> Res<()>) -> qb_status {
    let r = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        Err(Failure::new(
            qb_status::QB_ERR_INTERNAL,
            format!("internal error: {}", panic_message(&*p)),
        ))
    });
    match r {
        Ok(()) => {
            set_last_error("");
            qb_status::QB_OK
        }
        Err(f) => {
            set_last_error(&f.message);
            f.status
        }
    }
}

/// The failure of a NULL pointer argument.
pub(crate) fn null(what: &str) -> Failure {
    Failure::new(qb_status::QB_ERR_NULL_ARGUMENT, format!("{what} is NULL"))
}

/// A caller's NUL-terminated UTF-8 string.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that stays valid and
/// unchanged for `'a`.
pub(crate) unsafe fn read_str<'a>(p: *const c_char, what: &str) -> Res<&'a str> {
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: not NULL (checked above) and NUL-terminated, valid for 'a
    // (the caller's contract).
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map_err(|e| {
        Failure::new(
            qb_status::QB_ERR_BAD_ARGUMENT,
            format!("{what} is not UTF-8 (invalid byte at {})", e.valid_up_to()),
        )
    })
}

/// Write `text` and a NUL into the caller's buffer `buf` of `len` bytes;
/// the bytes needed (with the NUL) go to `*needed` if it is not NULL,
/// whether or not they fit.
///
/// # Safety
/// `buf` is NULL or writable for `len` bytes; `needed` is NULL or writable.
pub(crate) unsafe fn write_str(
    text: &str,
    buf: *mut c_char,
    len: usize,
    needed: *mut usize,
) -> Res<()> {
    let n = text.len() + 1;
    if !needed.is_null() {
        // SAFETY: not NULL, writable (the caller's contract).
        unsafe { needed.write(n) };
    }
    if buf.is_null() && len > 0 {
        return Err(null("the output buffer (with a non-zero length)"));
    }
    if len < n {
        return Err(Failure::new(
            qb_status::QB_ERR_BUFFER_TOO_SMALL,
            format!("the output buffer has {len} bytes, {n} are needed"),
        ));
    }
    // SAFETY: `buf` is not NULL (len >= n > 0) and writable for len >= n
    // bytes; `text` is a distinct Rust allocation, so they do not overlap.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        buf.add(text.len()).write(0);
    }
    Ok(())
}

/// Write `value` through the caller's pointer `out`.
///
/// # Safety
/// `out` is NULL or writable for one `T`.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T, what: &str) -> Res<()> {
    if out.is_null() {
        return Err(null(what));
    }
    // SAFETY: not NULL (checked above), writable (the caller's contract).
    unsafe { out.write(value) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last_error() -> String {
        // SAFETY: the pointer is this thread's message, NUL-terminated and
        // valid until the next call into the library.
        unsafe { CStr::from_ptr(last_error_ptr()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_an_internal_error_with_its_message() {
        let s = guarded(|| panic!("a test panic"));
        assert_eq!(s, qb_status::QB_ERR_INTERNAL);
        assert_eq!(last_error(), "internal error: a test panic");
        assert_eq!(guarded(|| Ok(())), qb_status::QB_OK);
        assert_eq!(last_error(), "");
    }

    #[test]
    fn a_message_with_a_nul_is_cut_there() {
        let s = guarded(|| Err(Failure::new(qb_status::QB_ERR_IO, "before\0after")));
        assert_eq!(s, qb_status::QB_ERR_IO);
        assert_eq!(last_error(), "before");
    }
}
