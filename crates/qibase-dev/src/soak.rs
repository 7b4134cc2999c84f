//! `qibase-dev soak`: the server under mixed load for a while, on
//! loopback, while its tables change under it.
//!
//! A subset of cannon-chess is solved into a served directory. Then, for
//! `--seconds`: keep-alive clients ask for random positions (with and
//! without the principal variation), others send malformed requests, and
//! slow clients dribble their requests a byte at a time; meanwhile one
//! tier is solved again in a scratch directory and renamed over the
//! served one (under the directory's lock), again and again, and at a
//! third of the run another tier (the one of the most pieces, which no
//! query reads before) is damaged in place. From then on one valid query
//! in four asks a random position of the damaged tier, so that the damage
//! is met in a run of any length.
//!
//! Checked: every answer to a valid query is the library's answer over an
//! undisturbed copy of the tables, or a `corrupt_tablebase` error where
//! the library over a copy with the same damage fails too (zero wrong
//! answers, errors only from the damage, and some errors from it); every
//! malformed request gets a JSON error with a 4xx status; resident memory
//! stays flat; the request rate holds. The figures are printed; any
//! failed check is an error.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use clap::Args;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use serde_json::Value as Json;
use tokio::io::AsyncWriteExt;

use qibase::analysis::{open_oracle, Oracle, SharedOracle};
use qibase::games::{AnyGame, CannonChess};
use qibase::solver::SolveOptions;
use qibase::tablebase::lock::DirLock;
use qibase::tablebase::{game_dir, TierStore};
use qibase::{Notation, Rng, TierKey, Tiers};
use qibase_cli::cli::{CliError, CliResult};
use qibase_cli::server::{self, AppState};

#[derive(Args, Debug, Clone)]
pub struct SoakArgs {
    /// How long the load runs, in seconds.
    #[arg(long, default_value_t = 600.0)]
    pub seconds: f64,
    /// The cannon-chess subset served (at most N pieces a side).
    #[arg(long, default_value_t = 4)]
    pub max_pieces: u32,
    /// Keep-alive clients asking valid queries.
    #[arg(long, default_value_t = 16)]
    pub connections: usize,
    /// Seed of the positions, the damage and the instants.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Scratch directory (default: under the system's temporary directory).
    #[arg(long)]
    pub scratch: Option<PathBuf>,
}

/// What the load counts.
#[derive(Default)]
struct Counts {
    valid: AtomicU64,
    compared: AtomicU64,
    wrong: AtomicU64,
    damage_errors: AtomicU64,
    unexpected_errors: AtomicU64,
    malformed: AtomicU64,
    malformed_bad: AtomicU64,
    slow: AtomicU64,
    replaced: AtomicU64,
    /// Set once the damaged tier is damaged (served and its copy).
    tier_damaged: AtomicBool,
}

/// The positions asked for, and the directories the answers are checked
/// against.
struct Fixture {
    /// The game (solved through `AnyGame::solve`, which the library
    /// compiles; the rest reads it as [`Fixture::g`]).
    any: &'static AnyGame,
    /// The served directory.
    served: PathBuf,
    /// A copy with the served directory's damage (where errors may be).
    damaged: PathBuf,
    /// The library over an undisturbed copy (what every answer must be),
    /// opened once. (Opened afresh for each check, as before, its blocks
    /// took new keys in the process's block cache each time, never asked
    /// again: the cache's memory grew towards its budget, an eighth of
    /// the machine's memory, from 1.5 to 2.4 GiB over a 10-minute run,
    /// which the memory check rightly failed.)
    clean_oracle: SharedOracle<'static, CannonChess>,
    /// The library over `damaged`, opened once it is damaged (opened
    /// before, it would answer from blocks it decoded before the damage).
    damaged_oracle: OnceLock<SharedOracle<'static, CannonChess>>,
    positions: Vec<(TierKey, <CannonChess as qibase::Rules>::Pos)>,
    /// The tier solved again and replaced, and the one damaged.
    replaced: TierKey,
    damaged_tier: TierKey,
    max_pieces: u32,
}

