//! `qibase-mpi`: the `qibase` command line, whose solves are shared by the
//! ranks of the MPI job that started it (docs/cluster.md).

fn main() {
    qibase_cli::cli::app::main(Some(qibase_mpi::join_job));
}
