//! A batch of lower-tier requests grouped by the block of the raw file
//! they read, so that each block is read once: a counting sort by block,
//! done in parallel.
//!
//! A batch holds tens of millions of requests spread over a million and
//! more blocks (the 6×5 two-cannons' top tier and the one below it: 1.6 M
//! blocks of 8,192 slots). Sorted by one thread, the scatter of a batch
//! (a random write per request) was the serial part that held the
//! initial pass and `verify --memory` to one busy core.

use rayon::prelude::*;

use super::RawArray;
use crate::tablebase::TbError;

/// A lookup: `(table << 56 | rank, asker)`, the asker a number the caller
/// gives (the solver: the slot offset of the asking position in the
/// states being scanned).
pub(crate) type Request = (u64, u32);

/// Slots of a lower tier read as one block when answering requests.
const LOWER_BLOCK_SHIFT: u32 = 13;

/// A batch's requests in group order, group `k` at
/// `requests[starts[k]..starts[k + 1]]`.
pub(crate) struct Grouped {
    pub requests: Vec<Request>,
    pub starts: Vec<usize>,
}

/// Sort `pieces` (a batch's requests, as the tasks that asked made them)
/// into `groups` groups by `group` of the request's key. Within a group
/// requests keep their order in the batch (pieces in order), as a serial
/// stable counting sort of the whole batch would leave them.
// The parallel scatter writes through a shared pointer: an audited
// exception to the workspace's `unsafe` rule.
#[allow(unsafe_code)]
pub(crate) fn group_requests(
    pieces: &[Vec<Request>],
    groups: usize,
    group: impl Fn(u64) -> usize + Sync,
) -> Grouped {
    let total: usize = pieces.iter().map(Vec::len).sum();
    // Each run of pieces counts into its own histogram of `groups` words:
    // more runs than requests per group would cost more in histograms
    // than in requests.
    let runs = split(
        pieces,
        total,
        rayon::current_num_threads()
            .min(total / groups.max(1))
            .max(1),
    );
    let mut places: Vec<Vec<usize>> = runs
        .par_iter()
        .map(|run| {
            let mut count = vec![0usize; groups];
            for &(key, _) in run.iter().flatten() {
                count[group(key)] += 1;
            }
            count
        })
        .collect();
    // Each run's counts become the first place of its requests in each
    // group: groups in order, and within a group the runs in order.
    let mut starts = Vec::with_capacity(groups + 1);
    let mut next = 0usize;
    for k in 0..groups {
        starts.push(next);
        for place in places.iter_mut() {
            let n = place[k];
            place[k] = next;
            next += n;
        }
    }
    starts.push(next);
    debug_assert_eq!(next, total);
    let mut requests: Vec<Request> = vec![(0, 0); total];
    let out = Out(requests.as_mut_ptr());
    runs.par_iter()
        .zip(places.par_iter_mut())
        .for_each(|(run, place)| {
            let out = &out;
            for &r in run.iter().flatten() {
                let k = group(r.0);
                // SAFETY: `place[k]` walks this run's own range of group
                // `k` (as many places as the run has requests of that
                // group, after those of the groups before and of the
                // earlier runs), so no two writes, of this task or
                // another, reach the same element, and the ranges of all
                // runs and groups tile `0..total`: every write is inside
                // `requests`, which outlives the loop.
                unsafe { out.0.add(place[k]).write(r) };
                place[k] += 1;
            }
        });
    Grouped { requests, starts }
}

/// The sorted batch, written by every task at places no other task
/// writes (see the scatter above).
struct Out(*mut Request);
// SAFETY: the tasks write disjoint elements through it and nothing reads
// them until all tasks are done.
#[allow(unsafe_code)]
unsafe impl Sync for Out {}

