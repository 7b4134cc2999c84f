//! The text of the report, and the figures it links.

use std::fmt::Write as _;

use super::stats::{Counts, Pass, PosRef, TierResult};
use super::{svg, Probe, ReportGame, ReportOptions};
use qibase::Value;
use qibase::{Game, Side};

/// A finished report: the markdown and the figures (file name, SVG text).
pub struct Document {
    pub markdown: String,
    pub figures: Vec<(String, String)>,
}

/// `20160` → `20,160`.
pub fn int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Percentage with one decimal.
pub fn pct(a: u64, b: u64) -> String {
    if b == 0 {
        "–".into()
    } else {
        format!("{:.1}%", 100.0 * a as f64 / b as f64)
    }
}

fn bytes(n: u64) -> String {
    if n >= 1 << 30 {
        format!("{:.2} GiB", n as f64 / (1u64 << 30) as f64)
    } else if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64)
    } else if n >= 1 << 10 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

/// Who wins a position of value `v` with `side` to move, in words.
pub fn verdict<G: Game>(g: &G, side: Side, v: Value) -> String {
    let who = |s: Side| {
        format!(
            "{} (the {} player)",
            g.side_letter(s),
            if s == Side::First { "first" } else { "second" }
        )
    };
    match v {
        Value::Win(n) => format!("{} wins in {n} plies", who(side)),
        Value::Loss(n) => format!(
            "{} wins; {} holds out for {n} plies",
            who(side.other()),
            g.side_letter(side)
        ),
        Value::Draw => "a draw with perfect play".into(),
    }
}

/// A move list, numbered by ply, with the mover's letter.
fn line_text<G: Game>(g: &G, start: &G::Pos, line: &[(G::Move, G::Pos)]) -> String {
    let mut out = String::new();
    let mut side = g.side_to_move(start);
    for (k, (m, _)) in line.iter().enumerate() {
        let item = format!("{:>3}. {} {}", k + 1, g.side_letter(side), g.format_move(m));
        let _ = write!(out, "{item:<16}");
        if k % 6 == 5 {
            out = out.trim_end().to_string();
            out.push('\n');
        }
        side = side.other();
    }
    out.trim_end().to_string()
}

fn code(out: &mut String, body: &str) {
    let _ = writeln!(out, "```text\n{}\n```\n", body.trim_end());
}

fn counts_row(c: &Counts) -> String {
    let t = c.total();
    format!(
        "{} | {} ({}) | {} ({}) | {} ({})",
        int(t),
        int(c.wins),
        pct(c.wins, t),
        int(c.draws),
        pct(c.draws, t),
        int(c.losses),
        pct(c.losses, t)
    )
}

fn pos_of<G: ReportGame>(g: &G, r: PosRef) -> G::Pos {
    g.with_variant(&g.unrank(r.0, r.1), r.2)
}

/// Diagrams of the positions along a line (after each move).
fn line_diagrams<G: Game>(g: &G, start: &G::Pos, line: &[(G::Move, G::Pos)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "start: {}", g.format_pos(start));
    let _ = writeln!(out, "{}", g.diagram(start, None));
    let mut side = g.side_to_move(start);
    for (k, (m, p)) in line.iter().enumerate() {
        let _ = writeln!(
            out,
            "after {}. {} {}: {}",
            k + 1,
            g.side_letter(side),
            g.format_move(m),
            g.format_pos(p)
        );
        let _ = writeln!(out, "{}", g.diagram(p, Some(m)));
        side = side.other();
    }
    out
}

/// Lines shown as diagrams when at most this long.
const DIAGRAM_PLIES: usize = 12;
/// Plies of a drawing line shown, and drawn as diagrams.
const DRAW_PLIES: usize = 12;
const DRAW_DIAGRAMS: usize = 6;

/// What every section reads: the game, the pass over its tables, the probe,
/// and the figures most sections quote.
struct Ctx<'a, 'g, G: ReportGame> {
    g: &'a G,
    pass: &'a Pass,
    probe: &'a Probe<'g, G>,
    opts: &'a ReportOptions,
    id: &'a str,
    start: G::Pos,
    start_value: Value,
    start_side: Side,
    all: Counts,
    reach: Counts,
    slots: u64,
    used: u64,
}

/// A file-name-safe stem for a game id: a variant's `:` becomes `@`, as in
/// its tablebase directory (preset ids are unchanged).
pub fn file_stem(id: &str) -> String {
    id.replace(':', "@")
}

