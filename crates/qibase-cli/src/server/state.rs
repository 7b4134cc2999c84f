//! What the server holds: one [`GameService`] per game, each with its game
//! and its oracle (or the reason it has none), behind an object-safe trait
//! so the router needs no generics.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::api::annotate::AnnotateJson;
use crate::api::{self, code, ApiError, BestmoveJson, MovesJson, QueryJson};
use qibase::ai::{Difficulty, Rng};
use qibase::analysis::{open_oracle, Oracle, SharedOracle};
use qibase::games::{AnyGame, GAME_IDS};
use qibase::with_game;
use qibase::{Game, Geometry, Side};

/// Longest position string the server parses (every game's positions are
/// far shorter).
pub const MAX_POS_LEN: usize = 200;
/// Longest move string.
pub const MAX_MOVE_LEN: usize = 32;
/// Variants opened on demand beyond the preset games (each one keeps its
/// game and oracle for the server's lifetime).
pub const MAX_EXTRA_GAMES: usize = 32;

/// One entry of `/api/v1/games`.
#[derive(Serialize, Clone, Debug)]
pub struct GameSummary {
    pub id: String,
    pub title: String,
    /// The board in words (e.g. `4 files × 5 ranks, 20 points`).
    pub board_description: String,
    pub material: String,
    pub start: String,
    /// Letters of the first and the second player.
    pub sides: [String; 2],
    /// Whether values are available (a tablebase, possibly partial, or a
    /// solve in memory).
    pub tablebase: bool,
    /// Where values come from, or why there are none.
    pub source: String,
    /// The rules in force: `family` (`weiming`, `cannon-chess` or
    /// `cannons`), `preset` (the id the variant starts from) and the
    /// family's parameters with their values (see [`variant_json`]).
    pub variant: serde_json::Value,
}

/// `/api/v1/games/{game}`: the summary and the board to draw.
#[derive(Serialize, Clone, Debug)]
pub struct GameDetail {
    #[serde(flatten)]
    pub summary: GameSummary,
    pub geometry: Geometry,
}

/// A game as the server answers for it.
pub trait GameService: Send + Sync {
    fn summary(&self) -> GameSummary;
    fn geometry(&self) -> Geometry;
    /// `with_pv`: include the principal variation (the default).
    fn query(&self, pos: &str, mv: Option<&str>, with_pv: bool) -> Result<QueryJson, ApiError>;
    fn moves(&self, pos: &str, mv: Option<&str>) -> Result<MovesJson, ApiError>;
    fn bestmove(
        &self,
        pos: &str,
        mv: Option<&str>,
        level: Difficulty,
        seed: Option<u64>,
    ) -> Result<BestmoveJson, ApiError>;
    /// Review `moves` played from `pos` (the start position if `None`).
    fn annotate(&self, pos: Option<&str>, moves: &[String]) -> Result<AnnotateJson, ApiError>;
}

struct Service<G: Game + 'static> {
    g: &'static G,
    variant: serde_json::Value,
    oracle: Result<SharedOracle<'static, G>, ApiError>,
    source: String,
}

