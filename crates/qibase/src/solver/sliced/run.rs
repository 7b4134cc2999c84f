//! A whole solve shared by ranks holding slices: tier by tier as in one
//! process, each rank keeping its slices of the finished tiers that later
//! tiers read, each tier's file merged by rank 0 from the ranks' parts.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write as _;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::lower::{Slice, SlicedLower};
use super::tier::solve_sliced;
use crate::exchange::Exchange;
use crate::game::{Game, TierKey};
use crate::solver::driver::{Callbacks, Mode, Solved, Step};
use crate::solver::write::Write;
use crate::solver::SolveError;
use crate::tablebase::{self, TbError, TierMeta, TierStore};
use crate::value::Packed;

/// A solve shared by ranks: each keeps its slices of the finished tiers,
/// writes its part of each tier, and rank 0 merges the parts.
pub(in crate::solver) struct Sliced<'a, G: Game> {
    store: &'a TierStore<'a, G>,
    ex: &'a dyn Exchange,
    /// The directory of the ranks' parts (`<dir>/<game>/.parts`).
    parts: PathBuf,
}

impl<'a, G: Game> Sliced<'a, G> {
    /// The mode of a solve of the game in `game_dir`. Parts left by an
    /// interrupted job are stale: rank 0 empties their directory before
    /// any rank can write one (the barrier after it).
    pub fn new(
        store: &'a TierStore<'a, G>,
        game_dir: &Path,
        ex: &'a dyn Exchange,
    ) -> Result<Sliced<'a, G>, SolveError> {
        let parts = game_dir.join(".parts");
        if ex.rank() == 0 {
            empty_dir(&parts)?;
        }
        ex.max(0);
        Ok(Sliced { store, ex, parts })
    }

    /// The solve is over: rank 0 removes the parts' directory after a
    /// solve without error.
    pub fn finished(&self, ok: bool) {
        if self.ex.rank() == 0 && ok {
            let _ = std::fs::remove_dir(&self.parts);
        }
    }
}

/// A rank's slice of a finished tier, as the driver holds it.
pub(in crate::solver) struct Held(Slice);

impl<G: Game> Mode for Sliced<'_, G> {
    type Held = Held;
    type Out = Held;

    /// This rank's slice of tier `d`, read from its file.
    fn read(&mut self, d: TierKey) -> Result<Self::Held, SolveError> {
        let slots = Slice::owned(
            self.store.game().tier_size(d),
            self.ex.ranks(),
            self.ex.rank(),
        );
        let values = self.store.open(d)?.read_range(slots.clone())?;
        Ok(Held(Slice { slots, values }))
    }

    fn solve(
        &mut self,
        at: &Step,
        slices: &mut HashMap<TierKey, Self::Held>,
        cb: &Callbacks,
    ) -> Result<Option<Solved<Self::Out>>, SolveError> {
        let g = self.store.game();
        let mut lower = SlicedLower::new();
        for d in g.tier_deps(at.tier) {
            lower.add(d, g.tier_size(d), &slices[&d].0, self.ex.ranks());
        }
        let solved = solve_sliced(g, at.tier, &lower, &cb.tier_options(), self.ex)?;
        Ok(solved.map(|s| Solved {
            out: Held(s.slice),
            stats: s.stats,
            touches: s.touches,
            windows: 0,
            resumed_seconds: 0.0,
        }))
    }

    /// Every rank's part on disk before rank 0 merges them.
    fn staged(&mut self, at: &Step, out: &Self::Out) -> Result<(), SolveError> {
        let path = part_path(&self.parts, &at.plan.name, self.ex.rank());
        write_part(&path, &out.0.values)?;
        self.ex.max(0);
        Ok(())
    }

    fn write(&mut self, at: &Step, meta: TierMeta, _: &mut Self::Out) -> Result<Write, SolveError> {
        if self.ex.rank() != 0 {
            return Ok(Write::Nothing);
        }
        let ranks = self.ex.ranks();
        let slots = at.plan.slots;
        let pieces: Vec<(Range<u64>, PathBuf)> = (0..ranks)
            .map(|k| {
                (
                    Slice::owned(slots, ranks, k),
                    part_path(&self.parts, &at.plan.name, k),
                )
            })
            .collect();
        let path = self.store.path(at.tier);
        Ok(Write::Spawn(Box::new(move || {
            merge_parts(&path, &meta, &pieces)
        })))
    }

    fn keep(out: Self::Out) -> Self::Held {
        out
    }
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