/// One section of the report: appends its markdown (and figures) to `doc`.
type Section<G> = fn(&Ctx<'_, '_, G>, &mut Document) -> Result<(), String>;

/// Build the report: its sections in order.
pub fn build<G: ReportGame>(
    g: &G,
    pass: &Pass,
    probe: &Probe<G>,
    opts: &ReportOptions,
) -> Result<Document, String> {
    let start = g.start();
    let start_value = probe.value(&start)?;
    let ctx = Ctx {
        g,
        pass,
        probe,
        opts,
        id: g.id(),
        start,
        start_value,
        start_side: g.side_to_move(&start),
        all: pass.total(|t| t.all),
        reach: pass.total(|t| t.reach),
        slots: pass.tiers.iter().map(|t| t.slots).sum(),
        used: pass.tiers.iter().map(|t| t.used_slots).sum(),
    };
    let sections: [Section<G>; 12] = [
        headline,
        rules,
        start_position,
        per_tier,
        reachability,
        longest_wins,
        mutual_zugzwangs,
        lock_flag,
        heat_map,
        game_specific,
        rule_readings,
        cost,
    ];
    let mut doc = Document {
        markdown: String::new(),
        figures: Vec::new(),
    };
    for section in sections {
        section(&ctx, &mut doc)?;
    }
    Ok(doc)
}

/// The title and the headline figures.
fn headline<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let start = c.start;
    let start_value = c.start_value;
    let start_side = c.start_side;
    let all = c.all;
    let reach = c.reach;
    let slots = c.slots;
    let used = c.used;
    let id = c.id;
    let md = &mut doc.markdown;
    let _ = writeln!(md, "# {} (`{id}`): the solved game\n", g.title());
    let _ = writeln!(
        md,
        "Generated by `qibase report {id}` from the complete tablebase (retrograde analysis of every \
         position). Board: {}. Material: {}.\n",
        g.board_desc(),
        g.material_desc()
    );
    let _ = writeln!(md, "## Headline\n");
    let _ = writeln!(
        md,
        "- Start position `{}`: **{}**, i.e. {}.",
        g.format_pos(&start),
        start_value,
        verdict(g, start_side, start_value)
    );
    let _ = writeln!(md, "- Start value (side to move): `{start_value}`");
    let _ = writeln!(
        md,
        "- Positions: {} in all ({} table slots, {} of them holding a position); wins {}, draws {}, losses {} for the side to move.",
        int(all.total()),
        int(slots),
        int(used),
        pct(all.wins, all.total()),
        pct(all.draws, all.total()),
        pct(all.losses, all.total())
    );
    let _ = writeln!(
        md,
        "- Reachable from the start: {} positions ({} of all).\n",
        int(reach.total()),
        pct(reach.total(), all.total())
    );

    Ok(())
}

/// The rules in brief and what is counted.
fn rules<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let md = &mut doc.markdown;
    let _ = writeln!(md, "## Rules in brief\n");
    let _ = writeln!(md, "{}\n", g.rules_brief());
    // A variant: what its parameters change (they override the preset's
    // rules and interpretations above where the two disagree).
    let spec = g.variant_spec();
    if let Ok(raw) = qibase::games::variant::split(&spec) {
        if !raw.params.is_empty() {
            let _ = writeln!(
                md,
                "**This variant, `{spec}`,** changes the rules of `{}` above; where they disagree, \
                 this holds:\n",
                raw.base
            );
            for (k, v) in &raw.params {
                let help = g
                    .param_docs()
                    .iter()
                    .find(|d| d.key == *k)
                    .map_or("", |d| d.help);
                let _ = writeln!(md, "- `{k}={v}` (parameter `{k}`: {help}).");
            }
            let _ = writeln!(md);
        }
    }
    let _ = writeln!(md, "{}\n", super::games::common_rules());
    let _ = writeln!(
        md,
        "The full rules, notation and numbering are in `docs/rules.md`.\n"
    );
    let _ = writeln!(md, "**What is counted.** {}\n", g.counting_note());

    Ok(())
}

