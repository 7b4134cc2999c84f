//! A raw array of u16 words in a scratch file, read and written at known
//! offsets (`pread`, `pwrite`), never mapped, so that what its user holds
//! in memory is exactly its buffers.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::tablebase::TbError;

// The raw files hold u16 words in the machine's order; they never leave
// the machine that wrote them (they are deleted when the solve ends), but
// the casts below rely on the order being little-endian.
const _: () = assert!(cfg!(target_endian = "little"));

fn as_bytes(words: &[u16]) -> &[u8] {
    bytemuck::cast_slice(words)
}

fn as_bytes_mut(words: &mut [u16]) -> &mut [u8] {
    bytemuck::cast_slice_mut(words)
}

/// A new, empty scratch file at `path`, open to read and write.
pub(crate) fn create(path: &Path) -> Result<File, TbError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(|e| TbError::io(path, "cannot create spill file", e))
}

/// An array of `len` u16 words in a scratch file: a tier's state words
/// while it is solved, then its values for the tiers above it. The file is
/// removed when the array is dropped.
pub(crate) struct RawArray {
    file: File,
    path: PathBuf,
    len: u64,
    /// Left on disk when dropped: the state of a tier being solved, which
    /// an interrupted solve resumes from.
    keep: bool,
}

impl RawArray {
    /// A new array of `len` zeros (a sparse file: no disk until written).
    pub fn zeroed(path: &Path, len: u64) -> Result<RawArray, TbError> {
        let file = create(path)?;
        file.set_len(len * 2)
            .map_err(|e| TbError::io(path, "cannot size spill file", e))?;
        Ok(RawArray {
            file,
            path: path.to_path_buf(),
            len,
            keep: false,
        })
    }

    /// The array of `len` words already in `path` (a resumed tier's
    /// state), if the file has that size.
    pub fn open(path: &Path, len: u64) -> Result<Option<RawArray>, TbError> {
        let file = match OpenOptions::new().read(true).write(true).open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(TbError::io(path, "cannot open spill file", e)),
        };
        let size = file
            .metadata()
            .map_err(|e| TbError::io(path, "cannot open spill file", e))?
            .len();
        Ok((size == len * 2).then(|| RawArray {
            file,
            path: path.to_path_buf(),
            len,
            keep: false,
        }))
    }

    /// Whether the file stays when the array is dropped.
    pub fn keep_on_drop(&mut self, keep: bool) {
        self.keep = keep;
    }

    /// Make what was written durable.
    pub fn sync(&self) -> Result<(), TbError> {
        self.file
            .sync_data()
            .map_err(|e| TbError::io(&self.path, "cannot sync spill file", e))
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    /// Words `start..start + out.len()`.
    pub fn read(&self, start: u64, out: &mut [u16]) -> Result<(), TbError> {
        debug_assert!(start + out.len() as u64 <= self.len);
        self.file
            .read_exact_at(as_bytes_mut(out), start * 2)
            .map_err(|e| TbError::io(&self.path, "cannot read spill file", e))
    }

    /// Write `words` from word `start` on.
    pub fn write(&self, start: u64, words: &[u16]) -> Result<(), TbError> {
        debug_assert!(start + words.len() as u64 <= self.len);
        self.file
            .write_all_at(as_bytes(words), start * 2)
            .map_err(|e| TbError::io(&self.path, "cannot write spill file", e))
    }
}

impl Drop for RawArray {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_arrays_read_back() {
        let d = std::env::temp_dir().join(format!("qibase-raw-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let a = RawArray::zeroed(&d.join("a"), 10).unwrap();
        a.write(3, &[7, 8, 65_535]).unwrap();
        let mut out = [1u16; 10];
        a.read(0, &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 7, 8, 65_535, 0, 0, 0, 0]);
        assert_eq!(std::fs::metadata(d.join("a")).unwrap().len(), 20);
        drop(a);
        assert!(!d.join("a").exists(), "a dropped array's file is removed");
        std::fs::remove_dir_all(d).unwrap();
    }
}
