//! How `qibase solve` takes part in a solve: alone, or as one rank of an
//! MPI job (`mpiexec -n N qibase solve …`, `srun qibase solve …`) when
//! built with the `mpi` feature (docs/cluster.md).

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

/// This process's part in a solve.
pub enum Ranks {
    /// The only process.
    Alone,
    /// One rank of an MPI job.
    #[cfg(feature = "mpi")]
    Mpi(qibase_mpi::MpiExchange),
}

impl Ranks {
    /// Join the MPI job that started this process, if any.
    ///
    /// # Errors
    ///
    /// Started as one of several processes by a process manager, but built
    /// without the `mpi` feature (each would solve alone, all writing the
    /// same files); or MPI does not start.
    pub fn start() -> Result<Ranks, CliError> {
        let Some(n) = launched_ranks() else {
            return Ok(Ranks::Alone);
        };
        #[cfg(feature = "mpi")]
        {
            let _ = n;
            qibase_mpi::MpiExchange::init()
                .map(Ranks::Mpi)
                .map_err(|e| CliError::failure(e.to_string()))
        }
        #[cfg(not(feature = "mpi"))]
        {
            if n > 1 {
                return Err(CliError::input(format!(
                    "started as one of {n} processes of an MPI job, but this qibase was built without the `mpi` feature: build it with `cargo build --release --features mpi` (docs/cluster.md)"
                )));
            }
            Ok(Ranks::Alone)
        }
    }

    /// The exchange the solver shares its work through.
    pub fn exchange(&self) -> &dyn Exchange {
        match self {
            Ranks::Alone => &SingleProcess,
            #[cfg(feature = "mpi")]
            Ranks::Mpi(m) => m,
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
        #[cfg(feature = "mpi")]
        if let Ranks::Mpi(m) = self {
            if m.ranks() > 1 && !collective {
                eprintln!("error: {e} (rank {} of {})", m.rank(), m.ranks());
                m.abort(e.code);
            }
        }
        #[cfg(not(feature = "mpi"))]
        let _ = collective;
        e
    }
}