/// The start position: every first move and the principal variation.
fn start_position<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let probe = c.probe;
    let start = c.start;
    let start_value = c.start_value;
    let start_side = c.start_side;
    let md = &mut doc.markdown;
    let _ = writeln!(md, "## The start position\n");
    code(md, &g.diagram(&start, None));
    let _ = writeln!(
        md,
        "Value: **{start_value}** for {} to move ({}).\n",
        g.side_letter(start_side),
        verdict(g, start_side, start_value)
    );
    let _ = writeln!(
        md,
        "Every first move, valued from the mover's view (the move counts as a ply):\n"
    );
    let _ = writeln!(md, "| move | value | position after it |");
    let _ = writeln!(md, "|---|---|---|");
    for (m, v) in probe.move_values(&start)? {
        let after = g.apply(&start, &m);
        let _ = writeln!(
            md,
            "| `{}` | {} | `{}` |",
            g.format_move(&m),
            v,
            g.format_pos(&after)
        );
    }
    let _ = writeln!(md);
    let max_plies = match start_value {
        Value::Draw => DRAW_PLIES,
        _ => usize::MAX,
    };
    let pv = probe.line(&start, max_plies)?;
    match start_value {
        Value::Draw => {
            let _ = writeln!(
                md,
                "Principal variation: with best play the game never ends. The first {} plies of a drawing \
                 line (each ply the first best move in notation order, as `qibase query` plays it):\n",
                pv.len()
            );
        }
        _ => {
            let _ = writeln!(
                md,
                "Principal variation ({} plies; the winner takes the fastest win, the loser the slowest \
                 loss, the first such move in notation order, as `qibase query` plays it):\n",
                pv.len()
            );
        }
    }
    code(md, &line_text(g, &start, &pv));
    if start_value == Value::Draw {
        let shown = &pv[..pv.len().min(DRAW_DIAGRAMS)];
        let _ = writeln!(md, "The positions of its first {} plies:\n", shown.len());
        code(md, &line_diagrams(g, &start, shown));
    } else if pv.len() <= DIAGRAM_PLIES {
        let _ = writeln!(md, "The positions along it:\n");
        code(md, &line_diagrams(g, &start, &pv));
    }

    Ok(())
}

/// Values per tier, by side to move, with the W/D/L figure.
fn per_tier<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let pass = c.pass;
    let all = c.all;
    let slots = c.slots;
    let id = c.id;
    let md = &mut doc.markdown;
    let figures = &mut doc.figures;
    let _ = writeln!(md, "## Values per tier\n");
    let _ = writeln!(
        md,
        "Wins, draws and losses are from the side to move. Tiers are listed from the most material \
         down (the reverse of the solve order).\n"
    );
    let _ = writeln!(
        md,
        "| tier | slots | positions | wins | draws | losses | max win | max loss |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for t in &pass.tiers {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            t.name,
            int(t.slots),
            int(t.all.total()),
            int(t.all.wins),
            int(t.all.draws),
            int(t.all.losses),
            t.max_win,
            t.max_loss
        );
    }
    let max_win = pass.tiers.iter().map(|t| t.max_win).max().unwrap_or(0);
    let max_loss = pass.tiers.iter().map(|t| t.max_loss).max().unwrap_or(0);
    let _ = writeln!(
        md,
        "| **all** | {} | {} | {} | {} | {} | {} | {} |",
        int(slots),
        int(all.total()),
        int(all.wins),
        int(all.draws),
        int(all.losses),
        max_win,
        max_loss
    );
    let _ = writeln!(md, "\nBy side to move (all tiers):\n");
    let _ = writeln!(md, "| side to move | positions | wins | draws | losses |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    for (k, side) in [Side::First, Side::Second].into_iter().enumerate() {
        let c = pass.total(|t| t.by_side[k]);
        let _ = writeln!(md, "| {} | {} |", g.side_letter(side), counts_row(&c));
    }
    let _ = writeln!(md);
    let rows: Vec<(String, u64, u64, u64)> = pass
        .tiers
        .iter()
        .map(|t| (t.name.clone(), t.all.wins, t.all.draws, t.all.losses))
        .collect();
    let fig_tiers = format!("{stem}-tiers.svg", stem = file_stem(id));
    figures.push((
        fig_tiers.clone(),
        svg::wdl_per_tier(
            &format!("{}: wins, draws, losses per tier", g.title()),
            &rows,
        ),
    ));
    let _ = writeln!(md, "![W/D/L share per tier]({fig_tiers})\n");

    Ok(())
}

