//! Weiming's one tier (`all`) and its numbering: 9 × C(8,3) × C(5,3) ×
//! 2 × 2 = 20,160 slots, every slot a position: index = (((s·56 + rank of X
//! among the 8 points other than s)·10 + rank of O among the 5 points
//! left)·2 + side)·2 + lock.

use super::{
    Weiming, WeimingPos, ALL, EDGES, PIECES_PER_SIDE, POINT_NAMES, RULES_VERSION, START, TIER_SIZE,
};
use crate::game::{Side, TierKey, Tiers};
use crate::games::rules_hash::RulesHasher;
use crate::numbering::{pdep, pext, rank_subset, unrank_subset};

impl Tiers for Weiming {
    fn id(&self) -> &str {
        "weiming"
    }

    fn rules_hash(&self) -> u64 {
        let mut h = RulesHasher::new();
        h.feed(b"weiming");
        h.feed(&RULES_VERSION.to_le_bytes());
        for n in POINT_NAMES {
            h.feed(n.as_bytes());
            h.feed(b",");
        }
        for (a, b) in EDGES {
            h.feed(&[a, b]);
        }
        h.feed(&PIECES_PER_SIDE.to_le_bytes());
        h.feed(b"shared 1; lockout: opponent's next move only");
        h.feed(START.as_bytes());
        h.finish()
    }

    fn tiers(&self, _max_pieces: Option<u32>) -> Vec<TierKey> {
        vec![0]
    }

    fn tier_name(&self, _t: TierKey) -> String {
        "all".to_string()
    }

    fn tier_of(&self, _p: &WeimingPos) -> TierKey {
        0
    }

    fn tier_max_pieces(&self, _t: TierKey) -> u32 {
        PIECES_PER_SIDE
    }

    fn tier_size(&self, _t: TierKey) -> u64 {
        TIER_SIZE
    }

    fn tier_deps(&self, _t: TierKey) -> Vec<TierKey> {
        Vec::new()
    }

    fn rank(&self, _t: TierKey, p: &WeimingPos) -> u64 {
        let free = ALL as u64 & !(1u64 << p.s);
        let xr = rank_subset(pext(p.x as u64, free));
        let free2 = free & !(p.x as u64);
        let or = rank_subset(pext(p.o as u64, free2));
        let side = match p.side {
            Side::First => 0,
            Side::Second => 1,
        };
        (((p.s as u64 * 56 + xr) * 10 + or) * 2 + side) * 2 + p.locked as u64
    }

    /// Every move passes the turn: the halves are the sides to move (bit 1
    /// of the index).
    #[inline]
    fn slot_half(&self, _t: TierKey, i: u64) -> Option<bool> {
        Some((i >> 1) & 1 == 1)
    }

    fn unrank(&self, _t: TierKey, i: u64) -> WeimingPos {
        let locked = i & 1 == 1;
        let side = if (i >> 1) & 1 == 0 {
            Side::First
        } else {
            Side::Second
        };
        let or = (i / 4) % 10;
        let xr = (i / 40) % 56;
        let s = (i / 2240) as u8;
        let free = ALL as u64 & !(1u64 << s);
        let x = pdep(unrank_subset(8, 3, xr), free);
        let o = pdep(unrank_subset(5, 3, or), free & !x);
        WeimingPos {
            x: x as u16,
            o: o as u16,
            s,
            side,
            locked,
        }
    }

    #[inline]
    fn unmoves(&self, p: &WeimingPos, out: &mut Vec<WeimingPos>) {
        self.unmove_positions(p, out)
    }
}
