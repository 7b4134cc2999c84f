//! STUB — replaced by the real rules.
use crate::game::{Game, GameEnd, Side, TierKey};

pub struct Weiming;

impl Weiming {
    pub fn new() -> Self {
        Self
    }
}

impl Game for Weiming {
    type Pos = u64;
    type Move = u32;
    fn id(&self) -> &'static str {
        unimplemented!()
    }
    fn title(&self) -> &'static str {
        unimplemented!()
    }
    fn board_desc(&self) -> String {
        unimplemented!()
    }
    fn material_desc(&self) -> String {
        unimplemented!()
    }
    fn rules_hash(&self) -> u64 {
        unimplemented!()
    }
    fn side_letter(&self, _s: Side) -> char {
        unimplemented!()
    }
    fn start(&self) -> u64 {
        unimplemented!()
    }
    fn side_to_move(&self, _p: &u64) -> Side {
        unimplemented!()
    }
    fn parse_pos(&self, _s: &str) -> Result<u64, String> {
        unimplemented!()
    }
    fn format_pos(&self, _p: &u64) -> String {
        unimplemented!()
    }
    fn diagram(&self, _p: &u64, _l: Option<&u32>) -> String {
        unimplemented!()
    }
    fn format_move(&self, _m: &u32) -> String {
        unimplemented!()
    }
    fn point_names(&self) -> Vec<String> {
        unimplemented!()
    }
    fn occupancy(&self, _p: &u64) -> Vec<char> {
        unimplemented!()
    }
    fn rule_end(&self, _p: &u64) -> Option<GameEnd> {
        unimplemented!()
    }
    fn moves(&self, _p: &u64, _o: &mut Vec<u32>) {
        unimplemented!()
    }
    fn apply(&self, _p: &u64, _m: &u32) -> u64 {
        unimplemented!()
    }
    fn tiers(&self, _m: Option<u32>) -> Vec<TierKey> {
        unimplemented!()
    }
    fn tier_name(&self, _t: TierKey) -> String {
        unimplemented!()
    }
    fn tier_of(&self, _p: &u64) -> TierKey {
        unimplemented!()
    }
    fn tier_max_pieces(&self, _t: TierKey) -> u32 {
        unimplemented!()
    }
    fn tier_size(&self, _t: TierKey) -> u64 {
        unimplemented!()
    }
    fn tier_deps(&self, _t: TierKey) -> Vec<TierKey> {
        unimplemented!()
    }
    fn rank(&self, _t: TierKey, _p: &u64) -> u64 {
        unimplemented!()
    }
    fn unrank(&self, _t: TierKey, _i: u64) -> u64 {
        unimplemented!()
    }
    fn unmoves(&self, _p: &u64, _o: &mut Vec<u64>) {
        unimplemented!()
    }
}