/// Reachability from the start.
fn reachability<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let pass = c.pass;
    let all = c.all;
    let reach = c.reach;
    let md = &mut doc.markdown;
    let _ = writeln!(md, "## Reachability from the start\n");
    let _ = writeln!(
        md,
        "A breadth-first search from the start position over the dense index space, one bitset per \
         tier: tiers are searched from the most material down, each level's frontier expanded in \
         parallel; positions where the game is over are not expanded.\n"
    );
    let _ = writeln!(
        md,
        "| tier | reachable | share of tier | wins | draws | losses |"
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|---:|");
    for t in &pass.tiers {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            t.name,
            int(t.reach.total()),
            pct(t.reach.total(), t.all.total()),
            int(t.reach.wins),
            int(t.reach.draws),
            int(t.reach.losses)
        );
    }
    let _ = writeln!(
        md,
        "| **all** | {} | {} | {} | {} | {} |\n",
        int(reach.total()),
        pct(reach.total(), all.total()),
        int(reach.wins),
        int(reach.draws),
        int(reach.losses)
    );
    let _ = writeln!(
        md,
        "Value distribution, reachable positions beside all positions:\n"
    );
    let _ = writeln!(md, "| set | positions | wins | draws | losses |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    let _ = writeln!(md, "| all positions | {} |", counts_row(&all));
    let _ = writeln!(md, "| reachable | {} |", counts_row(&reach));
    for (k, side) in [Side::First, Side::Second].into_iter().enumerate() {
        let c = pass.total(|t| t.reach_by_side[k]);
        let _ = writeln!(
            md,
            "| reachable, {} to move | {} |",
            g.side_letter(side),
            counts_row(&c)
        );
    }
    let _ = writeln!(md);
    let reach_slots: u64 = pass.tiers.iter().map(|t| t.reach_slots).sum();
    if reach_slots != reach.total() {
        let _ = writeln!(
            md,
            "The search marked {} table entries (slot and variant); weighted by the positions each \
             stands for, that is the {} positions above.\n",
            int(reach_slots),
            int(reach.total())
        );
    }

    Ok(())
}

/// The longest wins, with the remoteness histogram.
fn longest_wins<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let pass = c.pass;
    let probe = c.probe;
    let id = c.id;
    let md = &mut doc.markdown;
    let figures = &mut doc.figures;
    let max_loss = pass.tiers.iter().map(|t| t.max_loss).max().unwrap_or(0);
    let _ = writeln!(md, "## Longest wins\n");
    let win_hist = pass.hist(|t| &t.win_hist);
    let loss_hist = pass.hist(|t| &t.loss_hist);
    let fig_hist = format!("{stem}-remoteness.svg", stem = file_stem(id));
    figures.push((
        fig_hist.clone(),
        svg::remoteness_histogram(
            &format!("{}: positions by remoteness", g.title()),
            &win_hist,
            &loss_hist,
        ),
    ));
    let _ = writeln!(md, "![remoteness histogram]({fig_hist})\n");
    let longest_all = pass.longest(|t: &TierResult| t.longest_win);
    let longest_reach = pass.longest(|t: &TierResult| t.longest_reach_win);
    let same = longest_all == longest_reach;
    for (label, pick) in [
        (
            if same {
                "among all positions (and among those reachable from the start)"
            } else {
                "among all positions"
            },
            longest_all,
        ),
        (
            "among positions reachable from the start",
            if same { None } else { longest_reach },
        ),
    ] {
        let Some((r, pr)) = pick else { continue };
        let p = pos_of(g, pr);
        let count = win_hist.get(r as usize).copied().unwrap_or(0);
        let _ = writeln!(
            md,
            "**Longest win {label}: `win {r}`** ({} positions of all have `win {r}`). Example, in tier {} (the \
             first such slot in index order): `{}`\n",
            int(count),
            g.tier_name(pr.0),
            g.format_pos(&p)
        );
        code(md, &g.diagram(&p, None));
        let line = probe.line(&p, usize::MAX)?;
        let _ = writeln!(
            md,
            "Its line ({} plies, best play both sides):\n",
            line.len()
        );
        code(md, &line_text(g, &p, &line));
    }
    let _ = writeln!(
        md,
        "The longest loss is `loss {max_loss}` (the side to move holds out {max_loss} plies).\n"
    );

    Ok(())
}

