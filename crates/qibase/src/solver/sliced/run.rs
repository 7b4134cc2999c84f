//! A whole solve shared by ranks holding slices: tier by tier as in one
//! process, each rank keeping its slices of the finished tiers that later
//! tiers read, each tier's file merged by rank 0 from the ranks' parts.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::lower::{Slice, SlicedLower};
use super::tier::solve_sliced;
use crate::game::{Game, TierKey};
use crate::solver::{
    deps_of, peak_rss_bytes, solved_on_disk, tell, tier_meta, writer_pool, Exchange, PendingWrite,
    SolveError, SolveObserver, SolveOptions, TierOptions, TierReport,
};
use crate::tablebase::{self, TbError, TierMeta, TierStore};
use crate::value::Packed;

/// [`crate::solver::solve_game_shared`] on more than one rank.
pub(in crate::solver) fn solve_tiers_sliced<G: Game>(
    g: &G,
    opts: &SolveOptions,
    observer: &dyn SolveObserver,
    ex: &dyn Exchange,
    reports: &mut Vec<TierReport>,
) -> Result<(), SolveError> {
    let tiers = g.tiers(opts.max_pieces);
    let store = TierStore::new(g, &opts.dir);
    let Some(&first) = tiers.first() else {
        return Ok(());
    };
    let first_path = store.path(first);
    let parts = first_path.parent().unwrap_or(Path::new(".")).join(".parts");
    // Parts left by an interrupted job are stale: rank 0 empties the
    // directory before any rank can write one (the barrier after it).
    if ex.rank() == 0 {
        empty_dir(&parts)?;
    }
    ex.max(0);
    let mut pending: Option<PendingWrite> = None;
    let result = solve_tiers(g, opts, observer, ex, &store, &parts, reports, &mut pending);
    // Even after an error, let the last write finish (or fail) cleanly.
    let last = pending.map_or(Ok(()), |p| p.finish(reports));
    if ex.rank() == 0 && result.is_ok() && last.is_ok() {
        let _ = std::fs::remove_dir(&parts);
    }
    result.and(last.map_err(SolveError::from))
}

#[allow(clippy::too_many_arguments)]
fn solve_tiers<G: Game>(
    g: &G,
    opts: &SolveOptions,
    observer: &dyn SolveObserver,
    ex: &dyn Exchange,
    store: &TierStore<'_, G>,
    parts: &Path,
    reports: &mut Vec<TierReport>,
    pending: &mut Option<PendingWrite>,
) -> Result<(), SolveError> {
    let tiers = g.tiers(opts.max_pieces);
    let (ranks, rank) = (ex.ranks(), ex.rank());
    let writer_pool = writer_pool(opts)?;
    let mut loaded: HashMap<TierKey, Slice> = HashMap::new();
    for (pos, &t) in tiers.iter().enumerate() {
        let name = g.tier_name(t);
        if let Some(stats) = solved_on_disk(store, t, observer, ex) {
            reports.push(TierReport::skipped(g, t, stats));
            continue;
        }
        if ex.max(observer.should_stop().into()) != 0 {
            return Err(SolveError::Stopped { next: name });
        }
        // Keep only the slices this and later tiers still read; read this
        // rank's slices of the others from their files.
        let still_needed = deps_of(g, &tiers[pos..]);
        loaded.retain(|k, _| still_needed.contains(k));
        for d in g.tier_deps(t) {
            if let Entry::Vacant(slot) = loaded.entry(d) {
                let slots = Slice::owned(g.tier_size(d), ranks, rank);
                let values = store.open(d)?.read_range(slots.clone())?;
                slot.insert(Slice { slots, values });
            }
        }
        let mut lower = SlicedLower::new();
        for d in g.tier_deps(t) {
            lower.add(d, g.tier_size(d), &loaded[&d], ranks);
        }

        observer.tier_started(&name, g.tier_size(t));
        let t0 = Instant::now();
        let progress = |e| tell(observer, e);
        let sent_before = ex.bytes_sent();
        let stop = || observer.should_stop();
        let opts = TierOptions::default().progress(&progress).stop(&stop);
        let Some(solved) = solve_sliced(g, t, &lower, &opts, ex)? else {
            return Err(SolveError::Stopped { next: name });
        };
        drop(lower);
        let mut stats = solved.stats;
        stats.seconds = t0.elapsed().as_secs_f64();
        stats.threads = rayon::current_num_threads() * ranks;
        stats.peak_rss = peak_rss_bytes().unwrap_or(0);

        // Every rank's part on disk before rank 0 merges them.
        write_part(&part_path(parts, &name, rank), &solved.slice.values)?;
        ex.max(0);
        if let Some(p) = pending.take() {
            p.finish(reports)?;
        }
        reports.push(TierReport {
            tier: t,
            name: name.clone(),
            slots: g.tier_size(t),
            positions: g.tier_positions(t),
            stats: stats.clone(),
            touches: solved.touches,
            write_wait_seconds: 0.0,
            skipped: false,
            exchanged_bytes: ex.sum(ex.bytes_sent() - sent_before),
            windows: 0,
        });
        observer.tier_solved(&reports[reports.len() - 1]);
        if rank == 0 {
            let pieces: Vec<(Range<u64>, PathBuf)> = (0..ranks)
                .map(|k| {
                    (
                        Slice::owned(g.tier_size(t), ranks, k),
                        part_path(parts, &name, k),
                    )
                })
                .collect();
            let (path, meta) = (store.path(t), tier_meta(g, t, &stats));
            *pending = Some(PendingWrite::spawn(
                reports.len() - 1,
                writer_pool.clone(),
                move || merge_parts(&path, &meta, &pieces),
            ));
        }
        if deps_of(g, &tiers[pos + 1..]).contains(&t) {
            loaded.insert(t, solved.slice);
        }
    }
    Ok(())
}

