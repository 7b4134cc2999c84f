//! Outside software some tests need (a browser, MPI's launcher): found on
//! `PATH`, or the test is skipped with one line that says what to install.
//!
//! Under `CI=true` a missing program fails the test instead: CI installs
//! everything the suite needs (`.ci/run`), so there a missing program is a
//! broken set-up, and a silent skip would hide it.

use std::io::Write;
use std::path::Path;

/// A program a test runs, and how a user gets it.
pub struct Tool {
    /// Any of these names on `PATH` will do (distributions name browsers
    /// differently).
    pub programs: &'static [&'static str],
    /// The command that installs it (Debian and Ubuntu package names).
    pub install: &'static str,
}

/// The WebDriver server the browser tests drive Chromium through.
pub const CHROMEDRIVER: Tool = Tool {
    programs: &["chromedriver"],
    install: "sudo apt-get install chromium chromium-driver fonts-noto-cjk",
};

/// The browser itself (chromedriver starts it).
pub const CHROMIUM: Tool = Tool {
    programs: &["chromium", "chromium-browser", "google-chrome"],
    install: "sudo apt-get install chromium chromium-driver fonts-noto-cjk",
};

/// MPICH's launcher, for the solves of MPI jobs.
pub const MPIEXEC: Tool = Tool {
    programs: &["mpiexec"],
    install: "sudo apt-get install mpich libmpich-dev libclang-dev",
};

/// Whether every tool in `tools` is on `PATH`; the calling test returns
/// early when not. A missing tool panics under `CI=true`; elsewhere it is
/// named on the terminal, with its install command.
///
/// The line goes to the process's standard error directly, not through
/// `eprintln!`: the test harness captures `eprintln!` of a passing test
/// and would hide it, while a direct write shows in plain `cargo test`.
pub fn available(tools: &[&Tool]) -> bool {
    let Some(missing) = tools
        .iter()
        .find(|t| !t.programs.iter().any(|p| on_path(p)))
    else {
        return true;
    };
    let line = format!(
        "{} not found; install it with `{}`",
        missing.programs.join(" or "),
        missing.install
    );
    // libtest names each test's thread after the test.
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line} (CI=true: the suite's outside software must be installed)");
    }
    let _ = writeln!(std::io::stderr().lock(), "skipped {test}: {line}");
    false
}

/// Whether an executable file `program` is in a directory of `PATH`.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| executable(&d.join(program))))
}
