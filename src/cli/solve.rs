//! `qibase solve` (stub until the solver lands).
use clap::Args;

use super::{CliError, CliResult};

#[derive(Args, Debug)]
pub struct SolveArgs {
    pub games: Vec<String>,
}

pub fn run(_a: &SolveArgs) -> CliResult {
    Err(CliError::failure("solve: not implemented yet"))
}
