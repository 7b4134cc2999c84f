//! The game contract checker (`qibase::contract`) on every preset (closed
//! subsets walked slot by slot, the full games sampled) and on randomly
//! drawn small variants of both grid families, with the solved values
//! checked against the symmetries.

use qibase::contract::{check_game, check_values, Clause, Scope};
use qibase::games::{AnyGame, CannonChess, Cannons, Weiming};
use qibase::Rng;
use qibase::{Game, Notation, Rules, Tiers};

/// Walk `g`: the closed subset up to `max_pieces` slot by slot (tiers up to
/// `full` slots; the rest sampled), solve it and check its values, then
/// sample every tier of the whole game. Takes an [`AnyGame`] to solve
/// with the library's compiled solver (`AnyGame::solve_in_memory`): the
/// random variants have no name to find it by.
fn check(any: &AnyGame, max_pieces: Option<u32>, full: u64) {
    qibase::with_game!(any, |g| check_one(any, g, max_pieces, full));
}

fn check_one<G: Game>(any: &AnyGame, g: &G, max_pieces: Option<u32>, full: u64) {
    let scope = Scope {
        max_pieces,
        every_slot_up_to: full,
        samples: 1500,
        seed: 7,
    };
    let s = check_game(g, &scope).unwrap_or_else(|v| panic!("{}: {v}", g.id()));
    assert!(
        s.used > 0 && s.moves > 0,
        "{}: nothing checked: {s:?}",
        g.id()
    );
    let tables = any.solve_in_memory(max_pieces);
    let n = check_values(g, &tables, &scope).unwrap_or_else(|v| panic!("{}: {v}", g.id()));
    assert!(
        n >= s.used,
        "{}: {n} images for {} used slots",
        g.id(),
        s.used
    );
    let whole = Scope {
        max_pieces: None,
        every_slot_up_to: 0,
        samples: 300,
        seed: 11,
    };
    check_game(g, &whole).unwrap_or_else(|v| panic!("{} (whole game): {v}", g.id()));
}

#[test]
fn weiming_keeps_the_contract() {
    check(&AnyGame::Weiming(Weiming::new()), None, u64::MAX);
}

#[test]
fn cannon_chess_keeps_the_contract() {
    check(
        &AnyGame::CannonChess(CannonChess::standard()),
        Some(3),
        200_000,
    );
}

#[test]
fn cannon_chess_4x4_keeps_the_contract() {
    check(
        &AnyGame::CannonChess(CannonChess::four_by_four()),
        Some(3),
        200_000,
    );
}

#[test]
fn two_cannons_keeps_the_contract() {
    check(&AnyGame::Cannons(Cannons::two_cannons()), Some(5), 400_000);
}

#[test]
fn three_cannons_keeps_the_contract() {
    check(
        &AnyGame::Cannons(Cannons::three_cannons()),
        Some(4),
        300_000,
    );
}

/// Uniform in `0..n`.
fn below(rng: &mut Rng, n: u32) -> u32 {
    rng.below(n as usize) as u32
}

