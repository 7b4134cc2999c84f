//! How `qibase solve` takes part in a solve: alone, or as one rank of an
//! MPI job (`mpiexec -n N qibase-mpi solve …`, `srun qibase-mpi solve …`).
//!
//! The command line knows no MPI: the binary built with it (the
//! `qibase-mpi` package, docs/cluster.md) hands [`app::main`](super::app::main)
//! the way to join the job. Keeping MPI out of this crate is what lets that
//! build reuse this crate as the ordinary build compiled it.

use super::CliError;
use qibase::exchange::{Exchange, SingleProcess};

/// The variables by which process managers tell a process the size of the
/// job it was started in: MPICH's Hydra and other PMI managers, Open MPI,
/// and SLURM's `srun` (the tasks of one job step).
const SIZE_VARIABLES: [&str; 3] = ["PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"];

/// The number of processes in the job that started this one, if a process
/// manager started it.
pub fn launched_ranks() -> Option<usize> {
    SIZE_VARIABLES
        .iter()
        .find_map(|v| std::env::var(v).ok()?.trim().parse().ok())
}

/// One rank of an MPI job: the solver's exchange with the other ranks, and
/// the way to end them all.
pub trait JobRank: Exchange {
    /// End every rank of the job at once (`MPI_Abort`), so that none waits
    /// forever in a collective call for a rank that failed alone.
    fn abort(&self, code: i32) -> !;
}

/// How a binary built with MPI joins the job that started it; the error
/// is one line (MPI did not start).
pub type JoinJob = fn() -> Result<Box<dyn JobRank>, String>;

/// This process's part in a solve.
pub enum Ranks {
    /// The only process.
    Alone,
    /// One rank of an MPI job.
    Job(Box<dyn JobRank>),
}

impl Ranks {
    /// Join the MPI job that started this process, if any, through `join`.
    ///
    /// # Errors
    ///
    /// Started as one of several processes by a process manager, but
    /// without a way to join (the plain `qibase`: each would solve alone,
    /// all writing the same files); or MPI does not start.
    pub fn start(join: Option<JoinJob>) -> Result<Ranks, CliError> {
        let Some(n) = launched_ranks() else {
            return Ok(Ranks::Alone);
        };
        match join {
            Some(join) => join().map(Ranks::Job).map_err(CliError::failure),
            None if n > 1 => Err(CliError::input(format!(
                "started as one of {n} processes of an MPI job, but this qibase is built without MPI: start qibase-mpi instead, built by `cargo build --release -p qibase-mpi --features mpi` (docs/cluster.md)"
            ))),
            None => Ok(Ranks::Alone),
        }
    }

    /// The exchange the solver shares its work through.
    pub fn exchange(&self) -> &dyn Exchange {
        match self {
            Ranks::Alone => &SingleProcess,
            Ranks::Job(r) => &**r,
        }
    }

    /// `e`, for a solve alone, or an error that every rank met together
    /// (`collective`: each rank returns it and ends normally). Any other
    /// error of one of several ranks is printed (naming the rank) and ends
    /// the whole job at once, since the other ranks may be waiting for
    /// this one in a collective call. (Not every rank's last words reach
    /// the terminal when a job is aborted, so the ranks end normally
    /// whenever they can.)
    pub fn fail(&self, e: CliError, collective: bool) -> CliError {
        if let Ranks::Job(r) = self {
            if r.ranks() > 1 && !collective {
                eprintln!("error: {e} (rank {} of {})", r.rank(), r.ranks());
                r.abort(e.code);
            }
        }
        e
    }
}