/// `pieces` cut into about `runs` runs of similar numbers of requests.
fn split(pieces: &[Vec<Request>], total: usize, runs: usize) -> Vec<&[Vec<Request>]> {
    let mut out = Vec::with_capacity(runs);
    let (mut from, mut seen) = (0, 0);
    for (i, p) in pieces.iter().enumerate() {
        seen += p.len();
        if seen * runs >= total * (out.len() + 1) && out.len() + 1 < runs {
            out.push(&pieces[from..=i]);
            from = i + 1;
        }
    }
    out.push(&pieces[from..]);
    out
}

/// Answer `requests` (`table << 56 | rank`, asker; in pieces, as the
/// tasks that asked made them) from `tables`: grouped by block of
/// `1 << LOWER_BLOCK_SHIFT` slots, each block's asked span read once, and
/// `f(word, asker, table, rank)` called for each (in parallel, in no set
/// order: what it does must commute). Every rank must be inside its table.
pub(crate) fn answer_requests(
    tables: &[&RawArray],
    requests: Vec<Vec<Request>>,
    f: impl Fn(u16, u32, usize, u64) + Sync,
) -> Result<(), TbError> {
    // Block numbers of each table start after the previous table's.
    let mut first = Vec::with_capacity(tables.len() + 1);
    first.push(0usize);
    for raw in tables {
        let blocks = (raw.len() as usize).div_ceil(1 << LOWER_BLOCK_SHIFT);
        first.push(first.last().unwrap() + blocks);
    }
    let group = |key: u64| {
        let (table, rank) = ((key >> 56) as usize, key & ((1 << 56) - 1));
        first[table] + (rank >> LOWER_BLOCK_SHIFT) as usize
    };
    let groups = *first.last().unwrap();
    let Grouped {
        requests: sorted,
        starts,
    } = group_requests(&requests, groups, group);
    drop(requests);
    (0..groups)
        .into_par_iter()
        .filter(|&k| starts[k] < starts[k + 1])
        .try_for_each_init(Vec::new, |block: &mut Vec<u16>, k| {
            let table = first.partition_point(|&f| f <= k) - 1;
            let raw = tables[table];
            // Only the span the requests cover: a sparse batch reads a few
            // words per block, not the whole block.
            let asks = &sorted[starts[k]..starts[k + 1]];
            let rank = |key: u64| key & ((1 << 56) - 1);
            let lo = asks.iter().map(|&(key, _)| rank(key)).min().unwrap_or(0);
            let hi = asks.iter().map(|&(key, _)| rank(key)).max().unwrap_or(0) + 1;
            block.resize((hi - lo) as usize, 0);
            raw.read(lo, block)?;
            for &(key, at) in asks {
                let r = rank(key);
                f(block[(r - lo) as usize], at, table, r);
            }
            Ok(())
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// On batches with many groups and few, empty pieces and one-piece
    /// batches, the parallel sort leaves exactly what a stable sort by
    /// group leaves.
    #[test]
    fn grouping_is_a_stable_sort_by_group() {
        let mut rng = Rng::new(7);
        for (pieces, per_piece, groups) in [
            (1, 0, 5),
            (1, 1000, 3),
            (40, 500, 7),
            (40, 500, 100_000),
            (3, 20_000, 64),
            (200, 50, 1),
        ] {
            let pieces: Vec<Vec<Request>> = (0..pieces)
                .map(|p| {
                    let n = if p % 5 == 3 { 0 } else { per_piece };
                    (0..n)
                        .map(|i| (rng.below(1 << 40) as u64, (p * per_piece + i) as u32))
                        .collect()
                })
                .collect();
            let group = |key: u64| (key % groups as u64) as usize;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(4)
                .build()
                .unwrap();
            let got = pool.install(|| group_requests(&pieces, groups, group));
            let mut want: Vec<Request> = pieces.concat();
            want.sort_by_key(|r| group(r.0));
            assert_eq!(got.requests, want);
            assert_eq!(got.starts.len(), groups + 1);
            for k in 0..groups {
                let span = &got.requests[got.starts[k]..got.starts[k + 1]];
                assert!(span.iter().all(|r| group(r.0) == k));
            }
            assert_eq!(got.starts[groups], want.len());
        }
    }
}