impl<G: Game + 'static> Service<G> {
    fn open(g: &'static G, variant: serde_json::Value, dir: &Path) -> Service<G> {
        match open_oracle(g, dir) {
            Ok((o, source)) => Service {
                g,
                variant,
                oracle: Ok(o),
                source,
            },
            Err(e) => Service {
                g,
                variant,
                source: crate::hint::lookup_hint(&e),
                oracle: Err(e.into()),
            },
        }
    }

    fn oracle(&self) -> Result<&dyn Oracle<G>, ApiError> {
        match &self.oracle {
            Ok(o) => Ok(o.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }

    fn position(&self, pos: &str, mv: Option<&str>) -> Result<G::Pos, ApiError> {
        if pos.len() > MAX_POS_LEN {
            return Err(ApiError::new(
                code::BAD_POSITION,
                format!(
                    "bad position: {} bytes long, at most {MAX_POS_LEN}",
                    pos.len()
                ),
            ));
        }
        if mv.is_some_and(|m| m.len() > MAX_MOVE_LEN) {
            return Err(ApiError::new(code::BAD_MOVE, "bad move: too long"));
        }
        // `_` stands for a space, so positions fit in URLs unescaped.
        let text = pos.replace('_', " ");
        let p = api::parse_position(self.g, &text)?;
        api::after_move(self.g, p, mv)
    }
}

impl<G: Game + 'static> GameService for Service<G> {
    fn summary(&self) -> GameSummary {
        let g = self.g;
        GameSummary {
            id: g.id().to_string(),
            title: g.title().to_string(),
            board_description: g.board_desc(),
            material: g.material_desc(),
            start: g.format_pos(&g.start()),
            sides: [
                g.side_letter(Side::First).to_string(),
                g.side_letter(Side::Second).to_string(),
            ],
            tablebase: self.oracle.is_ok(),
            source: self.source.clone(),
            variant: self.variant.clone(),
        }
    }

    fn geometry(&self) -> Geometry {
        self.g.geometry()
    }

    fn query(&self, pos: &str, mv: Option<&str>, with_pv: bool) -> Result<QueryJson, ApiError> {
        let p = self.position(pos, mv)?;
        Ok(api::query(self.g, self.oracle()?, &p, with_pv)?)
    }

    fn moves(&self, pos: &str, mv: Option<&str>) -> Result<MovesJson, ApiError> {
        let p = self.position(pos, mv)?;
        Ok(api::moves(self.g, &p))
    }

    fn bestmove(
        &self,
        pos: &str,
        mv: Option<&str>,
        level: Difficulty,
        seed: Option<u64>,
    ) -> Result<BestmoveJson, ApiError> {
        let p = self.position(pos, mv)?;
        let mut rng = Rng::new(Rng::clock_seed());
        Ok(api::bestmove(
            self.g,
            self.oracle()?,
            &p,
            level,
            seed,
            &mut rng,
        )?)
    }

    fn annotate(&self, pos: Option<&str>, moves: &[String]) -> Result<AnnotateJson, ApiError> {
        let start = match pos {
            Some(text) => self.position(text, None)?,
            None => self.g.start(),
        };
        if let Some(m) = moves.iter().find(|m| m.len() > MAX_MOVE_LEN) {
            return Err(ApiError::new(
                code::BAD_MOVE,
                format!("bad move: {} bytes long, at most {MAX_MOVE_LEN}", m.len()),
            ));
        }
        api::annotate::annotate(self.g, self.oracle()?, &start, moves)
    }
}

/// Open the service of a game (its tablebase under `dir`, or a solve in
/// memory for a small game).
///
/// The game lives as long as the server: leaked on purpose (a handful of
/// small structs, bounded by [`MAX_EXTRA_GAMES`]).
pub fn open_service(game: AnyGame, dir: &Path) -> Arc<dyn GameService> {
    let variant = variant_json(&game);
    let any: &'static AnyGame = Box::leak(Box::new(game));
    with_game!(any, |g| Arc::new(Service::open(g, variant, dir)))
}

/// The rules in force of a game, for the page's rules text: the family,
/// the preset it starts from, the board (`WxH`, grid games) and the
/// family's parameters under their variant keys (docs/rules.md,
/// "Variants"), e.g. `{"family": "cannons", "preset": "two-cannons",
/// "board": "5x5", "cannons": 2, "soldiers": 12, "threshold": 4,
/// "immobility": "on-turn"}`.
pub fn variant_json(game: &AnyGame) -> serde_json::Value {
    use qibase::games::cannon_chess::Tiao;
    use qibase::games::cannons::Immobility;
    use qibase::Tiers;
    use serde_json::json;
    let preset = |id: &str| id.split(':').next().unwrap_or_default().to_string();
    match game {
        AnyGame::Weiming(g) => json!({"family": "weiming", "preset": preset(g.id())}),
        AnyGame::CannonChess(g) => {
            let r = g.rules();
            json!({
                "family": "cannon-chess",
                "preset": preset(g.id()),
                "board": format!("{}x{}", g.width(), g.height()),
                "pieces": g.max_side(),
                "tiao": if r.tiao == Tiao::Any { "any" } else { "lone" },
                "lone": if r.lone_slides { "slide" } else { "step" },
                "one-v-one": if r.one_v_one_draw { "draw" } else { "play" },
            })
        }
        AnyGame::Cannons(g) => {
            let r = g.rules();
            json!({
                "family": "cannons",
                "preset": preset(g.id()),
                "board": format!("{}x{}", g.width(), g.height()),
                "cannons": g.cannon_count(),
                "soldiers": g.max_soldiers(),
                "threshold": r.threshold,
                "immobility": if r.immobility == Immobility::Static { "static" } else { "on-turn" },
            })
        }
    }
}

