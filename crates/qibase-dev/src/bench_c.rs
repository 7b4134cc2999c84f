//! `qibase-dev bench-c`: lookups through the C library's `qb_probe` (the
//! position as a NUL-terminated string, as a C app calls it) against the
//! Rust prober of `bench-probe` (a parsed position) and against parsing
//! plus probing in Rust, on positions drawn as `bench-probe` draws them.
//! Cold lookups (each position once, the block cache limited to
//! `--cache-mb`) and repeated ones (1,024 positions over and over), each
//! method on its own sample, the methods alternated over `--rounds`
//! rounds; CPU time of the thread, since the machine may be loaded.

// Calls the C library's entry points through their C ABI, as a C caller
// does: raw pointers to NUL-terminated strings and to the output value.
#![allow(unsafe_code)]

use std::ffi::{c_char, CStr, CString};
use std::hint::black_box;
use std::path::PathBuf;

use clap::Args;

use qibase::tablebase::{BlockCache, Tablebase};
use qibase::{with_game, Notation};
use qibase_c::{qb_close, qb_last_error, qb_open, qb_probe, qb_status, qb_tablebase, qb_value};
use qibase_cli::cli::{game_by_id, CliError, CliResult};

use crate::bench_probe::{clocked, sample};

#[derive(Args, Debug)]
pub struct BenchCArgs {
    /// Game id.
    pub game: String,
    #[arg(long, default_value = "tablebases")]
    pub dir: PathBuf,
    /// Cold lookups per method and round.
    #[arg(long, default_value_t = 200_000)]
    pub probes: usize,
    /// Size of the shared block cache during the run (MiB).
    #[arg(long, default_value_t = 16)]
    pub cache_mb: usize,
    /// Rounds, each timing every method once.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
}

type ProbeFn = unsafe extern "C" fn(*const qb_tablebase, *const c_char, *mut qb_value) -> qb_status;

/// The C library's message for a failed call.
fn c_error(what: &str) -> CliError {
    // SAFETY: qb_last_error returns a NUL-terminated string valid until
    // this thread's next call into the library; it is copied at once.
    let msg = unsafe { CStr::from_ptr(qb_last_error()) };
    CliError::failure(format!("{what}: {}", msg.to_string_lossy()))
}

/// A C handle on the game's tables, closed on drop.
struct Handle(*mut qb_tablebase);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: a handle from qb_open, closed once, no call in flight.
        unsafe { qb_close(self.0) };
    }
}

pub fn run(a: &BenchCArgs) -> CliResult {
    let any = game_by_id(&a.game)?;
    if !BlockCache::configure(a.cache_mb << 20) {
        return Err(CliError::failure("block cache already in use"));
    }
    let dir = CString::new(a.dir.to_string_lossy().as_bytes())
        .map_err(|_| CliError::failure("the directory has a NUL byte"))?;
    let game = CString::new(a.game.as_bytes())
        .map_err(|_| CliError::failure("the game has a NUL byte"))?;
    let mut raw = std::ptr::null_mut();
    // SAFETY: two NUL-terminated strings and a writable handle pointer.
    if unsafe { qb_open(dir.as_ptr(), game.as_ptr(), &mut raw) } != qb_status::QB_OK {
        return Err(c_error("qb_open"));
    }
    let handle = Handle(raw);
    // Called through a pointer the optimiser cannot see through, as a C
    // caller calls into the library: no inlining into the loop.
    let probe: ProbeFn = black_box(qb_probe);
    with_game!(any, |g| {
        let tb = Tablebase::open(g, &a.dir);
        let tiers = qibase_cli::cli::verify::present_tiers(g, &a.dir)?;
        for &t in &tiers {
            tb.open_tier(t)?;
        }
        let texts = |ps: &[_]| -> Vec<CString> {
            ps.iter()
                .map(|p| CString::new(g.format_pos(p)).expect("no NUL in a position"))
                .collect()
        };
        let c_probe = |s: &CString| -> Result<u64, CliError> {
            let mut v = qb_value {
                wdl: 0,
                remoteness: 0,
            };
            // SAFETY: a live handle, a NUL-terminated string, a writable value.
            if unsafe { probe(handle.0, s.as_ptr(), &mut v) } != qb_status::QB_OK {
                return Err(c_error("qb_probe"));
            }
            Ok((v.wdl + 2) as u64 * 1000 + v.remoteness.max(0) as u64)
        };
        let rs_probe =
            |p: &_| -> Result<u64, CliError> { Ok(tb.probe(p)?.pack().to_bits() as u64) };
        let rs_parse_probe = |s: &CString| -> Result<u64, CliError> {
            let text = s.to_str().map_err(|e| CliError::failure(e.to_string()))?;
            let p = g
                .parse_pos(text)
                .map_err(|e| CliError::failure(e.to_string()))?;
            Ok(tb.probe(&p)?.pack().to_bits() as u64)
        };
        let mut rows: Vec<(&str, Vec<f64>)> =
            ["Rust probe (parsed)", "Rust parse + probe", "C qb_probe"]
                .into_iter()
                .map(|n| (n, Vec::new()))
                .collect();
        let mut hot_rows = rows.clone();
        for round in 0..a.rounds {
            for (m, row) in rows.iter_mut().enumerate() {
                let ps = sample(g, &tiers, a.probes, 1000 + 10 * round as u64 + m as u64);
                let ss = texts(&ps);
                let (r, _, cpu) = clocked(|| -> Result<u64, CliError> {
                    let mut s = 0u64;
                    for i in 0..ps.len() {
                        s += match m {
                            0 => rs_probe(&ps[i])?,
                            1 => rs_parse_probe(&ss[i])?,
                            _ => c_probe(&ss[i])?,
                        };
                    }
                    Ok(s)
                });
                black_box(r?);
                row.1.push(cpu * 1e9 / ps.len() as f64);
            }
            let ps = sample(g, &tiers, 1024, 5000 + round as u64);
            let ss = texts(&ps);
            for p in &ps {
                rs_probe(p)?;
            }
            let reps = 2_000_000 / ps.len();
            for (m, row) in hot_rows.iter_mut().enumerate() {
                let (r, _, cpu) = clocked(|| -> Result<u64, CliError> {
                    let mut s = 0u64;
                    for _ in 0..reps {
                        for i in 0..ps.len() {
                            s += match m {
                                0 => rs_probe(&ps[i])?,
                                1 => rs_parse_probe(&ss[i])?,
                                _ => c_probe(&ss[i])?,
                            };
                        }
                    }
                    Ok(s)
                });
                black_box(r?);
                row.1.push(cpu * 1e9 / (reps * ps.len()) as f64);
            }
        }
        report("cold", &rows);
        report("repeated", &hot_rows);
        Ok(())
    })
}

/// One line per method: its ns per lookup in each round and the median,
/// then the C call's ratio to each Rust method.
fn report(what: &str, rows: &[(&str, Vec<f64>)]) {
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!("{what} lookups, ns of CPU time each (rounds; median):");
    for (name, v) in rows {
        let each: Vec<String> = v.iter().map(|x| format!("{x:.0}")).collect();
        println!("  {name:<20} {} ; {:.0}", each.join(" "), median(v));
    }
    let c = median(&rows[2].1);
    println!(
        "  C / Rust probe {:.2}x, C / Rust parse + probe {:.2}x",
        c / median(&rows[0].1),
        c / median(&rows[1].1)
    );
}
