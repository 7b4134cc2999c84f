//! The MPI back-end of qibase's solver ([`Exchange`]): the ranks of a
//! solve are the processes of an MPI job (`mpiexec -n N`, `srun`), and each
//! collective operation is the MPI one (`MPI_Alltoallv`, `MPI_Allreduce`,
//! `MPI_Bcast`), through the `mpi` crate.
//!
//! Its binary, `qibase-mpi`, is the `qibase` command line whose solves
//! join the job that started them ([`join_job`]). Everything here is behind
//! the `mpi` feature: building it needs an MPI library and libclang, which
//! the ordinary build does not (docs/cluster.md), so without the feature
//! the crate is empty and its binary and tests are not built.
//!
//! MPI counts and displacements are 32-bit, so the large transfers go in
//! rounds of at most [`ROUND_ELEMENTS`] elements a call.

#![cfg(feature = "mpi")]

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::{Count, Threading};

use qibase::exchange::Exchange;
use qibase_cli::cli::ranks::JobRank;

/// Elements moved by one MPI call at most (all destinations together), so
/// every count and displacement fits MPI's 32-bit `int`.
pub const ROUND_ELEMENTS: usize = 1 << 30;

/// Why MPI could not be started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MpiError {
    /// `MPI_Init_thread` failed, or MPI was started before in this process.
    NotStarted,
    /// The MPI library gives less thread support than the solve needs:
    /// it calls MPI from one thread at a time, not always the main one
    /// (`MPI_THREAD_SERIALIZED`).
    Threading(String),
}

impl std::fmt::Display for MpiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MpiError::NotStarted => write!(f, "cannot start MPI (MPI_Init_thread failed)"),
            MpiError::Threading(got) => write!(
                f,
                "the MPI library offers only {got} thread support; the solve needs MPI_THREAD_SERIALIZED"
            ),
        }
    }
}

impl std::error::Error for MpiError {}

/// The ranks of the MPI job this process belongs to. Dropping it ends MPI
/// (`MPI_Finalize`).
pub struct MpiExchange {
    world: SimpleCommunicator,
    /// Held during every MPI call: MPI is started for calls from any
    /// thread but one at a time (`MPI_THREAD_SERIALIZED`).
    one_at_a_time: Mutex<()>,
    sent: AtomicU64,
    /// The job's size and this process's rank (asked once, at the start).
    size: usize,
    rank: usize,
    // Last: MPI ends after the communicator is gone.
    _universe: Universe,
}

