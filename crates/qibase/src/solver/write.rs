//! Writing a solved tier's file, beside the next tier's solve or at once.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::report::TierReport;
use crate::tablebase::TbError;

/// How a mode writes a solved tier's file.
pub(super) enum Write {
    /// On a thread of its own, beside the next tier's solve.
    Spawn(Box<dyn FnOnce() -> Result<(), TbError> + Send>),
    /// Written already, in so many seconds.
    Done(f64),
    /// Not by this rank.
    Nothing,
}

/// A tier file being written on a background thread while the next tier is
/// solved. The write itself is atomic (temp file, fsync, rename), so an
/// interrupted solve loses at most the tiers not yet on disk, and a later
/// solve redoes exactly those.
pub(super) struct PendingWrite {
    /// Index of the tier's entry in the reports.
    report: usize,
    handle: std::thread::JoinHandle<Result<f64, TbError>>,
}

impl PendingWrite {
    /// Run `write` on `pool`, on a thread of its own.
    pub(super) fn spawn(
        report: usize,
        pool: Arc<rayon::ThreadPool>,
        write: impl FnOnce() -> Result<(), TbError> + Send + 'static,
    ) -> PendingWrite {
        let handle = std::thread::spawn(move || {
            let t0 = Instant::now();
            pool.install(write)?;
            Ok(t0.elapsed().as_secs_f64())
        });
        PendingWrite { report, handle }
    }

    /// Wait for the write; record its time in the tier's report.
    pub(super) fn finish(self, reports: &mut [TierReport]) -> Result<(), TbError> {
        let t0 = Instant::now();
        let seconds = match self.handle.join() {
            Ok(r) => r?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let r = &mut reports[self.report];
        r.stats.write_seconds = seconds;
        r.write_wait_seconds = t0.elapsed().as_secs_f64();
        Ok(())
    }
}

/// The pool the tier files are compressed on: as many threads as the
/// solver uses (the OS shares the cores between the two).
pub(super) fn writer_pool(dir: &Path) -> Result<Arc<rayon::ThreadPool>, TbError> {
    Ok(Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("qibase-writer-{i}"))
            .build()
            .map_err(|e| TbError::Io {
                path: dir.to_path_buf(),
                what: "cannot start writer threads".into(),
                source: Arc::new(std::io::Error::other(e)),
            })?,
    ))
}
