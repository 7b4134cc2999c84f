//! `qibase serve`: start the HTTP server (see docs/http-api.md).

use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::{CliError, CliResult};
use crate::server::{self, AppState};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Tablebase directory.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Address to bind; anything but loopback makes the server reachable
    /// from other machines (a warning is printed).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Port; 0 picks a free one.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Worker threads of the async runtime (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// The multi-threaded tokio runtime of the server (and of `bench-http`),
/// with `threads` workers (default: one per core).
pub fn runtime(threads: Option<usize>) -> Result<tokio::runtime::Runtime, CliError> {
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    rt.enable_all();
    if let Some(n) = threads {
        rt.worker_threads(n.max(1));
    }
    rt.build()
        .map_err(|e| CliError::failure(format!("cannot start the async runtime: {e}")))
}

pub fn run(a: &ServeArgs) -> CliResult {
    let rt = runtime(a.threads)?;
    let state = AppState::open(&a.dir).map_err(CliError::failure)?;
    rt.block_on(async {
        let (listener, addr) = server::bind(SocketAddr::new(a.host, a.port))
            .await
            .map_err(|e| {
                CliError::failure(format!("cannot listen on {}:{}: {e}", a.host, a.port))
            })?;
        {
            // The first line, for scripts and tests; then what is served.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "listening on http://{addr}");
            for (_, s) in &state.games {
                let sum = s.summary();
                let _ = writeln!(out, "  {:<18} {}", sum.id, sum.source);
            }
            let _ = out.flush();
        }
        if !a.host.is_loopback() {
            eprintln!(
                "warning: listening on {} makes the server reachable from other machines",
                a.host
            );
        }
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
            eprintln!("shutting down");
        };
        server::serve(listener, Arc::new(state), shutdown)
            .await
            .map_err(|e| CliError::failure(format!("server failed: {e}")))
    })
}
