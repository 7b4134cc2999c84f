//! The scratch files of an out-of-core solve besides its raw arrays
//! ([`RawArray`]): a level's parent updates by window, and queues of
//! decided positions. They are read and written at known offsets
//! (`pread`, `pwrite`), never mapped, so what the solve holds in memory is
//! exactly its buffers.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::raw::create;
pub(crate) use crate::raw::RawArray;
use crate::solver::slot::Slot;
use crate::tablebase::TbError;

/// Where a [`Segments`] file's records lie: what a checkpoint keeps of a
/// queue that is only read from then on.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub(in crate::solver) struct QueueIndex {
    pub end: u64,
    pub owners: Vec<Vec<(u64, u64)>>,
}

/// Records appended to one file, each belonging to one of a fixed number
/// of owners (windows, or a queue's levels), read back owner by owner in
/// the order they were written.
pub(super) struct Segments {
    file: File,
    path: PathBuf,
    end: u64,
    /// Per owner, its records as (offset, bytes).
    index: Vec<Vec<(u64, u64)>>,
}

impl Segments {
    pub fn new(path: &Path) -> Result<Segments, TbError> {
        Ok(Segments {
            file: create(path)?,
            path: path.to_path_buf(),
            end: 0,
            index: Vec::new(),
        })
    }

    /// The records of `index` in the existing file at `path`, which must
    /// be at least as long as the index says.
    pub fn reopen(path: &Path, index: &QueueIndex) -> Result<Segments, TbError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| TbError::io(path, "cannot open spill file", e))?;
        let size = file
            .metadata()
            .map_err(|e| TbError::io(path, "cannot open spill file", e))?
            .len();
        if size < index.end {
            return Err(TbError::Corrupt {
                path: path.to_path_buf(),
                what: format!(
                    "spill file truncated ({size} bytes, the checkpoint says {})",
                    index.end
                ),
            });
        }
        Ok(Segments {
            file,
            path: path.to_path_buf(),
            end: index.end,
            index: index.owners.clone(),
        })
    }

    /// Where the records lie.
    pub fn index(&self) -> QueueIndex {
        QueueIndex {
            end: self.end,
            owners: self.index.clone(),
        }
    }

    /// Make what was written durable.
    pub fn sync(&self) -> Result<(), TbError> {
        self.file
            .sync_data()
            .map_err(|e| TbError::io(&self.path, "cannot sync spill file", e))
    }

    /// Append `bytes` as a record of `owner`.
    pub fn append(&mut self, owner: usize, bytes: &[u8]) -> Result<(), TbError> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.file
            .write_all_at(bytes, self.end)
            .map_err(|e| TbError::io(&self.path, "cannot write spill file", e))?;
        if self.index.len() <= owner {
            self.index.resize_with(owner + 1, Vec::new);
        }
        self.index[owner].push((self.end, bytes.len() as u64));
        self.end += bytes.len() as u64;
        Ok(())
    }

    /// Whether `owner` has any record.
    pub fn has(&self, owner: usize) -> bool {
        self.index.get(owner).is_some_and(|v| !v.is_empty())
    }

    /// The owners that can have records (`0..owners()`).
    pub fn owners(&self) -> usize {
        self.index.len()
    }

    /// `owner`'s records, in order, each read into `buf` and handed to `f`.
    pub fn for_each(
        &self,
        owner: usize,
        buf: &mut Vec<u8>,
        mut f: impl FnMut(&[u8]) -> Result<(), TbError>,
    ) -> Result<(), TbError> {
        for &(at, len) in self.index.get(owner).map_or(&[][..], |v| &v[..]) {
            buf.clear();
            buf.resize(len as usize, 0);
            self.file
                .read_exact_at(buf, at)
                .map_err(|e| TbError::io(&self.path, "cannot read spill file", e))?;
            f(buf)?;
        }
        Ok(())
    }

    /// Forget `owner`'s records (their bytes stay until [`Segments::clear`]).
    pub fn forget(&mut self, owner: usize) {
        if let Some(v) = self.index.get_mut(owner) {
            v.clear();
        }
    }

    /// Drop every record and give the disk back.
    pub fn clear(&mut self) -> Result<(), TbError> {
        self.index.iter_mut().for_each(Vec::clear);
        self.end = 0;
        self.file
            .set_len(0)
            .map_err(|e| TbError::io(&self.path, "cannot truncate spill file", e))
    }
}

/// A queue of slot numbers per level and kind (the solver's buckets of
/// decided positions, and its tentative wins) whose items go to a file
/// once the queue holds more than a set number in memory.
pub(super) struct SpillQueue<S> {
    mem: Vec<[Vec<S>; 2]>,
    held: usize,
    cap: usize,
    disk: Segments,
}

impl<S: Slot> SpillQueue<S> {
    pub fn new(path: &Path, cap: usize) -> Result<SpillQueue<S>, TbError> {
        Ok(SpillQueue {
            mem: Vec::new(),
            held: 0,
            cap: cap.max(1),
            disk: Segments::new(path)?,
        })
    }

    /// Add each `(level, slot)` of `items[kind]`.
    pub fn push_all(&mut self, items: &[Vec<(u16, S)>; 2]) -> Result<(), TbError> {
        for (kind, items) in items.iter().enumerate() {
            for &(level, i) in items {
                let l = level as usize;
                if self.mem.len() <= l {
                    self.mem.resize_with(l + 1, Default::default);
                }
                self.mem[l][kind].push(i);
            }
            self.held += items.len();
        }
        if self.held > self.cap {
            self.spill()?;
        }
        Ok(())
    }