pub fn run(a: &SoakArgs) -> CliResult {
    if a.seconds.is_nan() || a.seconds <= 0.0 {
        return Err(CliError::input("--seconds must be positive"));
    }
    let base = a.scratch.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("qibase-soak-{}", std::process::id()))
    });
    let _ = std::fs::remove_dir_all(&base);
    let fx = Arc::new(fixture(&base, a)?);
    let rt = qibase_cli::cli::serve::runtime(None)?;
    let report = rt.block_on(load(fx.clone(), a.clone()));
    let _ = std::fs::remove_dir_all(&base);
    report
}

/// Solve the subset into the served directory and its two copies, and
/// choose the positions and the tiers.
fn fixture(base: &Path, a: &SoakArgs) -> Result<Fixture, CliError> {
    let any: &'static AnyGame = Box::leak(Box::new(
        AnyGame::from_id("cannon-chess").map_err(CliError::from)?,
    ));
    let AnyGame::CannonChess(g) = any else {
        unreachable!("cannon-chess is of its family")
    };
    let dirs = ["served", "clean", "damaged"].map(|d| base.join(d));
    for d in &dirs {
        let opts = SolveOptions {
            max_pieces: Some(a.max_pieces),
            ..SolveOptions::new(&d)
        };
        any.solve(&opts).map_err(CliError::from)?;
    }
    let tiers = g.tiers(Some(a.max_pieces));
    // The tiers come in order of their piece count, and a move never adds
    // a piece: no query of another tier reads the last. It is damaged;
    // the largest of the others is replaced.
    let (&damaged_tier, others) = tiers.split_last().expect("a subset has tiers");
    let replaced = *others
        .iter()
        .max_by_key(|&&t| g.tier_size(t))
        .expect("a subset has two tiers or more");
    let mut rng = Rng::new(a.seed);
    let mut positions = Vec::new();
    // None of the damaged tier, so that the server reads none of its
    // blocks before the damage: its block cache would keep answering
    // (rightly) from the blocks it decoded, and on a small subset the
    // blocks of a tier asked from the start are all in the cache by then.
    while positions.len() < 5000 {
        let t = others[rng.below(others.len())];
        if let Some(p) = try_position(g, t, &mut rng) {
            positions.push((t, p));
        }
    }
    let [served, clean, damaged] = dirs;
    let (clean_oracle, _) = open_oracle(g, &clean).map_err(CliError::from)?;
    Ok(Fixture {
        any,
        served,
        damaged,
        clean_oracle,
        damaged_oracle: OnceLock::new(),
        positions,
        replaced,
        damaged_tier,
        max_pieces: a.max_pieces,
    })
}

impl Fixture {
    /// The game as its own type.
    fn g(&self) -> &'static CannonChess {
        let AnyGame::CannonChess(g) = self.any else {
            unreachable!("cannon-chess is of its family")
        };
        g
    }

    /// A random position of the damaged tier (which `positions` leaves
    /// out), drawn afresh each time from the whole tier.
    fn damaged_tier_position(
        &self,
        rng: &mut Rng,
    ) -> (TierKey, <CannonChess as qibase::Rules>::Pos) {
        let t = self.damaged_tier;
        loop {
            if let Some(p) = try_position(self.g(), t, rng) {
                return (t, p);
            }
        }
    }
}

/// The position of a random index of tier `t`, if that index is one
/// (some indices of a tier name no legal position).
fn try_position(
    g: &CannonChess,
    t: TierKey,
    rng: &mut Rng,
) -> Option<<CannonChess as qibase::Rules>::Pos> {
    let i = rng.next_u64() % g.tier_size(t);
    let p = g.unrank(t, i);
    (g.rank(t, &p) == i).then_some(p)
}

/// The library's answer to `pos` through `oracle`, as JSON (or the
/// error's code).
fn reference(
    g: &CannonChess,
    oracle: &dyn Oracle<CannonChess>,
    p: &<CannonChess as qibase::Rules>::Pos,
    pv: bool,
) -> Result<Json, String> {
    qibase_cli::api::query(g, oracle, p, pv)
        .map(|j| serde_json::to_value(j).expect("JSON"))
        .map_err(|e| qibase_cli::api::ApiError::from(e).json().code)
}

