//! Tiers whose slot numbers pass 2^32: the numbering round trip in windows
//! at 2^32 and at the top of such a tier, without solving anything. Every
//! used slot's position belongs to the tier, ranks back to its slot, and
//! so does each of its symmetric images.

use qibase::games::AnyGame;
use qibase::with_game;
use qibase::Tiers;

/// Checks the windows of the largest tier of `spec` (which must pass
/// 2^32 slots); returns the used slots seen.
fn round_trip_near_the_top(spec: &str) -> usize {
    let any = AnyGame::from_id(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    with_game!(any, |g| {
        let t = g
            .tiers(None)
            .into_iter()
            .max_by_key(|&t| g.tier_size(t))
            .expect("tiers");
        let size = g.tier_size(t);
        assert!(size > 1 << 32, "{spec}: largest tier has {size} slots");
        let windows = [
            (1u64 << 32) - 3000..(1 << 32) + 3000,
            size / 2..size / 2 + 2000,
            size - 6000..size,
        ];
        let mut used = 0;
        let mut images = Vec::new();
        for window in windows {
            for i in window {
                let p = g.unrank(t, i);
                if g.rank(t, &p) != i {
                    continue;
                }
                used += 1;
                assert_eq!(g.tier_of(&p), t, "{spec} slot {i}");
                images.clear();
                g.symmetry_images(&p, &mut images);
                for q in &images {
                    assert_eq!(g.rank(t, q), i, "{spec} slot {i}: an image ranks elsewhere");
                }
            }
        }
        used
    })
}

#[test]
fn slot_numbers_past_two_to_the_32_round_trip() {
    for spec in [
        // 7,483,751,730 slots in tier k12 (30 points).
        "two-cannons:board=6x5",
        // 36 points, 7 a side.
        "cannon-chess:board=6x6,pieces=7",
        // 64 points.
        "two-cannons:board=8x8,soldiers=6,threshold=2",
        "cannon-chess:board=8x8,pieces=4",
    ] {
        let used = round_trip_near_the_top(spec);
        assert!(used > 1000, "{spec}: only {used} used slots in the windows");
    }
}
