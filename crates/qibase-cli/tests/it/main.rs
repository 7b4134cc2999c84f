//! The command line's integration tests, one binary: every command through
//! the built `qibase` binary, the HTTP server in-process, the web page in
//! headless Chromium, tablebase files and their damage (a file truncated
//! under a running process included).

mod annotate;
mod big_boards;
mod browser;
mod browser_explore;
mod cli_rules;
mod cluster;
mod common;
mod compact;
mod dir_lock;
mod engine;
mod faults;
mod fuzz_replay;
mod play;
mod puzzles;
mod report;
mod server;
mod server_explore;
mod solve_cli;
mod spill;
mod tablebase_errors;
mod tablebase_format;
mod truncated;
