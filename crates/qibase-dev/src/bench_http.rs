//! `qibase bench-http`: a load generator for `qibase serve`. Random `query`
//! requests over keep-alive connections, on loopback only, bounded in count
//! and in time; reports requests/s and latency percentiles.
//!
//! By default it starts the server in this process (on 127.0.0.1, a free
//! port) over `--dir`; `--addr` points it at a running server instead,
//! which must be on a loopback address.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use clap::Args;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use indicatif::{ProgressBar, ProgressStyle};

use qibase::with_game;
use qibase::Game;
use qibase::Rng;
use qibase_cli::cli::{game_by_id, CliError, CliResult};
use qibase_cli::server::{self, AppState};

#[derive(Args, Debug)]
pub struct BenchHttpArgs {
    /// Game id whose positions are queried.
    pub game: String,
    /// Tablebase directory of the in-process server.
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// A running server to measure instead (loopback addresses only).
    #[arg(long)]
    pub addr: Option<SocketAddr>,
    /// Keep-alive connections, each sending one request at a time.
    #[arg(long, default_value_t = 64)]
    pub connections: usize,
    /// Requests in all (the run stops at this count or at --seconds).
    #[arg(long, default_value_t = 50_000)]
    pub requests: u64,
    /// Longest run, in seconds.
    #[arg(long, default_value_t = 30.0)]
    pub seconds: f64,
    /// Warm-up requests before measuring (fill the block caches).
    #[arg(long, default_value_t = 2_000)]
    pub warmup: u64,
    /// Leave the principal variation out of the answers (`&pv=false`).
    #[arg(long)]
    pub no_pv: bool,
    /// Worker threads of the in-process server's runtime (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of the random positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Distinct random positions requested (cycled through).
const POOL: usize = 20_000;

/// Random positions of the game, uniformly over its index slots (slots that
/// hold no position are skipped), as request paths.
fn random_paths<G: Game>(g: &G, seed: u64, no_pv: bool) -> Vec<String> {
    let tiers = g.tiers(None);
    let sizes: Vec<u64> = tiers.iter().map(|&t| g.tier_size(t)).collect();
    let total: u64 = sizes.iter().sum();
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(POOL);
    let mut tries = 0u64;
    while out.len() < POOL && tries < 100 * POOL as u64 {
        tries += 1;
        let mut i = rng.next_u64() % total.max(1);
        let mut k = 0;
        while i >= sizes[k] {
            i -= sizes[k];
            k += 1;
        }
        let t = tiers[k];
        let p = g.unrank(t, i);
        if g.rank(t, &p) != i {
            continue;
        }
        let pos = g.format_pos(&p).replace(' ', "_");
        let pv = if no_pv { "&pv=false" } else { "" };
        out.push(format!("/api/v1/{}/query?pos={pos}{pv}", g.id()));
    }
    out
}

/// What the connections share.
struct Shared {
    paths: Vec<String>,
    /// Requests handed out so far.
    next: AtomicU64,
    limit: u64,
    deadline: Instant,
    errors: AtomicUsize,
    done: AtomicU64,
}

/// One connection: requests until the count or the time is used up;
/// returns the latencies in microseconds.
async fn connection(addr: SocketAddr, sh: Arc<Shared>) -> Result<Vec<u32>, String> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    stream.set_nodelay(true).ok();
    let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake: {e}"))?;
    tokio::spawn(conn);
    let host = addr.to_string();
    let mut lat = Vec::new();
    loop {
        let n = sh.next.fetch_add(1, Ordering::Relaxed);
        if n >= sh.limit || Instant::now() >= sh.deadline {
            break;
        }
        let path = &sh.paths[n as usize % sh.paths.len()];
        let req = hyper::Request::get(path.as_str())
            .header("host", &host)
            .body(Empty::<Bytes>::new())
            .map_err(|e| e.to_string())?;
        let t0 = Instant::now();
        let r = send
            .send_request(req)
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        let ok = r.status().is_success();
        r.into_body()
            .collect()
            .await
            .map_err(|e| format!("reading an answer: {e}"))?;
        lat.push(t0.elapsed().as_micros().min(u32::MAX as u128) as u32);
        if !ok {
            sh.errors.fetch_add(1, Ordering::Relaxed);
        }
        sh.done.fetch_add(1, Ordering::Relaxed);
    }
    Ok(lat)
}

