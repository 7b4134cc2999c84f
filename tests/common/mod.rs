//! Helpers shared by the tests that drive the `qibase` binary.
#![allow(dead_code)] // each test crate uses a different subset

use std::path::PathBuf;
use std::process::{Command, Output};

/// Run the built binary with `args` and collect its output.
pub fn qibase(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_qibase"))
        .args(args)
        .output()
        .expect("run qibase")
}

/// A fresh (removed if present) directory under the system temp dir, unique
/// to this test process and `name`.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("qibase-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}
