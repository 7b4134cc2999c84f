//! Small hand-written SVG figures: a remoteness histogram, W/D/L shares per
//! tier and point-occupancy heat maps. Numbers are printed with fixed
//! precision so the output is deterministic.

use std::fmt::Write as _;

const WIN: &str = "#2e7d32";
const DRAW: &str = "#9e9e9e";
const LOSS: &str = "#c62828";
const FONT: &str = "font-family=\"sans-serif\"";

fn header(w: f64, h: f64) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    )
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn text(out: &mut String, x: f64, y: f64, size: u32, anchor: &str, s: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" {FONT} text-anchor=\"{anchor}\">{}</text>",
        esc(s)
    );
}

/// Bars of wins and losses by remoteness, on a logarithmic count axis.
pub fn remoteness_histogram(title: &str, wins: &[u64], losses: &[u64]) -> String {
    let n = wins.len().max(losses.len()).max(1);
    let (w, h) = (900.0, 380.0);
    let (left, right, top, bottom) = (70.0, 20.0, 40.0, 60.0);
    let pw = w - left - right;
    let ph = h - top - bottom;
    let max = wins.iter().chain(losses).copied().max().unwrap_or(1).max(1);
    let decades = ((max as f64).log10().ceil() as u32).max(1);
    let y_of = |c: u64| -> f64 {
        let f = (c as f64).log10() / decades as f64;
        top + ph - f * ph
    };
    let mut s = header(w, h);
    text(&mut s, w / 2.0, 22.0, 15, "middle", title);
    // Axes and decade grid lines.
    for d in 0..=decades {
        let y = top + ph - ph * d as f64 / decades as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{left:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#dddddd\"/>",
            left + pw
        );
        text(&mut s, left - 6.0, y + 4.0, 11, "end", &format!("1e{d}"));
    }
    let slot = pw / n as f64;
    let bw = (slot / 2.0 - 0.3).max(0.4);
    for (series, colour, off) in [(wins, WIN, 0.0), (losses, LOSS, 1.0)] {
        for (r, &c) in series.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let x = left + r as f64 * slot + off * slot / 2.0;
            let y = y_of(c).min(top + ph - 1.5);
            let _ = writeln!(
                s,
                "<rect x=\"{x:.2}\" y=\"{y:.2}\" width=\"{bw:.2}\" height=\"{:.2}\" fill=\"{colour}\"/>",
                top + ph - y
            );
        }
    }
    let _ = writeln!(
        s,
        "<line x1=\"{left:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"black\"/>",
        top + ph,
        left + pw,
        top + ph
    );
    // Remoteness ticks: about 10 labels.
    let step = [1usize, 2, 5, 10, 20, 50, 100]
        .into_iter()
        .find(|&k| n / k <= 12)
        .unwrap_or(200);
    for r in (0..n).step_by(step) {
        let x = left + (r as f64 + 0.5) * slot;
        text(&mut s, x, top + ph + 16.0, 11, "middle", &r.to_string());
    }
    text(
        &mut s,
        left + pw / 2.0,
        h - 22.0,
        12,
        "middle",
        "remoteness (plies)",
    );
    text(
        &mut s,
        left - 6.0,
        top - 12.0,
        11,
        "start",
        "positions (log scale)",
    );
    // Legend.
    let lx = w - right - 170.0;
    for (k, (name, colour)) in [("win (side to move)", WIN), ("loss (side to move)", LOSS)]
        .into_iter()
        .enumerate()
    {
        let y = top + 4.0 + 16.0 * k as f64;
        let _ = writeln!(
            s,
            "<rect x=\"{lx:.1}\" y=\"{y:.1}\" width=\"10\" height=\"10\" fill=\"{colour}\"/>"
        );
        text(&mut s, lx + 15.0, y + 9.0, 11, "start", name);
    }
    s.push_str("</svg>\n");
    s
}

/// Horizontal stacked bars: share of wins, draws and losses per tier.
/// `rows` are (label, wins, draws, losses).
pub fn wdl_per_tier(title: &str, rows: &[(String, u64, u64, u64)]) -> String {
    let row_h = 18.0;
    let (left, right, top) = (70.0, 20.0, 50.0);
    let w = 760.0;
    let pw = w - left - right;
    let h = top + row_h * rows.len() as f64 + 40.0;
    let mut s = header(w, h);
    text(&mut s, w / 2.0, 22.0, 15, "middle", title);
    let mut lx = left;
    for (name, colour) in [("win", WIN), ("draw", DRAW), ("loss", LOSS)] {
        let _ = writeln!(
            s,
            "<rect x=\"{lx:.1}\" y=\"30\" width=\"10\" height=\"10\" fill=\"{colour}\"/>"
        );
        text(&mut s, lx + 14.0, 39.0, 11, "start", name);
        lx += 70.0;
    }
    text(
        &mut s,
        w - right,
        39.0,
        11,
        "end",
        "share of positions, side to move's view",
    );
    for (k, (label, wi, d, l)) in rows.iter().enumerate() {
        let y = top + row_h * k as f64;
        text(&mut s, left - 6.0, y + 12.5, 11, "end", label);
        let total = (wi + d + l).max(1) as f64;
        let mut x = left;
        for (c, colour) in [(*wi, WIN), (*d, DRAW), (*l, LOSS)] {
            let bw = pw * c as f64 / total;
            if bw <= 0.0 {
                continue;
            }
            let _ = writeln!(
                s,
                "<rect x=\"{x:.2}\" y=\"{:.1}\" width=\"{bw:.2}\" height=\"{:.1}\" fill=\"{colour}\"/>",
                y + 2.0,
                row_h - 4.0
            );
            if bw >= 34.0 {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" {FONT} text-anchor=\"middle\" fill=\"white\">{:.1}%</text>",
                    x + bw / 2.0,
                    y + 12.5,
                    100.0 * c as f64 / total
                );
            }
            x += bw;
        }
    }
    s.push_str("</svg>\n");
    s
}