/// Mutual zugzwangs.
fn mutual_zugzwangs<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let pass = c.pass;
    let probe = c.probe;
    let start = c.start;
    let md = &mut doc.markdown;
    let mutual: u64 = pass.tiers.iter().map(|t| t.mutual).sum();
    let mutual_nt: u64 = pass.tiers.iter().map(|t| t.mutual_nontrivial).sum();
    let mutual_reach: u64 = pass.tiers.iter().map(|t| t.mutual_reach).sum();
    let _ = writeln!(md, "## Mutual zugzwangs\n");
    let _ = writeln!(
        md,
        "A mutual zugzwang is a placement of the pieces that is lost for whichever side is to move: the \
         position and the same board with the other side to move are both losses{}. Counted in positions \
         (each such placement gives two, one per side to move).\n",
        if g.locked_twin(&start).is_some() {
            " (the lock flag kept as it is)"
        } else {
            ""
        }
    );
    if mutual == 0 {
        let _ = writeln!(md, "This game has none.\n");
    } else {
        let _ = writeln!(
            md,
            "- {} positions ({} placements); {} of them with a legal move for both sides (remoteness > 0 \
             both ways); {} reachable from the start.\n",
            int(mutual),
            int(mutual / 2),
            int(mutual_nt),
            int(mutual_reach)
        );
        let _ = writeln!(md, "| tier | positions | both sides can move | reachable |");
        let _ = writeln!(md, "|---|---:|---:|---:|");
        for t in pass.tiers.iter().filter(|t| t.mutual > 0) {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                t.name,
                int(t.mutual),
                int(t.mutual_nontrivial),
                int(t.mutual_reach)
            );
        }
        let _ = writeln!(md);
        if let Some((_, pr)) = pass.longest(|t: &TierResult| t.mutual_example) {
            let p = pos_of(g, pr);
            let q = g.side_swapped(&p);
            let (vp, vq) = (probe.value(&p)?, probe.value(&q)?);
            let _ = writeln!(
                md,
                "The example with the longest defence (the larger of the two shorter losses): `{}` is \
                 `{vp}`, and with {} to move, `{}`, it is `{vq}`.\n",
                g.format_pos(&p),
                g.side_letter(g.side_to_move(&q)),
                g.format_pos(&q)
            );
            code(md, &g.diagram(&p, None));
        }
    }

    Ok(())
}

/// Weiming's lock flag: how often it changes the value (only when the game has one).
fn lock_flag<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let pass = c.pass;
    let md = &mut doc.markdown;
    let lock_total: u64 = pass
        .tiers
        .iter()
        .map(|t| t.lock_transitions.iter().flatten().sum::<u64>())
        .sum();
    if lock_total > 0 {
        let changed: u64 = pass.tiers.iter().map(|t| t.lock_changed).sum();
        let changed_wdl: u64 = pass.tiers.iter().map(|t| t.lock_changed_wdl).sum();
        let _ = writeln!(md, "## The lock flag\n");
        let _ = writeln!(
            md,
            "Each position with the shared piece free (`-`) compared with the same board and side to move \
             with the shared piece locked (`!`): {} pairs. The value changes in {} of them ({}); the \
             outcome (win / draw / loss) changes in {} ({}).\n",
            int(lock_total),
            int(changed),
            pct(changed, lock_total),
            int(changed_wdl),
            pct(changed_wdl, lock_total)
        );
        let _ = writeln!(md, "| free \\ locked | win | draw | loss |");
        let _ = writeln!(md, "|---|---:|---:|---:|");
        let mut tr = [[0u64; 3]; 3];
        for t in &pass.tiers {
            for (row, trow) in tr.iter_mut().zip(&t.lock_transitions) {
                for (x, y) in row.iter_mut().zip(trow) {
                    *x += y;
                }
            }
        }
        for (a, name) in ["win", "draw", "loss"].iter().enumerate() {
            let _ = writeln!(
                md,
                "| {name} | {} | {} | {} |",
                int(tr[a][0]),
                int(tr[a][1]),
                int(tr[a][2])
            );
        }
        let _ = writeln!(md);
    }

    Ok(())
}