impl MpiExchange {
    /// Start MPI in this process (once).
    ///
    /// # Errors
    ///
    /// [`MpiError`] when MPI cannot start or lacks the thread support.
    pub fn init() -> Result<MpiExchange, MpiError> {
        let (universe, threading) =
            mpi::initialize_with_threading(Threading::Serialized).ok_or(MpiError::NotStarted)?;
        if threading < Threading::Serialized {
            return Err(MpiError::Threading(format!("{threading:?}")));
        }
        let world = universe.world();
        let (size, rank) = (world.size() as usize, world.rank() as usize);
        Ok(MpiExchange {
            size,
            rank,
            world,
            one_at_a_time: Mutex::new(()),
            sent: AtomicU64::new(0),
            _universe: universe,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        self.one_at_a_time.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `MPI_Allreduce` of every rank's `x` under `op`.
    fn all_reduce(&self, x: u64, op: SystemOperation) -> u64 {
        let mut out = 0u64;
        let _one = self.lock();
        self.world.all_reduce_into(&x, &mut out, op);
        out
    }

    /// `MPI_Alltoallv` of `send` (`send_counts[d]` elements to rank `d`,
    /// back to back) into `recv` (`recv_counts[s]` from rank `s`).
    fn all_to_all_v<T: Equivalence + Copy + Default>(
        &self,
        send: &[T],
        send_counts: &[usize],
        recv: &mut [T],
        recv_counts: &[usize],
    ) {
        let displs = |counts: &[usize]| -> (Vec<Count>, Vec<Count>) {
            let mut at = 0usize;
            let mut d = Vec::with_capacity(counts.len());
            for &c in counts {
                d.push(at as Count);
                at += c;
            }
            assert!(
                at <= ROUND_ELEMENTS,
                "an MPI call over {ROUND_ELEMENTS} elements"
            );
            (counts.iter().map(|&c| c as Count).collect(), d)
        };
        let (sc, sd) = displs(send_counts);
        let (rc, rd) = displs(recv_counts);
        let me = self.rank();
        let others: usize = send_counts
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != me)
            .map(|(_, &c)| c)
            .sum();
        self.sent
            .fetch_add((others * std::mem::size_of::<T>()) as u64, Relaxed);
        let s = Partition::new(send, sc, sd);
        let mut r = PartitionMut::new(recv, rc, rd);
        let _one = self.lock();
        self.world.all_to_all_varcount_into(&s, &mut r);
    }
}

impl Exchange for MpiExchange {
    fn ranks(&self) -> usize {
        self.size
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn max(&self, x: u64) -> u64 {
        self.all_reduce(x, SystemOperation::max())
    }

    fn min(&self, x: u64) -> u64 {
        self.all_reduce(x, SystemOperation::min())
    }

    fn sum(&self, x: u64) -> u64 {
        self.all_reduce(x, SystemOperation::sum())
    }

    fn all_to_all(
        &self,
        counts: Vec<Vec<u32>>,
        msgs: Vec<Vec<u16>>,
        recv_counts: usize,
    ) -> Vec<(Vec<u32>, Vec<u16>)> {
        let n = self.ranks();
        // The counts: every rank knows how many it gets from each (one per
        // region it owns).
        let flat: Vec<u32> = counts.concat();
        let lens: Vec<usize> = counts.iter().map(Vec::len).collect();
        let mut got = vec![0u32; recv_counts * n];
        self.all_to_all_v(&flat, &lens, &mut got, &vec![recv_counts; n]);
        drop(flat);
        let got_counts: Vec<Vec<u32>> = (0..n)
            .map(|s| got[s * recv_counts..(s + 1) * recv_counts].to_vec())
            .collect();
        // The messages, in rounds that keep each call's counts in range.
        let recv_lens: Vec<usize> = got_counts
            .iter()
            .map(|c| c.iter().map(|&k| k as usize).sum())
            .collect();
        let mut out: Vec<Vec<u16>> = recv_lens.iter().map(|&l| vec![0u16; l]).collect();
        let per_rank = ROUND_ELEMENTS / n;
        let most = msgs.iter().map(Vec::len).max().unwrap_or(0);
        let rounds = self.max(most.div_ceil(per_rank) as u64) as usize;
        let piece = |len: usize, k: usize| (k * per_rank).min(len)..((k + 1) * per_rank).min(len);
        for k in 0..rounds {
            let mut send = Vec::new();
            let mut send_counts = Vec::with_capacity(n);
            for m in &msgs {
                let p = piece(m.len(), k);
                send_counts.push(p.len());
                send.extend_from_slice(&m[p]);
            }
            let recv_counts: Vec<usize> = recv_lens.iter().map(|&l| piece(l, k).len()).collect();
            let mut recv = vec![0u16; recv_counts.iter().sum()];
            self.all_to_all_v(&send, &send_counts, &mut recv, &recv_counts);
            let mut at = 0;
            for (s, o) in out.iter_mut().enumerate() {
                let p = piece(o.len(), k);
                o[p].copy_from_slice(&recv[at..at + recv_counts[s]]);
                at += recv_counts[s];
            }
        }
        got_counts.into_iter().zip(out).collect()
    }

    fn broadcast_bytes(&self, root: usize, bytes: &mut Vec<u8>) {
        let at = self.world.process_at_rank(root as i32);
        let _one = self.lock();
        let mut len = bytes.len() as u64;
        at.broadcast_into(&mut len);
        bytes.resize(len as usize, 0);
        for piece in bytes.chunks_mut(ROUND_ELEMENTS) {
            at.broadcast_into(piece);
        }
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.load(Relaxed)
    }
}

impl JobRank for MpiExchange {
    /// `MPI_Abort` on the whole job.
    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}

/// Start MPI and join the job that started this process: how `qibase-mpi`
/// takes part in a solve (the command line's
/// [`JoinJob`](qibase_cli::cli::ranks::JoinJob)).
///
/// # Errors
///
/// MPI does not start, in one line.
pub fn join_job() -> Result<Box<dyn JobRank>, String> {
    MpiExchange::init()
        .map(|m| Box::new(m) as Box<dyn JobRank>)
        .map_err(|e| e.to_string())
}
