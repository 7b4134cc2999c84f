//! How the ranks of a solve share one tier's work: the interface between
//! the solver and a transport between processes.
//!
//! A solve runs as one or more *ranks* (processes, possibly on different
//! machines). All ranks solve the same tier at the same time; each owns a
//! fixed, contiguous run of the tier's regions, runs the initial pass over
//! its own slots only and keeps the only live copy of their state words.
//! A level's parent updates are computed where the decided positions are,
//! grouped by region, and handed to the owners of those regions through
//! [`Exchange::all_to_all`]; the ranks agree on when the levels end
//! through [`Exchange::max`]. A whole solve by several ranks
//! ([`solve_game`](crate::solver::solve_game) with an exchange in its
//! [options](crate::solver::SolveOptions::exchange)) keeps each rank's
//! slice of every finished tier and asks the owners for lower-tier values.
//!
//! The solver knows nothing of how the ranks talk: [`SingleProcess`] is
//! one rank, every operation the identity; the `qibase-mpi` crate (the
//! command line's `mpi` feature) adds an MPI back-end. The table is the
//! same for any number of ranks: within a level the order of the updates
//! never changes which positions are decided at which level.

/// The collective operations a solve needs between its ranks. Every rank
/// makes the same calls in the same order (they are collective: a call
/// returns once every rank has made it). `Sync` so that a solve can run
/// on a worker thread of its pool; the solver calls it from one thread.
pub trait Exchange: Sync {
    /// The number of ranks taking part (at least 1).
    fn ranks(&self) -> usize;
    /// This process's rank, `0..ranks()`. Rank 0 writes the files.
    fn rank(&self) -> usize;
    /// The largest of every rank's `x`.
    fn max(&self, x: u64) -> u64;
    /// The smallest of every rank's `x`.
    fn min(&self, x: u64) -> u64;
    /// The sum of every rank's `x`.
    fn sum(&self, x: u64) -> u64;
    /// Rank `d` receives `counts[d]` (`recv_counts` numbers) and `msgs[d]`
    /// from this rank; returns, by sending rank, what this rank received.
    /// The `counts` say how the messages split into runs (per region), so
    /// the message total from a rank is the sum of its counts.
    fn all_to_all(
        &self,
        counts: Vec<Vec<u32>>,
        msgs: Vec<Vec<u16>>,
        recv_counts: usize,
    ) -> Vec<(Vec<u32>, Vec<u16>)>;
    /// Rank `root`'s bytes into every rank's `bytes` (any length).
    fn broadcast_bytes(&self, root: usize, bytes: &mut Vec<u8>);
    /// Bytes this rank has sent to other ranks so far.
    fn bytes_sent(&self) -> u64;
}

/// A solve in one process: one rank, nothing to exchange.
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleProcess;

impl Exchange for SingleProcess {
    fn ranks(&self) -> usize {
        1
    }
    fn rank(&self) -> usize {
        0
    }
    fn max(&self, x: u64) -> u64 {
        x
    }
    fn min(&self, x: u64) -> u64 {
        x
    }
    fn sum(&self, x: u64) -> u64 {
        x
    }
    fn all_to_all(
        &self,
        mut counts: Vec<Vec<u32>>,
        mut msgs: Vec<Vec<u16>>,
        _recv_counts: usize,
    ) -> Vec<(Vec<u32>, Vec<u16>)> {
        vec![(counts.swap_remove(0), msgs.swap_remove(0))]
    }
    fn broadcast_bytes(&self, _root: usize, _bytes: &mut Vec<u8>) {}
    fn bytes_sent(&self) -> u64 {
        0
    }
}

/// Ranks as threads of one process, for tests: the multi-rank paths of the
/// solver (ownership, routing, the shared end of the levels, the
/// broadcast of rank 0's bytes) without MPI.
#[cfg(test)]
pub(crate) mod threads {
    use super::Exchange;
    use std::sync::{Barrier, Mutex};

    type Mail = (Vec<u32>, Vec<u16>);

    /// What the ranks share: a barrier and one mailbox per pair of ranks.
    pub struct Shared {
        ranks: usize,
        barrier: Barrier,
        numbers: Mutex<Vec<u64>>,
        mail: Mutex<Vec<Vec<Option<Mail>>>>,
        bytes: Mutex<Vec<u8>>,
    }

    impl Shared {
        pub fn new(ranks: usize) -> Shared {
            Shared {
                ranks,
                barrier: Barrier::new(ranks),
                numbers: Mutex::new(vec![0; ranks]),
                mail: Mutex::new(vec![vec![None; ranks]; ranks]),
                bytes: Mutex::new(Vec::new()),
            }
        }
    }

    /// Rank `rank`'s end of `shared`.
    pub struct ThreadRank<'a> {
        pub shared: &'a Shared,
        pub rank: usize,
    }

    impl ThreadRank<'_> {
        fn reduce(&self, x: u64, f: fn(u64, u64) -> u64) -> u64 {
            let s = self.shared;
            s.numbers.lock().unwrap()[self.rank] = x;
            s.barrier.wait();
            let out = s.numbers.lock().unwrap().iter().copied().reduce(f).unwrap();
            s.barrier.wait();
            out
        }
    }

    impl Exchange for ThreadRank<'_> {
        fn ranks(&self) -> usize {
            self.shared.ranks
        }
        fn rank(&self) -> usize {
            self.rank
        }
        fn max(&self, x: u64) -> u64 {
            self.reduce(x, u64::max)
        }
        fn min(&self, x: u64) -> u64 {
            self.reduce(x, u64::min)
        }
        fn sum(&self, x: u64) -> u64 {
            self.reduce(x, |a, b| a + b)
        }
        fn all_to_all(
            &self,
            counts: Vec<Vec<u32>>,
            msgs: Vec<Vec<u16>>,
            recv_counts: usize,
        ) -> Vec<(Vec<u32>, Vec<u16>)> {
            let s = self.shared;
            {
                let mut mail = s.mail.lock().unwrap();
                for (d, m) in counts.into_iter().zip(msgs).enumerate() {
                    mail[self.rank][d] = Some(m);
                }
            }
            s.barrier.wait();
            let got: Vec<Mail> = {
                let mut mail = s.mail.lock().unwrap();
                (0..s.ranks)
                    .map(|src| mail[src][self.rank].take().unwrap())
                    .collect()
            };
            assert!(got.iter().all(|(c, _)| c.len() == recv_counts));
            s.barrier.wait();
            got
        }
        fn broadcast_bytes(&self, root: usize, bytes: &mut Vec<u8>) {
            let s = self.shared;
            if self.rank == root {
                *s.bytes.lock().unwrap() = bytes.clone();
            }
            s.barrier.wait();
            if self.rank != root {
                *bytes = s.bytes.lock().unwrap().clone();
            }
            s.barrier.wait();
        }
        fn bytes_sent(&self) -> u64 {
            0
        }
    }
}