    /// The queue as it was when [`SpillQueue::persist`] gave `index`,
    /// from its file at `path`.
    pub fn reopen(path: &Path, cap: usize, index: &QueueIndex) -> Result<SpillQueue<S>, TbError> {
        Ok(SpillQueue {
            mem: Vec::new(),
            held: 0,
            cap: cap.max(1),
            disk: Segments::reopen(path, index)?,
        })
    }

    /// Write every item to the file, sync it, and say where they lie (for
    /// [`SpillQueue::reopen`]).
    pub fn persist(&mut self) -> Result<QueueIndex, TbError> {
        self.spill()?;
        self.disk.sync()?;
        Ok(self.disk.index())
    }

    /// Write everything held in memory to the file.
    fn spill(&mut self) -> Result<(), TbError> {
        let mut bytes = Vec::new();
        for l in 0..self.mem.len() {
            for kind in 0..2 {
                let v = std::mem::take(&mut self.mem[l][kind]);
                if v.is_empty() {
                    continue;
                }
                bytes.clear();
                for i in v {
                    bytes.extend_from_slice(&i.get().to_le_bytes()[..S::BYTES]);
                }
                self.disk.append(2 * l + kind, &bytes)?;
            }
        }
        self.held = 0;
        Ok(())
    }

    /// The levels that may have items: `0..len()`.
    pub fn len(&self) -> usize {
        self.mem.len().max(self.disk.owners().div_ceil(2))
    }

    /// Hand level `level`'s items of `kind` to `f`, a part at a time (the
    /// part held in memory, then each part written out), and forget them:
    /// a level need not fit in memory to be sent.
    pub fn drain(
        &mut self,
        level: usize,
        kind: usize,
        mut f: impl FnMut(&[S]) -> Result<(), TbError>,
    ) -> Result<(), TbError> {
        if let Some(pair) = self.mem.get_mut(level) {
            let held = std::mem::take(&mut pair[kind]);
            self.held -= held.len();
            if !held.is_empty() {
                f(&held)?;
            }
        }
        let mut buf = Vec::new();
        let mut part = Vec::new();
        self.disk.for_each(2 * level + kind, &mut buf, |bytes| {
            part.clear();
            part.extend(bytes.chunks_exact(S::BYTES).map(slot_from_le::<S>));
            f(&part)
        })?;
        self.disk.forget(2 * level + kind);
        Ok(())
    }

    /// Take level `level`'s items (losses, wins).
    pub fn take(&mut self, level: usize) -> Result<[Vec<S>; 2], TbError> {
        let mut out: [Vec<S>; 2] = self
            .mem
            .get_mut(level)
            .map(std::mem::take)
            .unwrap_or_default();
        self.held -= out[0].len() + out[1].len();
        let mut buf = Vec::new();
        for (kind, v) in out.iter_mut().enumerate() {
            self.disk.for_each(2 * level + kind, &mut buf, |bytes| {
                v.extend(bytes.chunks_exact(S::BYTES).map(slot_from_le::<S>));
                Ok(())
            })?;
            self.disk.forget(2 * level + kind);
        }
        Ok(out)
    }
}

/// A slot number from its `S::BYTES` little-endian bytes.
fn slot_from_le<S: Slot>(b: &[u8]) -> S {
    let mut w = [0u8; 8];
    w[..S::BYTES].copy_from_slice(b);
    S::new(u64::from_le_bytes(w))
}

/// Append `x` as a LEB128 varint.
#[inline]
pub(super) fn put_varint(out: &mut Vec<u8>, mut x: u32) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Read a LEB128 varint at `*at`, moving past it.
#[inline]
pub(super) fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u32> {
    let mut x = 0u32;
    for shift in (0..35).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        x |= ((b & 0x7F) as u32) << shift;
        if b < 0x80 {
            return Some(x);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("qibase-spill-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn varints_round_trip() {
        let mut b = Vec::new();
        let xs = [0u32, 1, 127, 128, 300, 65_535, 1 << 20, u32::MAX];
        for &x in &xs {
            put_varint(&mut b, x);
        }
        let mut at = 0;
        for &x in &xs {
            assert_eq!(get_varint(&b, &mut at), Some(x));
        }
        assert_eq!(at, b.len());
        assert_eq!(get_varint(&b, &mut at), None);
    }

    #[test]
    fn queues_give_back_what_they_took_in_and_out_of_memory() {
        let d = scratch("queue");
        for cap in [1usize, 3, 1000] {
            let mut q = SpillQueue::<u64>::new(&d.join("q"), cap).unwrap();
            let mut want: Vec<[Vec<u64>; 2]> = vec![Default::default(); 6];
            for round in 0..5u64 {
                let mut found: [Vec<(u16, u64)>; 2] = Default::default();
                for k in 0..7u64 {
                    let (level, kind) = ((round + k) % 6, (k % 2) as usize);
                    let slot = (1 << 33) + round * 100 + k;
                    found[kind].push((level as u16, slot));
                    want[level as usize][kind].push(slot);
                }
                q.push_all(&found).unwrap();
            }
            assert_eq!(q.len(), 6);
            // Level 5's losses drained part by part, the rest taken.
            let mut drained = Vec::new();
            q.drain(5, 0, |part| {
                drained.extend_from_slice(part);
                Ok(())
            })
            .unwrap();
            drained.sort_unstable();
            let mut w5 = std::mem::take(&mut want[5][0]);
            w5.sort_unstable();
            assert_eq!(drained, w5, "cap {cap}");
            for (l, w) in want.iter().enumerate() {
                let mut got = q.take(l).unwrap();
                for (g, w) in got.iter_mut().zip(w) {
                    g.sort_unstable();
                    let mut w = w.clone();
                    w.sort_unstable();
                    assert_eq!(*g, w, "cap {cap} level {l}");
                }
            }
            assert!(q.take(2).unwrap().iter().all(Vec::is_empty));
        }
        std::fs::remove_dir_all(d).unwrap();
    }
}