async fn load(fx: Arc<Fixture>, a: SoakArgs) -> CliResult {
    let state = AppState::open(&fx.served).map_err(CliError::failure)?;
    let (listener, addr) = server::bind("127.0.0.1:0".parse().unwrap())
        .await
        .map_err(|e| CliError::failure(format!("cannot listen: {e}")))?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server::serve(listener, Arc::new(state), async {
        let _ = rx.await;
    }));
    let counts = Arc::new(Counts::default());
    let stop = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for k in 0..a.connections {
        let (fx, c, s) = (fx.clone(), counts.clone(), stop.clone());
        tasks.push(tokio::spawn(valid_client(
            addr,
            fx,
            c,
            s,
            a.seed + k as u64,
        )));
    }
    for _ in 0..2 {
        let (c, s) = (counts.clone(), stop.clone());
        tasks.push(tokio::spawn(malformed_client(addr, c, s)));
    }
    for _ in 0..4 {
        let (c, s) = (counts.clone(), stop.clone());
        tasks.push(tokio::spawn(slow_client(addr, c, s)));
    }
    let writer = {
        let (fx, c, s, secs) = (fx.clone(), counts.clone(), stop.clone(), a.seconds);
        tokio::task::spawn_blocking(move || change_tables(&fx, &c, &s, secs))
    };
    // One sample a second: resident memory and requests done.
    let mut samples: Vec<(u64, u64)> = Vec::new();
    while t0.elapsed().as_secs_f64() < a.seconds {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let rss = resident_bytes().unwrap_or(0);
        samples.push((rss, counts.valid.load(Ordering::Relaxed)));
    }
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.map_err(|e| CliError::failure(e.to_string()))??;
    }
    writer
        .await
        .map_err(|e| CliError::failure(e.to_string()))??;
    let _ = tx.send(());
    verdict(&counts, &samples, t0.elapsed().as_secs_f64())
}

/// Requests random valid queries, half with the principal variation,
/// and checks a sample of the answers against the library.
async fn valid_client(
    addr: SocketAddr,
    fx: Arc<Fixture>,
    c: Arc<Counts>,
    stop: Arc<AtomicBool>,
    seed: u64,
) -> CliResult {
    let mut send = connect(addr).await?;
    let mut rng = Rng::new(seed);
    let g = fx.g();
    while !stop.load(Ordering::Relaxed) {
        let (t, p) = if c.tier_damaged.load(Ordering::Relaxed) && rng.below(4) == 0 {
            fx.damaged_tier_position(&mut rng)
        } else {
            fx.positions[rng.below(fx.positions.len())]
        };
        let pv = rng.chance(50);
        let path = format!(
            "/api/v1/{}/query?pos={}{}",
            g.id(),
            g.format_pos(&p).replace(' ', "_"),
            if pv { "" } else { "&pv=false" }
        );
        let (status, body) = match get(&mut send, addr, &path).await {
            Ok(r) => r,
            // The server closes a keep-alive connection that stays idle
            // past its header timeout (this client idles while it asks
            // the library for the reference answer); a request sent as it
            // closes is never answered. An HTTP client sends such a GET
            // again on a new connection, once.
            Err(_) => {
                send = connect(addr).await?;
                get(&mut send, addr, &path).await?
            }
        };
        c.valid.fetch_add(1, Ordering::Relaxed);
        // Every error is checked; one answer in eight is compared.
        let check = status != 200 || rng.below(8) == 0;
        if !check {
            continue;
        }
        let (g2, fx2) = (g, fx.clone());
        let want =
            tokio::task::spawn_blocking(move || reference(g2, fx2.clean_oracle.as_ref(), &p, pv))
                .await
                .map_err(|e| CliError::failure(e.to_string()))?;
        if status == 200 {
            c.compared.fetch_add(1, Ordering::Relaxed);
            if want.as_ref() != Ok(&body) {
                c.wrong.fetch_add(1, Ordering::Relaxed);
                eprintln!("wrong answer to {path}: {body} (want {want:?})");
            }
            continue;
        }
        let code = body["code"].as_str().unwrap_or("").to_string();
        let fx2 = fx.clone();
        let there = tokio::task::spawn_blocking(move || {
            match fx2.damaged_oracle.get() {
                Some(o) => reference(g2, o.as_ref(), &p, pv),
                // Not damaged yet: the copy holds the clean tables, which
                // answer.
                None => Ok(Json::Null),
            }
        })
        .await
        .map_err(|e| CliError::failure(e.to_string()))?;
        if code == "corrupt_tablebase" && there.is_err() {
            c.damage_errors.fetch_add(1, Ordering::Relaxed);
        } else {
            c.unexpected_errors.fetch_add(1, Ordering::Relaxed);
            eprintln!("unexpected error for {path} (tier {t}): {status} {body}");
        }
    }
    Ok(())
}

