//! One writer per directory: an advisory lock of the operating system
//! (`flock` on Unix, through [`std::fs::File::try_lock`]) on a lock file
//! in the directory a command writes.
//!
//! Two solves into one game directory would remove each other's
//! temporary files and share their scratch directories; two out-of-core
//! checks would share `.verify`. Every writer (a solve, an out-of-core
//! verify, pack, unpack, the report, the puzzles) takes the lock of the
//! directory it writes before it touches anything there, and a second
//! process is refused at once with [`LockError::Locked`], which names the
//! process that holds it (its pid and command line, written into the
//! lock file by the holder).
//!
//! The operating system releases the lock when its holder ends, however
//! it ends: a lock file left by a killed process blocks nobody (the next
//! writer takes the lock and writes its own name into the file). A holder
//! that ends normally removes the file; the check that the locked file is
//! still the one the path names makes that removal safe against a writer
//! that opened the file just before.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The lock file's name, in the directory it locks.
pub const LOCK_FILE: &str = ".qibase.lock";

/// The process holding a lock, as it wrote itself into the lock file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// Its command line (arguments separated by spaces).
    pub command: String,
}

/// Why a directory's lock was not taken.
#[derive(Clone, Debug)]
pub enum LockError {
    /// Another process holds the lock of `dir`.
    Locked {
        /// The directory.
        dir: PathBuf,
        /// The process holding it, when the lock file names it (`None`
        /// while the holder has not written its name yet).
        holder: Option<Holder>,
    },
    /// The directory or its lock file cannot be created, opened or
    /// locked (read-only, missing permissions, a full disk).
    Io {
        /// The directory.
        dir: PathBuf,
        /// The operating system's error.
        source: Arc<std::io::Error>,
    },
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Locked { dir, holder } => {
                write!(f, "{}: another process is writing there", dir.display())?;
                match holder {
                    Some(h) => write!(f, " (pid {}: {})", h.pid, h.command),
                    None => Ok(()),
                }
            }
            LockError::Io { dir, source } => {
                write!(f, "{}: cannot lock the directory: {source}", dir.display())
            }
        }
    }
}

impl std::error::Error for LockError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LockError::Locked { .. } => None,
            LockError::Io { source, .. } => Some(source.as_ref()),
        }
    }
}

/// The lock of one directory, held until dropped.
#[derive(Debug)]
pub struct DirLock {
    file: fs::File,
    path: PathBuf,
}

impl DirLock {
    /// Take the lock of `dir` (created if missing), without waiting.
    ///
    /// # Errors
    /// [`LockError::Locked`] if another process holds it (also another
    /// lock of this process: the lock is per open file);
    /// [`LockError::Io`] if the directory or the lock file cannot be
    /// created or written.
    pub fn acquire(dir: &Path) -> Result<DirLock, LockError> {
        let io = |e: std::io::Error| LockError::Io {
            dir: dir.to_path_buf(),
            source: Arc::new(e),
        };
        fs::create_dir_all(dir).map_err(io)?;
        let path = dir.join(LOCK_FILE);
        // A holder that releases removes the file: a file opened just
        // before is no longer the path's, and is opened again.
        loop {
            let file = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(LockError::Locked {
                        dir: dir.to_path_buf(),
                        holder: read_holder(&path),
                    })
                }
                Err(fs::TryLockError::Error(e)) => return Err(io(e)),
            }
            if !still_named(&file, &path) {
                continue;
            }
            let mut lock = DirLock { file, path };
            lock.write_holder().map_err(io)?;
            return Ok(lock);
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write this process's pid and command line into the lock file.
    fn write_holder(&mut self) -> std::io::Result<()> {
        let command: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let mut command = command.join(" ");
        // One line, of a readable length.
        command.retain(|c| c != '\n');
        if command.len() > 300 {
            let mut end = 300;
            while !command.is_char_boundary(end) {
                end -= 1;
            }
            command.truncate(end);
            command.push('…');
        }
        self.file.set_len(0)?;
        let text = format!("{}\n{command}\n", std::process::id());
        // At offset 0: the file was opened for reading and writing, not
        // appending, and nothing was read or written through it yet.
        self.file.write_all(text.as_bytes())?;
        self.file.flush()
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        // Removed while still locked (see `acquire`); the lock goes with
        // the file handle.
        let _ = fs::remove_file(&self.path);
    }
}

/// Whether `file` is still the file `path` names (not removed or replaced
/// since it was opened).
#[cfg(unix)]
fn still_named(file: &fs::File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Elsewhere a lock file is never removed while open, and always is.
#[cfg(not(unix))]
fn still_named(_file: &fs::File, _path: &Path) -> bool {
    true
}

/// The holder named in the lock file at `path`: read a few times over a
/// tenth of a second, since a holder writes its name just after it takes
/// the lock.
fn read_holder(path: &Path) -> Option<Holder> {
    for _ in 0..10 {
        let mut text = String::new();
        if let Ok(mut f) = fs::File::open(path) {
            let _ = f.read_to_string(&mut text);
        }
        let mut lines = text.lines();
        let pid = lines.next().and_then(|l| l.trim().parse().ok());
        if let (Some(pid), Some(command)) = (pid, lines.next()) {
            return Some(Holder {
                pid,
                command: command.to_string(),
            });
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("qibase-lock-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_taken_after_release() {
        let d = scratch("second");
        let first = DirLock::acquire(&d).unwrap();
        match DirLock::acquire(&d) {
            Err(LockError::Locked { dir, holder }) => {
                assert_eq!(dir, d);
                assert_eq!(holder.unwrap().pid, std::process::id());
            }
            other => panic!("expected Locked, got {other:?}"),
        }
        drop(first);
        assert!(!d.join(LOCK_FILE).exists(), "the lock file is removed");
        let again = DirLock::acquire(&d).unwrap();
        drop(again);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_lock_file_left_behind_does_not_block() {
        let d = scratch("left");
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join(LOCK_FILE), "1\nqibase solve (killed)\n").unwrap();
        let lock = DirLock::acquire(&d).unwrap();
        let text = fs::read_to_string(lock.path()).unwrap();
        assert_eq!(text.lines().next().unwrap(), std::process::id().to_string());
        drop(lock);
        fs::remove_dir_all(&d).unwrap();
    }
}
