//! The `qibase` command line as a library: the commands, the one JSON
//! vocabulary of every JSON answer, the HTTP server with its web page and
//! the research report. The binaries (`src/main.rs`, and `qibase-mpi` for MPI clusters) run
//! [`cli::app::main`]; `qibase-dev`'s load generator runs the server in-process.
//!
//! * [`api`] — the one JSON vocabulary of every JSON answer (CLI, engine, HTTP);
//! * [`server`] — `qibase serve`: the HTTP API and the web page;
//! * [`report`] — the research report of a solved game (markdown and SVG);
//! * [`cli`] — the `qibase` commands;
//! * [`hint`] — the words for the library's errors, with the way out.

pub mod api;
pub mod cli;
#[doc(hidden)]
pub mod fuzzing;
pub mod hint;
pub mod report;
pub mod server;