/// White → dark blue for a share in [0, 1].
fn blue(f: f64) -> String {
    let f = f.clamp(0.0, 1.0);
    let lerp = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        lerp(255.0, 8.0),
        lerp(255.0, 48.0),
        lerp(255.0, 107.0)
    )
}

/// Panels of point occupancy: one row per piece kind, one column per class.
/// `shares[row][col][point]` in [0, 1]; points drawn at `xy` (unit spacing),
/// joined by `edges`.
pub fn heat_map(
    title: &str,
    row_names: &[&str],
    col_names: &[&str],
    shares: &[Vec<Vec<f64>>],
    names: &[String],
    xy: &[(f64, f64)],
    edges: &[(usize, usize)],
) -> String {
    let max_x = xy.iter().map(|p| p.0).fold(0.0, f64::max);
    let max_y = xy.iter().map(|p| p.1).fold(0.0, f64::max);
    let cell = 46.0;
    let pad = 30.0;
    let panel_w = (max_x + 1.0) * cell + pad;
    let panel_h = (max_y + 1.0) * cell + pad + 20.0;
    let left = 130.0;
    let top = 72.0;
    let w = left + panel_w * col_names.len() as f64 + 10.0;
    let h = top + panel_h * row_names.len() as f64 + 10.0;
    let all = || shares.iter().flatten().flatten().copied();
    let lo = all().fold(1.0, f64::min);
    let hi = all().fold(0.0, f64::max);
    let span = (hi - lo).max(1e-9);
    let mut s = header(w, h);
    text(&mut s, w / 2.0, 22.0, 15, "middle", title);
    text(
        &mut s,
        w / 2.0,
        38.0,
        11,
        "middle",
        &format!(
            "share of positions with such a piece on the point; colour from {:.0}% (white) to {:.0}% (dark)",
            100.0 * lo,
            100.0 * hi
        ),
    );
    for (c, name) in col_names.iter().enumerate() {
        let x = left + panel_w * c as f64 + (panel_w - pad) / 2.0;
        text(&mut s, x, top - 12.0, 13, "middle", name);
    }
    for (r, rname) in row_names.iter().enumerate() {
        let y0 = top + panel_h * r as f64;
        text(
            &mut s,
            left - 10.0,
            y0 + (panel_h - pad) / 2.0,
            12,
            "end",
            rname,
        );
        for (c, panel) in shares[r].iter().enumerate().take(col_names.len()) {
            let x0 = left + panel_w * c as f64;
            let at = |p: usize| (x0 + (xy[p].0 + 0.5) * cell, y0 + (xy[p].1 + 0.5) * cell);
            for &(a, b) in edges {
                let (xa, ya) = at(a);
                let (xb, yb) = at(b);
                let _ = writeln!(
                    s,
                    "<line x1=\"{xa:.1}\" y1=\"{ya:.1}\" x2=\"{xb:.1}\" y2=\"{yb:.1}\" stroke=\"#bbbbbb\"/>"
                );
            }
            for (p, &f) in panel.iter().enumerate() {
                let (x, y) = at(p);
                let _ = writeln!(
                    s,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"6\" fill=\"{}\" stroke=\"#555555\"><title>{} {:.1}%</title></rect>",
                    x - cell * 0.42,
                    y - cell * 0.42,
                    cell * 0.84,
                    cell * 0.84,
                    blue((f - lo) / span),
                    esc(&names[p]),
                    100.0 * f
                );
                let fill = if (f - lo) / span > 0.55 {
                    "white"
                } else {
                    "black"
                };
                let _ = writeln!(
                    s,
                    "<text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"11\" {FONT} text-anchor=\"middle\" fill=\"{fill}\">{:.0}%</text>",
                    y + 4.0,
                    100.0 * f
                );
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" {FONT} text-anchor=\"start\" fill=\"{fill}\">{}</text>",
                    x - cell * 0.36,
                    y - cell * 0.2,
                    esc(&names[p])
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
