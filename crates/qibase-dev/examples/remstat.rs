//! Development measurement (not a test, not the product CLI): what
//! random-access-friendly remoteness codings would cost on solved tables,
//! the measurement behind format 5's Rice codes.
//!
//! `cargo run --release --example remstat -- GAME DIR`
//!
//! Per segment size: a fixed-width code per (segment, class) ("pfor") and
//! a Rice code per (segment, class), each with a 12-bit header, over the
//! used slots only (unused slots filled as draws cost no remoteness); and
//! the WDL quad entropy with unused slots filled as the previous value or
//! as draws. Bits per used slot, beside the table's own remoteness
//! section.
use std::path::PathBuf;

use qibase::games::AnyGame;
use qibase::tablebase::TierStore;
use qibase::with_game;
use qibase::Tiers;

const SEGS: [usize; 4] = [16, 32, 64, 128];

/// Bits of one class's Rice codes in one segment (`rs`: the remoteness
/// halved, the parity being the class's): a 12-bit header (base, k, parity
/// bit, as format 5 writes it) and the best parameter's codes.
fn rice_bits(rs: &[u16]) -> f64 {
    let mn = *rs.iter().min().expect("a class present in the segment");
    let best = (0..8)
        .map(|k| {
            rs.iter()
                .map(|&r| ((r - mn) >> k) as f64 + 1.0 + k as f64)
                .sum::<f64>()
        })
        .fold(f64::MAX, f64::min);
    12.0 + best
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let any = AnyGame::from_id(&args[0]).expect("game");
    let dir = PathBuf::from(&args[1]);
    with_game!(any, |g| {
        let mut used_total = 0u64;
        // per segment size: pfor bits, rice bits
        let mut pfor = [0f64; SEGS.len()];
        let mut rice = [0f64; SEGS.len()];
        let mut rem_table = 0u64;
        let mut rice_fill = 0f64; // seg 64, unused filled with the previous value
        let mut wdl_h = [[[0u64; 81]; 9]; 2]; // fill prev / fill draw

        let store = TierStore::new(g, &dir);
        for t in g.tiers(None) {
            let f = store.open(t).expect("open");
            rem_table += f.section_bytes()[3];
            // The measurement works on the raw words of the packing
            // (qibase::Packed: draw 1, loss 2 + 2r, win 3 + 2r).
            let vals: Vec<u16> = f
                .read_all()
                .expect("read")
                .iter()
                .map(|p| p.to_bits())
                .collect();
            let n = vals.len() as u64;
            let mut used = vec![false; n as usize];
            let mut buf = Vec::new();
            let mut lo = 0;
            while lo < n {
                let hi = (lo + (1 << 20)).min(n);
                buf.clear();
                g.used_slots(t, lo..hi, &mut buf);
                for &(i, _) in &buf {
                    used[i as usize] = true;
                }
                lo = hi;
            }
            used_total += used.iter().filter(|&&u| u).count() as u64;
            for (fi, fill_draw) in [false, true].into_iter().enumerate() {
                let mut prev = 1u16;
                let filled: Vec<u16> = vals
                    .iter()
                    .zip(&used)
                    .map(|(&v, &u)| {
                        if u {
                            prev = v;
                            v
                        } else if fill_draw {
                            1
                        } else {
                            prev
                        }
                    })
                    .collect();
                let wdl = |v: u16| {
                    if v == 1 {
                        0usize
                    } else if v & 1 == 0 {
                        1
                    } else {
                        2
                    }
                };
                for blk in filled.chunks(512) {
                    let mut ctx = 0usize;
                    for q in blk.chunks(4) {
                        let last = wdl(*q.last().unwrap());
                        let mut d = [last; 4];
                        for (k, &v) in q.iter().enumerate() {
                            d[k] = wdl(v);
                        }
                        wdl_h[fi][ctx][d[0] + 3 * d[1] + 9 * d[2] + 27 * d[3]] += 1;
                        ctx = 3 * d[3] + d[2];
                    }
                }
                if !fill_draw {
                    for chunk in filled.chunks(64) {
                        for class in 0..2u16 {
                            let rs: Vec<u16> = chunk
                                .iter()
                                .filter(|&&v| v >= 2 && (v & 1) == class)
                                .map(|&v| (v - 2) / 2 / 2)
                                .collect();
                            if rs.is_empty() {
                                continue;
                            }
                            rice_fill += rice_bits(&rs);
                        }
                    }
                }
            }
            for (si, &s) in SEGS.iter().enumerate() {
                for (chunk, uchunk) in vals.chunks(s).zip(used.chunks(s)) {
                    for class in 0..2u16 {
                        // class 0 loss (even packed), 1 win
                        let rs: Vec<u16> = chunk
                            .iter()
                            .zip(uchunk)
                            .filter(|(&v, &u)| u && v >= 2 && (v & 1) == class)
                            .map(|(&v, _)| (v - 2) / 2 / 2)
                            .collect();
                        if rs.is_empty() {
                            continue;
                        }
                        let mn = *rs.iter().min().unwrap();
                        let mx = *rs.iter().max().unwrap();
                        let w = 16 - (mx - mn).leading_zeros();
                        pfor[si] += 12.0 + rs.len() as f64 * w as f64;
                        rice[si] += rice_bits(&rs);
                    }
                }
            }
        }
        let u = used_total as f64;
        println!(
            "used {used_total}; the table's remoteness section {:.3} bits/used",
            rem_table as f64 * 8.0 / u
        );
        let ent = |h: &[[u64; 81]; 9]| {
            let mut bits = 0f64;
            for c in h {
                let t: u64 = c.iter().sum();
                for &x in c {
                    if x > 0 {
                        bits -= x as f64 * (x as f64 / t as f64).log2();
                    }
                }
            }
            bits / u
        };
        println!(
            "wdl quad entropy: fill prev {:.3}, fill draw {:.3}; rice64 with prev-filled unused {:.3}",
            ent(&wdl_h[0]),
            ent(&wdl_h[1]),
            rice_fill / u
        );
        for (si, &s) in SEGS.iter().enumerate() {
            println!(
                "seg {s}: pfor {:.3}  rice {:.3} bits/used",
                pfor[si] / u,
                rice[si] / u
            );
        }
    });
}
