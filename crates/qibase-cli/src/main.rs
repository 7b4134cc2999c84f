//! The `qibase` binary: the command line, solving alone (the MPI build is
//! the `qibase-mpi` package's binary).

fn main() {
    qibase_cli::cli::app::main(None);
}