/// A board string of `w` × `h` with the given pieces on random points.
fn random_board(rng: &mut Rng, w: u32, h: u32, pieces: &[(char, u32)]) -> String {
    let n = w * h;
    let mut cells = vec!['.'; n as usize];
    for &(c, k) in pieces {
        for _ in 0..k {
            let mut q = rng.below(n as usize);
            while cells[q] != '.' {
                q = rng.below(n as usize);
            }
            cells[q] = c;
        }
    }
    (0..h)
        .rev()
        .map(|r| {
            cells[(r * w) as usize..((r + 1) * w) as usize]
                .iter()
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn random_cannon_chess_variants_keep_the_contract() {
    let mut rng = Rng::new(2026);
    for k in 0..6 {
        let (w, h) = (3 + below(&mut rng, 3), 3 + below(&mut rng, 2));
        let (x, o) = (1 + below(&mut rng, 3), 1 + below(&mut rng, 3));
        let start = format!("{} X", random_board(&mut rng, w, h, &[('X', x), ('O', o)]));
        let id = format!("random-cc-{k}");
        let g = CannonChess::new(&id, &id, w, h, &start)
            .unwrap_or_else(|e| panic!("{w}x{h} {start}: {e}"));
        check(&AnyGame::CannonChess(g), Some(3), 150_000);
    }
}

#[test]
fn random_cannons_variants_keep_the_contract() {
    let mut rng = Rng::new(1911);
    for k in 0..6 {
        let (w, h) = (3 + below(&mut rng, 3), 3 + below(&mut rng, 2));
        let c = 1 + below(&mut rng, 2);
        let s = (4 + below(&mut rng, 4)).min(w * h - c);
        let start = format!("{} C", random_board(&mut rng, w, h, &[('C', c), ('S', s)]));
        let id = format!("random-cannons-{k}");
        let g = Cannons::new(&id, &id, w, h, c, s, &start);
        check(&AnyGame::Cannons(g), Some(6), 150_000);
    }
}

/// What [`Wrong`] breaks in cannon chess's contract.
#[derive(Clone, Copy, PartialEq)]
enum Fault {
    /// Numbered by symmetry class but declaring no images: the default
    /// orbit of one position, so the used slots no longer add up to the
    /// tier's positions.
    NoImages,
    /// A child rank list that drops a capture's child.
    ChildRanks,
    /// A parent rank list that repeats one parent in place of another.
    UnmoveRanks,
    /// A promise that in-tier children never share a slot.
    DistinctChildren,
    /// A parent rank list from the slot that drops the last parent.
    SlotUnmoveRanks,
    /// A promise that a slot's parents never share a slot.
    DistinctParents,
    /// Move geometry that leaves out what a move captures.
    NoCaptures,
}

/// Cannon chess with one fault: the checker must catch each (so the
/// checks above can fail).
struct Wrong(CannonChess, Fault);

#[test]
fn a_broken_contract_is_caught() {
    let scope = Scope {
        max_pieces: Some(2),
        every_slot_up_to: u64::MAX,
        ..Scope::default()
    };
    for (fault, clause) in [
        (Fault::NoImages, Clause::OrbitSize),
        (Fault::ChildRanks, Clause::RankLists),
        (Fault::UnmoveRanks, Clause::RankLists),
        (Fault::DistinctChildren, Clause::RankLists),
        (Fault::SlotUnmoveRanks, Clause::RankLists),
        (Fault::DistinctParents, Clause::RankLists),
    ] {
        let g = Wrong(CannonChess::four_by_four(), fault);
        let err = check_game(&g, &scope).expect_err("the fault is caught");
        assert_eq!(err.clause, clause, "{err}");
    }
}

impl Rules for Wrong {
    type Pos = <CannonChess as Rules>::Pos;

    type Move = <CannonChess as Rules>::Move;

    fn start(&self) -> Self::Pos {
        self.0.start()
    }

    fn side_to_move(&self, p: &Self::Pos) -> qibase::Side {
        self.0.side_to_move(p)
    }

    fn rule_end(&self, p: &Self::Pos) -> Option<qibase::GameEnd> {
        self.0.rule_end(p)
    }

    fn moves(&self, p: &Self::Pos, out: &mut Vec<Self::Move>) {
        self.0.moves(p, out)
    }

    fn apply(&self, p: &Self::Pos, m: &Self::Move) -> Self::Pos {
        self.0.apply(p, m)
    }

    fn pass(&self, p: &Self::Pos) -> Self::Pos {
        self.0.pass(p)
    }
}

impl Notation for Wrong {
    fn title(&self) -> &str {
        self.0.title()
    }

    fn board_desc(&self) -> String {
        self.0.board_desc()
    }

    fn material_desc(&self) -> String {
        self.0.material_desc()
    }

    fn side_letter(&self, s: qibase::Side) -> char {
        self.0.side_letter(s)
    }

    fn parse_pos(&self, s: &str) -> Result<Self::Pos, qibase::ParseError> {
        self.0.parse_pos(s)
    }

    fn format_pos(&self, p: &Self::Pos) -> String {
        self.0.format_pos(p)
    }

    fn diagram(&self, p: &Self::Pos, l: Option<&Self::Move>) -> String {
        self.0.diagram(p, l)
    }

    fn format_move(&self, m: &Self::Move) -> String {
        self.0.format_move(m)
    }

    fn point_names(&self) -> Vec<String> {
        self.0.point_names()
    }

    fn occupancy(&self, p: &Self::Pos) -> Vec<char> {
        self.0.occupancy(p)
    }

    fn geometry(&self) -> qibase::Geometry {
        self.0.geometry()
    }

    fn move_points(&self, p: &Self::Pos, m: &Self::Move) -> qibase::MovePoints {
        let mut mp = self.0.move_points(p, m);
        if self.1 == Fault::NoCaptures {
            mp.captured.clear();
        }
        mp
    }
}

#[test]
fn wrong_move_points_are_caught() {
    use qibase::contract::check_move_points_in_play;
    let g = Wrong(CannonChess::standard(), Fault::NoCaptures);
    let err = check_move_points_in_play(&g, 50, 80, 3).expect_err("the fault is caught");
    assert!(
        matches!(err.fault, qibase::contract::PointsFault::Unnamed { .. })
            && err.to_string().contains("changes but is not named"),
        "{err}"
    );
    let g = Wrong(CannonChess::standard(), Fault::NoImages);
    check_move_points_in_play(&g, 50, 80, 3).unwrap();
}

impl Tiers for Wrong {
    fn id(&self) -> &str {
        self.0.id()
    }

    fn rules_hash(&self) -> u64 {
        self.0.rules_hash()
    }

    fn tiers(&self, m: Option<u32>) -> Vec<u32> {
        self.0.tiers(m)
    }

    fn tier_name(&self, t: u32) -> String {
        self.0.tier_name(t)
    }

    fn tier_of(&self, p: &Self::Pos) -> u32 {
        self.0.tier_of(p)
    }

    fn tier_max_pieces(&self, t: u32) -> u32 {
        self.0.tier_max_pieces(t)
    }

    fn tier_size(&self, t: u32) -> u64 {
        self.0.tier_size(t)
    }

    fn tier_positions(&self, t: u32) -> u64 {
        self.0.tier_positions(t)
    }

    fn tier_deps(&self, t: u32) -> Vec<u32> {
        self.0.tier_deps(t)
    }

    fn rank(&self, t: u32, p: &Self::Pos) -> u64 {
        self.0.rank(t, p)
    }

    fn unrank(&self, t: u32, i: u64) -> Self::Pos {
        self.0.unrank(t, i)
    }

    fn unmoves(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>) {
        self.0.unmoves(p, out)
    }

    fn symmetry_images(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>) {
        match self.1 {
            Fault::NoImages => out.push(*p),
            _ => self.0.symmetry_images(p, out),
        }
    }

    fn orbit_size(&self, p: &Self::Pos) -> u64 {
        match self.1 {
            Fault::NoImages => 1,
            _ => self.0.orbit_size(p),
        }
    }

    fn child_ranks(&self, p: &Self::Pos, moves: &mut Vec<Self::Move>, out: &mut Vec<(u32, u64)>) {
        let start = out.len();
        self.0.child_ranks(p, moves, out);
        if self.1 == Fault::ChildRanks {
            let t = self.0.tier_of(p);
            if let Some(k) = out[start..].iter().position(|&(ct, _)| ct != t) {
                out.remove(start + k);
            }
        }
    }

    fn in_tier_children_may_share_slots(&self, p: &Self::Pos) -> bool {
        self.1 != Fault::DistinctChildren && self.0.in_tier_children_may_share_slots(p)
    }

    fn unmove_ranks(
        &self,
        t: u32,
        p: &Self::Pos,
        parents: &mut Vec<Self::Pos>,
        out: &mut Vec<u64>,
    ) {
        let start = out.len();
        self.0.unmove_ranks(t, p, parents, out);
        if self.1 == Fault::UnmoveRanks && out.len() >= start + 2 {
            let n = out.len();
            if out[n - 1] != out[n - 2] {
                out[n - 1] = out[n - 2];
            }
        }
    }

    fn slot_unmove_ranks(
        &self,
        t: u32,
        i: u64,
        parents: &mut Vec<Self::Pos>,
        out: &mut Vec<u64>,
    ) -> bool {
        let start = out.len();
        let may_repeat = self.0.slot_unmove_ranks(t, i, parents, out);
        match self.1 {
            Fault::SlotUnmoveRanks if out.len() > start => {
                out.pop();
                may_repeat
            }
            // Symmetric positions of the 4x4 board have parents that are
            // images of each other: some list repeats a rank.
            Fault::DistinctParents => false,
            _ => may_repeat,
        }
    }
}

/// Boards of 33 to 64 points (64-bit boards) of both families: the closed
/// subsets slot by slot, the whole games sampled.
#[test]
fn boards_over_32_points_keep_the_contract() {
    for (spec, max) in [
        ("cannon-chess:board=6x6,pieces=4", Some(2)),
        ("cannon-chess:board=8x8,pieces=3", Some(2)),
        ("cannon-chess:board=13x3,pieces=3,tiao=any", Some(2)),
        ("two-cannons:board=7x5,soldiers=6,threshold=2", Some(3)),
        (
            "two-cannons:board=8x8,cannons=1,soldiers=5,threshold=2",
            Some(2),
        ),
    ] {
        let any = AnyGame::from_id(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        check(&any, max, 150_000);
    }
}

/// The cannon games' rule switches change which un-moves exist (a
/// predecessor with stuck cannons has ended under the static reading; none
/// below the threshold): the parent lists from slots must follow them.
#[test]
fn rule_switches_keep_the_contract() {
    for (spec, max) in [
        (
            "two-cannons:board=4x3,immobility=static,soldiers=7,threshold=3",
            Some(6),
        ),
        (
            "three-cannons:board=5x3,immobility=static,soldiers=6",
            Some(5),
        ),
    ] {
        let any = AnyGame::from_id(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        check(&any, max, 150_000);
    }
}