/// Run `count` requests (at most `secs` seconds) over `conns` connections.
async fn run_load(
    addr: SocketAddr,
    paths: &[String],
    conns: usize,
    count: u64,
    secs: f64,
    bar: Option<&ProgressBar>,
) -> Result<(Vec<u32>, usize, f64), String> {
    let sh = Arc::new(Shared {
        paths: paths.to_vec(),
        next: AtomicU64::new(0),
        limit: count,
        deadline: Instant::now() + Duration::from_secs_f64(secs),
        errors: AtomicUsize::new(0),
        done: AtomicU64::new(0),
    });
    let t0 = Instant::now();
    let tasks: Vec<_> = (0..conns.max(1))
        .map(|_| tokio::spawn(connection(addr, sh.clone())))
        .collect();
    if let Some(b) = bar {
        while !tasks.iter().all(|t| t.is_finished()) {
            b.set_position(sh.done.load(Ordering::Relaxed));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let mut lat = Vec::new();
    for t in tasks {
        lat.extend(t.await.map_err(|e| e.to_string())??);
    }
    let wall = t0.elapsed().as_secs_f64();
    Ok((lat, sh.errors.load(Ordering::Relaxed), wall))
}

fn percentile(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * q).round() as usize;
    sorted[i] as f64 / 1000.0
}

pub fn run(a: &BenchHttpArgs) -> CliResult {
    if let Some(addr) = a.addr {
        if !addr.ip().is_loopback() {
            return Err(CliError::input(format!(
                "--addr {addr}: the load generator only measures servers on loopback"
            )));
        }
    }
    if a.seconds <= 0.0 || a.seconds > 600.0 {
        return Err(CliError::input("--seconds must be in (0, 600]"));
    }
    let any = game_by_id(&a.game)?;
    let paths = with_game!(any, |g| random_paths(g, a.seed, a.no_pv));
    if paths.is_empty() {
        return Err(CliError::failure("no positions to query"));
    }
    let rt = qibase_cli::cli::serve::runtime(a.threads)?;
    rt.block_on(async {
        let (addr, stop) = match a.addr {
            Some(addr) => (addr, None),
            None => {
                let state = AppState::open(&a.dir).map_err(CliError::failure)?;
                let (listener, addr) = server::bind("127.0.0.1:0".parse().unwrap())
                    .await
                    .map_err(|e| CliError::failure(format!("cannot listen: {e}")))?;
                let (tx, rx) = tokio::sync::oneshot::channel::<()>();
                tokio::spawn(server::serve(listener, Arc::new(state), async {
                    let _ = rx.await;
                }));
                (addr, Some(tx))
            }
        };
        eprintln!(
            "bench-http: {} random {} positions, {} connections, server at {addr}",
            paths.len(),
            a.game,
            a.connections
        );
        // Warm up: fill the block caches (not measured).
        if a.warmup > 0 {
            run_load(addr, &paths, a.connections, a.warmup, a.seconds, None)
                .await
                .map_err(CliError::failure)?;
        }
        let bar = ProgressBar::new(a.requests);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} requests {per_sec} {elapsed}")
                .unwrap(),
        );
        let (mut lat, errors, wall) = run_load(
            addr,
            &paths,
            a.connections,
            a.requests,
            a.seconds,
            Some(&bar),
        )
        .await
        .map_err(CliError::failure)?;
        bar.finish_and_clear();
        if let Some(tx) = stop {
            let _ = tx.send(());
        }
        lat.sort_unstable();
        let n = lat.len();
        println!(
            "bench-http {}{}: {n} requests in {wall:.2} s = {:.0} req/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; {errors} errors; {} connections",
            a.game,
            if a.no_pv { " (no PV)" } else { "" },
            n as f64 / wall,
            percentile(&lat, 0.50),
            percentile(&lat, 0.90),
            percentile(&lat, 0.99),
            percentile(&lat, 1.0),
            a.connections
        );
        if errors > 0 {
            return Err(CliError::failure(format!(
                "{errors} of {n} requests failed"
            )));
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(addr: Option<SocketAddr>) -> BenchHttpArgs {
        BenchHttpArgs {
            game: "weiming".into(),
            dir: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tablebases"),
            addr,
            connections: 4,
            requests: 200,
            seconds: 30.0,
            warmup: 0,
            no_pv: false,
            threads: Some(2),
            seed: 1,
        }
    }

    /// The load generator runs against the in-process server and refuses a
    /// target off loopback (a smoke test: no timing is checked).
    #[test]
    fn runs_and_refuses_non_loopback_targets() {
        run(&args(None)).expect("a run on the committed weiming table");
        let e = run(&args(Some("192.0.2.1:80".parse().unwrap()))).unwrap_err();
        assert_eq!(e.code, 2, "{e}");
    }
}