/// Everything the handlers share.
pub struct AppState {
    pub dir: PathBuf,
    /// The preset games, in `qibase games` order, then the variants with
    /// tables in `dir`, by id.
    pub games: Vec<(String, Arc<dyn GameService>)>,
    /// Variants opened on demand (at most [`MAX_EXTRA_GAMES`]).
    extra: Mutex<Vec<(String, Arc<dyn GameService>)>>,
}

impl AppState {
    /// Open every preset game under `dir`, then every variant that has
    /// tables there ([`served_variants`]).
    pub fn open(dir: &Path) -> Result<AppState, String> {
        let mut games = Vec::new();
        for id in GAME_IDS {
            let g = AnyGame::from_id(id).map_err(|e| e.to_string())?;
            games.push((id.to_string(), open_service(g, dir)));
        }
        for (id, g) in served_variants(dir) {
            games.push((id, open_service(g, dir)));
        }
        Ok(AppState {
            dir: dir.to_path_buf(),
            games,
            extra: Mutex::new(Vec::new()),
        })
    }

    /// A state with the given services only (tests use it to put a
    /// misbehaving service behind the real router).
    pub fn with_services(dir: &Path, games: Vec<(String, Arc<dyn GameService>)>) -> AppState {
        AppState {
            dir: dir.to_path_buf(),
            games,
            extra: Mutex::new(Vec::new()),
        }
    }

    /// The service of `id`: a preset game, or a variant understood by
    /// [`AnyGame::from_id`] (opened on first use). May block (opening a
    /// variant can solve it in memory): call from a blocking thread.
    pub fn service(&self, id: &str) -> Result<Arc<dyn GameService>, ApiError> {
        if let Some((_, s)) = self.games.iter().find(|(i, _)| i == id) {
            return Ok(s.clone());
        }
        let mut extra = self.extra.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, s)) = extra.iter().find(|(i, _)| i == id) {
            return Ok(s.clone());
        }
        let game = AnyGame::from_id(id)?;
        if extra.len() >= MAX_EXTRA_GAMES {
            return Err(ApiError::new(
                code::UNKNOWN_GAME,
                format!("'{id}': this server already serves {MAX_EXTRA_GAMES} variants"),
            ));
        }
        let s = open_service(game, &self.dir);
        extra.push((id.to_string(), s.clone()));
        Ok(s)
    }
}

/// The variants (not the preset games) that have tier files under `dir`:
/// every directory `<preset>@<key=value,…>` (see
/// [`qibase::tablebase::game_dir`]) whose name is a variant's canonical id
/// and that holds a tier file (`.qtb`, or `.qtc` packed), sorted by id, at
/// most [`MAX_EXTRA_GAMES`]. Directories of other names are not the
/// server's business and are passed over.
pub fn served_variants(dir: &Path) -> Vec<(String, AnyGame)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.contains('@'))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let id = name.replace('@', ":");
        let Ok(game) = AnyGame::from_id(&id) else {
            continue;
        };
        let canonical = with_game!(game, |g| qibase::Tiers::id(g).to_string());
        if canonical != id || !has_tier_file(&dir.join(&name)) {
            continue;
        }
        out.push((id, game));
        if out.len() == MAX_EXTRA_GAMES {
            break;
        }
    }
    out
}

fn has_tier_file(game_dir: &Path) -> bool {
    std::fs::read_dir(game_dir).is_ok_and(|it| {
        it.filter_map(|e| e.ok()).any(|e| {
            let p = e.path();
            matches!(p.extension().and_then(|x| x.to_str()), Some("qtb" | "qtc"))
        })
    })
}
