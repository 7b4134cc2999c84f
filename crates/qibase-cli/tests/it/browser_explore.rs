//! The page as an explorer, in headless Chromium (see browser.rs): the
//! position editor (place, remove, side to move, a bad pasted string), a
//! variant picked from the served directory's tables and drawn from its
//! geometry, and a pasted game reviewed with its one blunder marked, at a
//! desktop and a phone size, in English and in Chinese. Screenshots go to
//! `target/screenshots/` (or `$QIBASE_SCREENSHOT_DIR`).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use fantoccini::{Client, Locator};
use serde_json::{json, Value as Json};

use crate::browser::{
    connect_sized, js, screenshot_dir, start_chromedriver, tap, text_of, url_pos, wait_for,
    wait_text, Guard,
};
use crate::common::{qibase, temp_dir};

const VARIANT: &str = "two-cannons:board=6x5,soldiers=3,threshold=2";

/// `qibase serve` on `dir`; its address.
fn serve(dir: &Path) -> (Guard, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qibase"))
        .args(["serve", "--port", "0", "--dir", dir.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start qibase serve");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    (Guard(child), addr)
}

/// `qibase query --json weiming POS` on the committed table.
fn query(pos: &str) -> Json {
    let o = qibase(&["query", "--json", "weiming", pos]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A won position of weiming (win 3 for O, whose other move draws).
const WON: &str = "X.X/SXO/.OO O -";

/// A weiming game from [`WON`]: the worst move, then best moves; and how
/// many of its moves `qibase annotate` marks.
fn game_with_a_blunder() -> (Vec<String>, usize) {
    let mut pos = WON.to_string();
    let mut moves = Vec::new();
    for ply in 1..=6 {
        let a = query(&pos);
        let list = a["moves"].as_array().unwrap();
        let Some(m) = (if ply == 1 { list.last() } else { list.first() }) else {
            break;
        };
        moves.push(m["move"].as_str().unwrap().to_string());
        pos = m["position"].as_str().unwrap().to_string();
    }
    let mut args = vec!["annotate", "weiming", "--json", "--from", WON];
    args.extend(moves.iter().map(String::as_str));
    let o = qibase(&args);
    assert!(o.status.success());
    let marked = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"mistake\":true"))
        .count();
    (moves, marked)
}

async fn click(c: &Client, id: &str) {
    c.find(Locator::Id(id))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// The page shows `pos` with the value and the number of moves the CLI gives.
async fn shows(c: &Client, pos: &str) {
    let q = query(pos);
    let (cat, n) = (
        q["category"].as_str().unwrap().to_string(),
        q["moves"].as_array().unwrap().len(),
    );
    let pos = pos.to_string();
    wait_for(&format!("{pos} valued"), 15, || {
        let (pos, cat) = (pos.clone(), cat.clone());
        async move {
            let v = js(c, "const v = document.getElementById('value'); return [v.dataset.category, document.querySelectorAll('#moves button.move').length];").await;
            (url_pos(c).await == pos && v == json!([cat, n])).then_some(())
        }
    })
    .await;
}

async fn shot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    std::fs::write(screenshot_dir().join(format!("explore-{name}.png")), png).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editor_variants_and_review_in_both_languages() {
    let Some((_driver, port)) = start_chromedriver() else {
        return;
    };
    let dir = temp_dir("browser-explore");
    let o = qibase(&["solve", VARIANT, "--dir", dir.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (_server, addr) = serve(&dir);
    let (moves, marked) = game_with_a_blunder();
    assert_eq!(
        marked, 1,
        "the worst move of a won position changes the result once: {moves:?}"
    );
    for (lang, bad, group, board) in [
        (
            "en",
            "That is not a valid position",
            "Two Cannons, Twelve Soldiers",
            "6×5 board",
        ),
        ("zh", "局面无效", "两炮十二兵", "6×5 棋盘"),
    ] {
        for (size, wh) in [("desktop", (1300, 1050)), ("phone", (390, 844))] {
            let c = connect_sized(port, wh).await;
            let tag = format!("{lang}-{size}");
            c.goto(&format!("{addr}/?game=weiming&lang={lang}"))
                .await
                .unwrap();
            shows(&c, "XXX/S../OOO X -").await;
            // Close the rules shown on a first visit.
            if js(&c, "return document.getElementById('rules-dialog').open;").await == json!(true) {
                click(&c, "rules-close").await;
            }

            shot(&c, &format!("{tag}-page")).await;

            // The editor: remove the X on tl (X → O → S → empty), place one on x.
            click(&c, "edit-btn").await;
            for _ in 0..3 {
                tap(&c, "tl").await;
            }
            tap(&c, "x").await;
            shows(&c, ".XX/SX./OOO X -").await;
            let field = js(&c, "return document.getElementById('editor-pos').value;").await;
            assert_eq!(field, json!(".XX/SX./OOO X -"));
            // The side to move.
            c.find(Locator::Css("#editor-sides input[value='O']"))
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            shows(&c, ".XX/SX./OOO O -").await;
            shot(&c, &format!("{tag}-editor")).await;
            // A bad string: the server's error, in the page's language.
            js(&c, "const f = document.getElementById('editor-pos'); f.value = 'XXX/S../OO X -'; f.dispatchEvent(new Event('change'));").await;
            let err = wait_text(&c, "#status.error", bad, 10).await;
            assert!(err.contains("OO"), "{err}");
            shot(&c, &format!("{tag}-editor-error")).await;
            // A win in one ply, in the page's own words (Chinese has no
            // singular form: its general string, never the English one).
            js(&c, "const f = document.getElementById('editor-pos'); f.value = 'XOX/S../XOO O -'; f.dispatchEvent(new Event('change'));").await;
            shows(&c, "XOX/S../XOO O -").await;
            let words = text_of(&c, "#value-words").await.unwrap();
            let want = if lang == "zh" {
                "1 步取胜"
            } else {
                "wins in 1 ply "
            };
            assert!(words.contains(want), "{lang}: {words}");
            click(&c, "editor-reset").await;
            shows(&c, "XXX/S../OOO X -").await;
            click(&c, "editor-done").await;

            // A variant of the served directory, under its game, on its own board.
            let label = js(&c, &format!("const o = [...document.querySelectorAll('#game option')].find((o) => o.value === '{VARIANT}'); return [o.parentElement.label, o.textContent];")).await;
            assert_eq!(label[0], json!(group), "{label}");
            assert!(label[1].as_str().unwrap().contains(board), "{label}");
            js(&c, &format!("const s = document.getElementById('game'); s.value = '{VARIANT}'; s.dispatchEvent(new Event('change'));")).await;
            wait_for("the 6×5 board", 15, || async {
                let n = js(
                    &c,
                    "return document.querySelectorAll('#board g.point').length;",
                )
                .await;
                (n == json!(30) && text_of(&c, "#value").await.is_some_and(|v| v != "…"))
                    .then_some(())
            })
            .await;
            shot(&c, &format!("{tag}-variant")).await;

            // Review a pasted game of weiming: its one blunder marked.
            js(&c, "const s = document.getElementById('game'); s.value = 'weiming'; s.dispatchEvent(new Event('change'));").await;
            shows(&c, "XXX/S../OOO X -").await;
            // The won position, pasted into the editor.
            click(&c, "edit-btn").await;
            js(&c, &format!("const f = document.getElementById('editor-pos'); f.value = '{WON}'; f.dispatchEvent(new Event('change'));")).await;
            shows(&c, WON).await;
            click(&c, "editor-done").await;
            js(&c, &format!("const r = document.getElementById('review'); r.open = true; document.getElementById('review-moves').value = '{}';", moves.join(" "))).await;
            click(&c, "review-here").await;
            wait_for("the review", 15, || async {
                let n = js(
                    &c,
                    "return document.querySelectorAll('#review-list li').length;",
                )
                .await;
                (n == json!(moves.len())).then_some(())
            })
            .await;
            let marks = js(&c, "return [...document.querySelectorAll('#review-list li.mistake')].map((l) => l.dataset.ply);").await;
            assert_eq!(marks, json!(["1"]));
            // (Read in one script: the list is redrawn as values arrive.)
            let mark = js(
                &c,
                "return document.querySelector('#review-list li.mistake .review-mark').textContent;",
            )
            .await;
            let mark = mark.as_str().unwrap();
            assert!(mark.starts_with("??"), "{mark}");
            assert!(mark.contains("m-tm"), "the best move instead: {mark}");
            // The permalink carries the review.
            let u = c.current_url().await.unwrap();
            assert!(
                u.query_pairs()
                    .any(|(k, v)| k == "moves" && v == moves.join(",")),
                "{u}"
            );
            let fits = js(
                &c,
                "return document.documentElement.scrollWidth <= window.innerWidth;",
            )
            .await;
            assert_eq!(fits, json!(true), "{tag}: horizontal scrolling");
            c.find(Locator::Css("#review-list li.mistake"))
                .await
                .unwrap();
            js(
                &c,
                "document.querySelector('#review-list li.mistake').scrollIntoView();",
            )
            .await;
            shot(&c, &format!("{tag}-review")).await;
            c.close().await.unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