/// Malformed requests: each must get a JSON error with a 4xx status.
async fn malformed_client(addr: SocketAddr, c: Arc<Counts>, stop: Arc<AtomicBool>) -> CliResult {
    let long = format!("/api/v1/cannon-chess/query?pos={}", "X".repeat(20_000));
    let bad = [
        "/api/v1/cannon-chess/query?pos=garbage",
        "/api/v1/cannon-chess/query",
        "/api/v1/nope/query?pos=x",
        "/api/v1/cannon-chess/query?pos=OOOO/O..O/..../X..X/XXXX_X_-&pv=maybe",
        "/api/v1/cannon-chess/query?pos=%ZZ",
        "/api/v1/cannon-chess/bestmove?pos=OOOO/O..O/..../X..X/XXXX_X_-&difficulty=godlike",
        "/api/v1/cannon-chess/moves?pos=OOOO/O..O/..../X..X/XXXX_X_-&move=zz",
        long.as_str(),
    ];
    let mut send = connect(addr).await?;
    let mut k = 0;
    while !stop.load(Ordering::Relaxed) {
        let path = bad[k % bad.len()];
        k += 1;
        let (status, body) = match get(&mut send, addr, path).await {
            Ok(r) => r,
            // The server may close a connection after a bad request.
            Err(_) => {
                send = connect(addr).await?;
                continue;
            }
        };
        c.malformed.fetch_add(1, Ordering::Relaxed);
        if !(400..500).contains(&status) || !body["error"].is_string() {
            c.malformed_bad.fetch_add(1, Ordering::Relaxed);
            eprintln!("malformed {path}: {status} {body}");
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    Ok(())
}

/// A client that writes its request a byte every 100 ms, then waits for
/// whatever comes (an answer, or the server closing on it).
async fn slow_client(addr: SocketAddr, c: Arc<Counts>, stop: Arc<AtomicBool>) -> CliResult {
    let req = format!("GET /api/v1/games HTTP/1.1\r\nhost: {addr}\r\n\r\n");
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut s) = tokio::net::TcpStream::connect(addr).await else {
            continue;
        };
        for b in req.as_bytes() {
            if stop.load(Ordering::Relaxed) || s.write_all(&[*b]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        c.slow.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// Solve the replaced tier again and rename it over the served one, over
/// and over; damage the other tier (served and its copy) at a third of
/// the run.
fn change_tables(fx: &Fixture, c: &Counts, stop: &AtomicBool, secs: f64) -> CliResult {
    let t0 = Instant::now();
    let mut damaged = false;
    let mut round = 0u64;
    let game = fx.g().id();
    while !stop.load(Ordering::Relaxed) {
        if !damaged && t0.elapsed().as_secs_f64() > secs / 3.0 {
            for dir in [&fx.served, &fx.damaged] {
                damage(&TierStore::new(fx.g(), dir).path(fx.damaged_tier))?;
            }
            let (oracle, _) = open_oracle(fx.g(), &fx.damaged).map_err(CliError::from)?;
            let _ = fx.damaged_oracle.set(oracle);
            damaged = true;
            c.tier_damaged.store(true, Ordering::Relaxed);
        }
        round += 1;
        let scratch = fx.served.with_file_name(format!("resolve-{round}"));
        let opts = SolveOptions {
            max_pieces: Some(fx.max_pieces),
            ..SolveOptions::new(&scratch)
        };
        fx.any.solve(&opts).map_err(CliError::from)?;
        let from = TierStore::new(fx.g(), &scratch).path(fx.replaced);
        let to = TierStore::new(fx.g(), &fx.served).path(fx.replaced);
        {
            let _lock = DirLock::acquire(&game_dir(&fx.served, game)).map_err(CliError::from)?;
            std::fs::rename(&from, &to)
                .map_err(|e| CliError::failure(format!("cannot replace {}: {e}", to.display())))?;
        }
        c.replaced.fetch_add(1, Ordering::Relaxed);
        let _ = std::fs::remove_dir_all(&scratch);
        std::thread::sleep(Duration::from_millis(500));
    }
    Ok(())
}

/// Flip 64 bytes at each of 32 places spread over the file after its
/// first eighth (the header and index), in place: spread, so that the
/// queries of the damaged tier meet damaged blocks within a short run.
fn damage(path: &Path) -> CliResult {
    use std::io::{Read, Seek, SeekFrom, Write};
    const PLACES: u64 = 32;
    let fail = |e: std::io::Error| CliError::failure(format!("{}: {e}", path.display()));
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(fail)?;
    let len = f.metadata().map_err(fail)?.len();
    let start = len / 8;
    for k in 0..PLACES {
        let at = start + (len - start) * k / PLACES;
        let mut buf = [0u8; 64];
        f.seek(SeekFrom::Start(at)).map_err(fail)?;
        let n = f.read(&mut buf).map_err(fail)?;
        for b in &mut buf[..n] {
            *b ^= 0xA5;
        }
        f.seek(SeekFrom::Start(at)).map_err(fail)?;
        f.write_all(&buf[..n]).map_err(fail)?;
    }
    f.sync_all().map_err(fail)
}

type Sender = hyper::client::conn::http1::SendRequest<Empty<Bytes>>;

async fn connect(addr: SocketAddr) -> Result<Sender, CliError> {
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| CliError::failure(format!("cannot connect to {addr}: {e}")))?;
    stream.set_nodelay(true).ok();
    let (send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| CliError::failure(format!("HTTP handshake: {e}")))?;
    tokio::spawn(conn);
    Ok(send)
}

/// GET `path`: the status and the body as JSON (`null` if it is not).
async fn get(send: &mut Sender, addr: SocketAddr, path: &str) -> Result<(u16, Json), CliError> {
    let req = hyper::Request::get(path)
        .header("host", addr.to_string())
        .body(Empty::<Bytes>::new())
        .map_err(|e| CliError::failure(e.to_string()))?;
    let r = send
        .send_request(req)
        .await
        .map_err(|e| CliError::failure(format!("request failed: {e}")))?;
    let status = r.status().as_u16();
    let body = r
        .into_body()
        .collect()
        .await
        .map_err(|e| CliError::failure(format!("reading an answer: {e}")))?
        .to_bytes();
    Ok((status, serde_json::from_slice(&body).unwrap_or(Json::Null)))
}

/// Seconds a run must last for its memory to be judged.
const MEMORY_JUDGED_AFTER: f64 = 60.0;

/// The figures, and the checks on them.
fn verdict(c: &Counts, samples: &[(u64, u64)], secs: f64) -> CliResult {
    let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
    // Memory and rate: the second quarter of the run against the last
    // (the first warms the caches up).
    let q = samples.len() / 4;
    let window = |s: &[(u64, u64)]| -> (u64, f64) {
        let rss = s.iter().map(|x| x.0).max().unwrap_or(0);
        let rate = match (s.first(), s.last()) {
            (Some(a), Some(b)) if s.len() > 1 => (b.1 - a.1) as f64 / (s.len() - 1) as f64,
            _ => 0.0,
        };
        (rss, rate)
    };
    let (early, late) = if q >= 2 {
        (
            window(&samples[q..2 * q]),
            window(&samples[samples.len() - q..]),
        )
    } else {
        (window(samples), window(samples))
    };
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    println!(
        "soak: {:.0} s, {} valid queries ({:.0}/s), {} compared with the library, {} wrong; {} errors from the damaged tier, {} other errors; {} malformed requests ({} not a 4xx JSON error); {} slow clients; {} tier replacements; resident memory {:.1} MiB early, {:.1} MiB late; rate {:.0}/s early, {:.0}/s late",
        secs,
        n(&c.valid),
        n(&c.valid) as f64 / secs.max(1e-9),
        n(&c.compared),
        n(&c.wrong),
        n(&c.damage_errors),
        n(&c.unexpected_errors),
        n(&c.malformed),
        n(&c.malformed_bad),
        n(&c.slow),
        n(&c.replaced),
        mib(early.0),
        mib(late.0),
        early.1,
        late.1,
    );
    let mut failed = Vec::new();
    if n(&c.wrong) > 0 {
        failed.push("wrong answers");
    }
    if n(&c.unexpected_errors) > 0 {
        failed.push("errors outside the damaged tier");
    }
    if n(&c.malformed_bad) > 0 {
        failed.push("malformed requests without a 4xx JSON error");
    }
    if n(&c.compared) == 0 || n(&c.replaced) == 0 {
        failed.push("too little done to judge");
    }
    // Without this the damage check could pass by never being tried.
    if c.tier_damaged.load(Ordering::Relaxed) && n(&c.damage_errors) == 0 {
        failed.push("no query met the damaged tier");
    }
    // Judged on a minute or more only: the process also holds the load
    // generator and the reference lookups, whose allocations were still
    // growing 5-10 s into a 20 s run on an idle machine (114 -> 180 MiB
    // at 4,400 requests/s), which a short run cannot tell from a leak.
    if secs >= MEMORY_JUDGED_AFTER && late.0 as f64 > early.0 as f64 * 1.25 + (32u64 << 20) as f64 {
        failed.push("resident memory grew");
    }
    if late.1 < early.1 * 0.5 {
        failed.push("the request rate fell");
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::failure(format!(
            "soak failed: {}",
            failed.join(", ")
        )))
    }
}

/// This process's resident memory now (Linux: `VmRSS` of /proc/self/status).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short soak CI runs: every check of the long one, for 20 s.
    #[test]
    fn a_twenty_second_soak_passes_its_checks() {
        let a = SoakArgs {
            seconds: 20.0,
            max_pieces: 3,
            connections: 4,
            seed: 7,
            scratch: None,
        };
        run(&a).expect("the soak's checks");
    }

    /// The counts judge: a wrong answer or an error outside the damage
    /// fails the soak.
    #[test]
    fn a_wrong_answer_fails_the_soak() {
        let c = Counts::default();
        c.compared.store(10, Ordering::Relaxed);
        c.replaced.store(1, Ordering::Relaxed);
        assert!(verdict(&c, &[(1, 0), (1, 10)], 2.0).is_ok());
        c.wrong.store(1, Ordering::Relaxed);
        assert!(verdict(&c, &[(1, 0), (1, 10)], 2.0).is_err());
    }

    /// A damaged tier that no query met fails the soak: its damage check
    /// was never tried.
    #[test]
    fn damage_that_no_query_met_fails_the_soak() {
        let c = Counts::default();
        c.compared.store(10, Ordering::Relaxed);
        c.replaced.store(1, Ordering::Relaxed);
        c.tier_damaged.store(true, Ordering::Relaxed);
        assert!(verdict(&c, &[(1, 0), (1, 10)], 2.0).is_err());
        c.damage_errors.store(1, Ordering::Relaxed);
        assert!(verdict(&c, &[(1, 0), (1, 10)], 2.0).is_ok());
    }
}