fn part_path(parts: &Path, tier: &str, rank: usize) -> PathBuf {
    parts.join(format!("{tier}.{rank}.raw"))
}

/// Remove everything in `dir` (made if missing).
fn empty_dir(dir: &Path) -> Result<(), TbError> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(TbError::io(
                dir,
                "cannot empty the directory of tier parts",
                e,
            ))
        }
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| TbError::io(dir, "cannot make the directory of tier parts", e))
}

/// This rank's values as a part file: 16-bit words, little-endian.
fn write_part(path: &Path, values: &[Packed]) -> Result<(), TbError> {
    let err = |e| TbError::io(path, "cannot write a rank's part of a tier", e);
    let mut f = File::create(path).map_err(err)?;
    let mut bytes = Vec::with_capacity(1 << 20);
    for chunk in values.chunks(1 << 19) {
        bytes.clear();
        bytes.extend(chunk.iter().flat_map(|v| v.to_bits().to_le_bytes()));
        f.write_all(&bytes).map_err(err)?;
    }
    f.sync_all().map_err(err)
}

/// Write the tier file from the ranks' parts (`pieces`: each rank's slots
/// and part file), a batch at a time, and remove the parts.
fn merge_parts(
    path: &Path,
    meta: &TierMeta,
    pieces: &[(Range<u64>, PathBuf)],
) -> Result<(), TbError> {
    let files: Vec<(Range<u64>, File)> = pieces
        .iter()
        .map(|(slots, p)| {
            let f = File::open(p)
                .map_err(|e| TbError::io(p, "cannot open a rank's part of a tier", e))?;
            Ok((slots.clone(), f))
        })
        .collect::<Result<_, TbError>>()?;
    let mut bytes = Vec::new();
    tablebase::write_tier_batched(path, meta, |start, out| {
        let want = start..start + out.len() as u64;
        for ((slots, f), (_, p)) in files.iter().zip(pieces) {
            let (lo, hi) = (want.start.max(slots.start), want.end.min(slots.end));
            if lo >= hi {
                continue;
            }
            bytes.resize(2 * (hi - lo) as usize, 0);
            f.read_exact_at(&mut bytes, 2 * (lo - slots.start))
                .map_err(|e| TbError::io(p, "cannot read a rank's part of a tier", e))?;
            let into = &mut out[(lo - start) as usize..(hi - start) as usize];
            for (v, b) in into.iter_mut().zip(bytes.chunks_exact(2)) {
                *v = Packed::from_bits(u16::from_le_bytes([b[0], b[1]]));
            }
        }
        Ok(())
    })?;
    for (_, p) in pieces {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}