/// The occupancy heat map.
fn heat_map<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let pass = c.pass;
    let id = c.id;
    let md = &mut doc.markdown;
    let figures = &mut doc.figures;
    let kinds = g.piece_kinds();
    let classes = g.heat_classes();
    let points = g.point_names().len();
    let mut shares: Vec<Vec<Vec<f64>>> = Vec::new();
    let mut weights = [0u64; 2];
    for t in &pass.tiers {
        weights[0] += t.heat_weight[0];
        weights[1] += t.heat_weight[1];
    }
    for k in 0..kinds.len() {
        let mut row = Vec::new();
        for (c, &wc) in weights.iter().enumerate() {
            let mut sum = vec![0f64; points];
            for t in &pass.tiers {
                for (s, &x) in sum.iter_mut().zip(&t.heat[c][k]) {
                    *s += x as f64;
                }
            }
            let sym = g.symmetrize(&sum);
            row.push(sym.iter().map(|x| x / wc.max(1) as f64).collect());
        }
        shares.push(row);
    }
    let fig_heat = format!("{stem}-heatmap.svg", stem = file_stem(id));
    // The board as the game draws it (the same geometry the web page uses).
    let geometry = g.geometry();
    figures.push((
        fig_heat.clone(),
        svg::heat_map(
            &format!("{}: how often each point is occupied", g.title()),
            &kinds,
            &classes,
            &shares,
            &g.point_names(),
            &geometry
                .points
                .iter()
                .map(|q| (q.x, q.y))
                .collect::<Vec<_>>(),
            &geometry
                .lines
                .iter()
                .map(|&[a, b]| (a, b))
                .collect::<Vec<_>>(),
        ),
    ));
    let _ = writeln!(md, "## Where the pieces stand\n");
    let _ = writeln!(
        md,
        "Share of positions with a piece of each kind on each point, among positions {} ({} positions) \
         and among positions {} ({} positions); draws are left out.\n",
        classes[0],
        int(weights[0]),
        classes[1],
        int(weights[1])
    );
    let _ = writeln!(md, "![occupancy heat map]({fig_heat})\n");

    Ok(())
}

/// The game's own sections.
fn game_specific<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let probe = c.probe;
    let opts = c.opts;
    let md = &mut doc.markdown;
    md.push_str(&g.extra_sections(probe, opts)?);

    Ok(())
}

/// The cost of the solve: time, memory, file sizes.
/// The start value under each rule reading and setup (src/report/variants.rs).
fn rule_readings<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    doc.markdown += &super::variants::section(c.id, &c.opts.dir);
    Ok(())
}

fn cost<G: ReportGame>(c: &Ctx<'_, '_, G>, doc: &mut Document) -> Result<(), String> {
    let g = c.g;
    let pass = c.pass;
    let all = c.all;
    let slots = c.slots;
    let md = &mut doc.markdown;
    let secs: f64 = pass.tiers.iter().map(|t| t.header.seconds).sum();
    let threads = pass
        .tiers
        .iter()
        .map(|t| t.header.threads)
        .max()
        .unwrap_or(0);
    let file_bytes: u64 = pass.tiers.iter().map(|t| t.file_bytes).sum();
    let work = pass
        .tiers
        .iter()
        .map(|t| {
            let deps: u64 = g.tier_deps(t.tier).iter().map(|&d| g.tier_size(d)).sum();
            2 * t.slots + 2 * deps
        })
        .max()
        .unwrap_or(0);
    let _ = writeln!(md, "## Cost of the solve\n");
    let _ = writeln!(md, "| tier | slots | seconds | M slots/s | file size |");
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    for t in &pass.tiers {
        let _ = writeln!(
            md,
            "| {} | {} | {:.2} | {:.2} | {} |",
            t.name,
            int(t.slots),
            t.header.seconds,
            t.slots as f64 / t.header.seconds.max(1e-9) / 1e6,
            bytes(t.file_bytes)
        );
    }
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "- Solve time (sum of the tier times in the tablebase headers): {secs:.3} s with {threads} threads, \
         {:.2} M slots/s ({:.2} M positions/s).",
        slots as f64 / secs.max(1e-9) / 1e6,
        all.total() as f64 / secs.max(1e-9) / 1e6
    );
    let peak = pass
        .tiers
        .iter()
        .map(|t| t.header.peak_rss)
        .max()
        .unwrap_or(0);
    let peak_text = if peak == 0 {
        "not recorded in the tier headers".to_string()
    } else {
        format!(
            "{} (the largest peak resident memory recorded in the tier headers)",
            bytes(peak)
        )
    };
    let _ = writeln!(
        md,
        "- Peak memory: {peak_text}. The solver's working set is at least 2 bytes per slot of the tier being solved (one 16-bit state word) \
         plus 2 bytes per slot of the tiers it captures into: {} for the largest tier.",
        bytes(work)
    );
    let _ = writeln!(
        md,
        "- Tablebase size: {} in {} files, {:.2} bits per slot, {:.2} bits per position.\n",
        bytes(file_bytes),
        pass.tiers.len(),
        8.0 * file_bytes as f64 / slots.max(1) as f64,
        8.0 * file_bytes as f64 / all.total().max(1) as f64
    );

    Ok(())
}
