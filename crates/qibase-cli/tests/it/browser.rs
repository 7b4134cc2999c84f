//! The page end to end in a real browser: headless Chromium driven through
//! WebDriver (chromedriver; `.ci/run` installs the Debian packages
//! `chromium`, `chromium-driver` and `fonts-noto-cjk` when missing).
//!
//! It opens a permalink, checks the value and the move colours, makes a
//! move by clicking, checks the URL and the back button, plays against
//! qibase with a 2 s clock and sees the turn pass, undoes, and saves a
//! screenshot (`target/serve-screenshot.png`, or `$QIBASE_SCREENSHOT`).
//!
//! Without chromedriver or Chromium the tests are skipped with one line
//! saying what to install, and fail under `CI=true` (`common::outside`).

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

use crate::common::outside;

/// Kills the child process when dropped (also when a check fails).
pub(crate) struct Guard(pub(crate) Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `qibase serve --port 0` on the committed tablebase; its address.
fn start_server() -> (Guard, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qibase"))
        .current_dir(crate::common::root())
        .args(["serve", "--port", "0", "--dir", "tablebases"])
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
        .unwrap_or_else(|| panic!("first line: {first}"))
        .to_string();
    (Guard(child), addr)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// chromedriver on a free port; `None` when it or Chromium is missing
/// (the test is skipped, or fails under `CI=true`: `common::outside`).
pub(crate) fn start_chromedriver() -> Option<(Guard, u16)> {
    if !outside::available(&[&outside::CHROMEDRIVER, &outside::CHROMIUM]) {
        return None;
    }
    let port = free_port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver");
    Some((Guard(child), port))
}

async fn connect(port: u16) -> Client {
    connect_sized(port, (1300, 1050)).await
}

/// A session whose window is `w` × `h` CSS pixels (the viewport a little less).
/// Below 500 px wide (Chromium's smallest window) the viewport is a phone's
/// by device emulation.
pub(crate) async fn connect_sized(port: u16, (w, h): (u32, u32)) -> Client {
    let mut caps = serde_json::Map::new();
    let mut opts = json!({"args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-dev-shm-usage", format!("--window-size={},{}", w.max(500), h),
                    "--hide-scrollbars"]});
    if w < 500 {
        opts["mobileEmulation"] =
            json!({"deviceMetrics": {"width": w, "height": h, "pixelRatio": 1.0, "touch": true}});
    }
    caps.insert("goog:chromeOptions".to_string(), opts);
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(caps.clone())
            .connect(&url)
            .await
        {
            Ok(c) => return c,
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("cannot start a WebDriver session: {e}"),
        }
    }
}

/// Poll `f` until it gives `Some`, for at most `secs` seconds.
pub(crate) async fn wait_for<T, F, Fut>(what: &str, secs: u64, mut f: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f().await {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(crate) async fn text_of(c: &Client, css: &str) -> Option<String> {
    c.find(Locator::Css(css)).await.ok()?.text().await.ok()
}

async fn attr_of(c: &Client, css: &str, attr: &str) -> Option<String> {
    c.find(Locator::Css(css))
        .await
        .ok()?
        .attr(attr)
        .await
        .ok()?
}

/// The `pos` parameter of the page's URL, with `_` for spaces.
pub(crate) async fn url_pos(c: &Client) -> String {
    let u = c.current_url().await.unwrap();
    u.query_pairs()
        .find(|(k, _)| k == "pos")
        .map(|(_, v)| v.replace('_', " "))
        .unwrap_or_default()
}

async fn wait_value(c: &Client, want: &str) {
    let want = want.to_string();
    wait_for(&format!("value '{want}'"), 15, || {
        let want = want.clone();
        async move {
            let t = text_of(c, "#value").await?;
            t.ends_with(&want).then_some(())
        }
    })
    .await;
}

async fn plies(c: &Client) -> usize {
    c.find_all(Locator::Css("#chart .ply")).await.unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_in_a_real_browser() {
    let Some((_driver, port)) = start_chromedriver() else {
        return;
    };
    let (_server, addr) = start_server();
    let c = connect(port).await;

    // A permalink: O to move wins in 3 (m-tm), bm-bl only draws.
    let start = "X.X/SXO/.OO O -";
    c.goto(&format!("{addr}/?game=weiming&pos=X.X/SXO/.OO_O_-"))
        .await
        .unwrap();
    wait_value(&c, "win 3").await;
    // A first visit (nothing in localStorage) opens the quick start; close it.
    let quick = wait_for("the quick start", 10, || async {
        let t = text_of(&c, "#rules-dialog[open] ul.quick").await?;
        (!t.is_empty()).then_some(t)
    })
    .await;
    assert!(quick.contains("shared piece"), "{quick}");
    c.find(Locator::Id("rules-close"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert_eq!(
        attr_of(&c, "#value", "data-category").await.as_deref(),
        Some("win")
    );
    let words = text_of(&c, "#value-words").await.unwrap();
    assert!(words.contains("O to move wins in 3 plies"), "{words}");
    // Move colours: grouped by outcome, each with its colour and symbol.
    let win = c
        .find(Locator::Css(".move[data-move='m-tm']"))
        .await
        .unwrap();
    let draw = c
        .find(Locator::Css(".move[data-move='bm-bl']"))
        .await
        .unwrap();
    assert_eq!(win.attr("data-category").await.unwrap().unwrap(), "win");
    assert_eq!(draw.attr("data-category").await.unwrap().unwrap(), "draw");
    assert_eq!(
        win.css_value("background-color").await.unwrap(),
        "rgba(227, 244, 232, 1)"
    );
    assert_eq!(
        draw.css_value("background-color").await.unwrap(),
        "rgba(253, 240, 216, 1)"
    );
    assert!(win.text().await.unwrap().contains('✓'));
    assert!(draw.text().await.unwrap().contains('='));
    let groups = text_of(&c, "#moves").await.unwrap();
    assert!(groups.find("Winning").unwrap() < groups.find("Drawing").unwrap());

    // Clicking an empty point or the opponent's piece changes nothing.
    for p in ["bl", "tl"] {
        c.find(Locator::Css(&format!("g[data-point='{p}'] .hit")))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }
    assert!(c
        .find_all(Locator::Css("g.target"))
        .await
        .unwrap()
        .is_empty());
    assert_eq!(url_pos(&c).await, start);

    // A move by clicking: the piece on m, then tm; targets coloured by outcome.
    c.find(Locator::Css("g[data-point='m'] .hit"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let target = c.find(Locator::Css("g.target")).await.unwrap();
    assert_eq!(target.attr("data-point").await.unwrap().unwrap(), "tm");
    assert!(target.attr("class").await.unwrap().unwrap().contains("win"));
    target
        .find(Locator::Css(".hit"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_value(&c, "loss 2").await;
    assert_eq!(url_pos(&c).await, "XOX/SX./.OO X -");
    // The last move is marked.
    assert!(c.find(Locator::Css(".last-to")).await.is_ok());

    // The back button steps back.
    c.back().await.unwrap();
    wait_value(&c, "win 3").await;
    assert_eq!(url_pos(&c).await, start);

    // Hovering a move previews it on the board; clicking it plays it.
    let draw = c
        .find(Locator::Css(".move[data-move='bm-bl']"))
        .await
        .unwrap();
    c.execute(
        "arguments[0].dispatchEvent(new MouseEvent('mouseenter'));",
        vec![serde_json::to_value(&draw).unwrap()],
    )
    .await
    .unwrap();
    assert!(c.find(Locator::Css(".preview-to")).await.is_ok());
    draw.click().await.unwrap();
    wait_value(&c, "draw").await;
    assert_eq!(url_pos(&c).await, "X.X/SXO/O.O X -");
    c.back().await.unwrap();
    wait_value(&c, "win 3").await;

    // Play first (X) against qibase from the start, with a 2 s clock.
    c.execute(
        "document.getElementById('timer').value = '2';
         document.getElementById('mode').value = 'first';
         document.getElementById('mode').dispatchEvent(new Event('change'));
         document.getElementById('new-game').click();",
        vec![],
    )
    .await
    .unwrap();
    wait_value(&c, "draw").await;
    assert_eq!(url_pos(&c).await, "XXX/S../OOO X -");
    // The clock is shown, then runs out: X's turn passes, qibase (O) answers
    // and it is X's turn again, two plies later.
    let clock = text_of(&c, "#clock").await.unwrap();
    assert!(clock.contains('s'), "{clock}");
    wait_for("the pass and qibase's reply", 15, || async {
        let status = text_of(&c, "#status").await?;
        let turn = text_of(&c, "#turn").await?;
        (status.contains("turn passes") && plies(&c).await == 3 && turn.starts_with("X to move"))
            .then_some(())
    })
    .await;
    let after = url_pos(&c).await;
    assert_ne!(after, "XXX/S../OOO X -");
    // Select a piece that can move: its targets light up, coloured.
    let mv = attr_of(&c, ".move", "data-move").await.unwrap();
    let from = mv.split('-').next().unwrap().to_string();
    c.find(Locator::Css(&format!("g[data-point='{from}'] .hit")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    assert!(!c
        .find_all(Locator::Css("g.target"))
        .await
        .unwrap()
        .is_empty());
    // Screenshot of a game in progress.
    let png = c.screenshot().await.unwrap();
    let out = std::env::var("QIBASE_SCREENSHOT").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/serve-screenshot.png"
        )
        .to_string()
    });
    std::fs::write(&out, png).unwrap();

    // Undo takes back the pass and the reply.
    c.find(Locator::Id("undo"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for("undo", 10, || async {
        (url_pos(&c).await == "XXX/S../OOO X -" && plies(&c).await == 1).then_some(())
    })
    .await;
    c.close().await.unwrap();
}

/// Where the screenshots go (`target/screenshots/`, or `$QIBASE_SCREENSHOT_DIR`).
pub(crate) fn screenshot_dir() -> std::path::PathBuf {
    let d = std::env::var_os("QIBASE_SCREENSHOT_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/screenshots")
        });
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(crate) async fn js(c: &Client, script: &str) -> serde_json::Value {
    c.execute(script, vec![]).await.unwrap()
}

pub(crate) async fn tap(c: &Client, point: &str) {
    let css = format!("g[data-point='{point}'] .hit");
    // The page draws the board again on every change of state: a point
    // found just before a redraw is gone when the click comes. Then the
    // click never reached the page, and it is made again on the new one.
    for _ in 0..20 {
        match c.find(Locator::Css(&css)).await.unwrap().click().await {
            Ok(_) => return,
            Err(e) if format!("{e:?}").contains("StaleElementReference") => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(e) => panic!("tap {point}: {e}"),
        }
    }
    panic!("tap {point}: the board kept being drawn again");
}

pub(crate) async fn wait_text(c: &Client, css: &str, want: &str, secs: u64) -> String {
    let (css, want) = (css.to_string(), want.to_string());
    wait_for(&format!("'{want}' in {css}"), secs, || {
        let (css, want) = (css.clone(), want.clone());
        async move {
            let t = text_of(c, &css).await?;
            t.contains(&want).then_some(t)
        }
    })
    .await
}

/// The page in Chinese, at a desktop and at a phone viewport: titles,
/// values and controls in Chinese, the language switch keeping the
/// position, the rules, a puzzle failed (its refutation shown) and solved
/// by tapping, and at phone size no horizontal scrolling with the board as
/// wide as the screen and big touch targets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chinese_rules_puzzles_desktop_and_phone() {
    let Some((_driver, port)) = start_chromedriver() else {
        return;
    };
    let (_server, addr) = start_server();
    for (name, size) in [("desktop", (1300, 1050)), ("phone", (390, 844))] {
        let phone = name == "phone";
        let c = connect_sized(port, size).await;
        c.goto(&format!("{addr}/?game=weiming&pos=X.X/SXO/.OO_O_-&lang=zh"))
            .await
            .unwrap();
        // Values in Chinese: "胜（3 步）".
        wait_text(&c, "#value", "胜（3 步）", 15).await;
        let quick = wait_text(&c, "#rules-dialog[open] ul.quick", "公用棋子", 10).await;
        assert!(quick.contains("无棋可走"), "{quick}");
        c.find(Locator::Id("rules-close"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        assert_eq!(text_of(&c, "#game-title").await.unwrap(), "未名双承棋之三");
        let options = text_of(&c, "#game").await.unwrap();
        for title in [
            "炮棋 5×4",
            "两炮十二兵",
            "炮棋 4×4（六子冲棋盘）",
            "三炮十五兵",
        ] {
            assert!(options.contains(title), "{title} in {options}");
        }
        assert!(text_of(&c, "#value-words")
            .await
            .unwrap()
            .contains("3 步取胜"));
        assert_eq!(text_of(&c, "#new-game").await.unwrap(), "新对局");
        assert_eq!(text_of(&c, "#undo").await.unwrap(), "↶ 悔棋");
        assert!(text_of(&c, "#difficulty-help")
            .await
            .unwrap()
            .contains("最佳着法"));
        let moves = text_of(&c, "#moves").await.unwrap();
        assert!(
            moves.contains("必胜着法") && moves.contains("和"),
            "{moves}"
        );
        assert!(!moves.contains("win"), "{moves}");

        // Layout: nothing scrolls sideways; on a phone the board fills the
        // width and the controls are big enough to tap.
        let fits = js(
            &c,
            "return document.documentElement.scrollWidth <= window.innerWidth;",
        )
        .await;
        assert_eq!(fits, json!(true), "{name}: horizontal scrolling");
        if phone {
            let r = js(
                &c,
                "const b = document.getElementById('board').getBoundingClientRect();
                 const hit = document.querySelector('#board .hit').getBoundingClientRect();
                 const small = [...document.querySelectorAll('button, select, input')]
                   .filter((e) => e.offsetParent && e.getBoundingClientRect().height < 40)
                   .map((e) => e.id || e.textContent);
                 return [b.width, window.innerWidth, hit.width, small];",
            )
            .await;
            let (bw, iw, hw) = (
                r[0].as_f64().unwrap(),
                r[1].as_f64().unwrap(),
                r[2].as_f64().unwrap(),
            );
            assert!(bw >= iw - 20.0, "board {bw} px in a {iw} px window");
            assert!(hw >= 40.0, "touch target {hw} px");
            assert_eq!(r[3], json!([]), "controls under 40 px");
            // Value and move list below the board.
            let below = js(
                &c,
                "return document.getElementById('value').getBoundingClientRect().top >
                        document.getElementById('board').getBoundingClientRect().bottom;",
            )
            .await;
            assert_eq!(below, json!(true));
        }

        // A move by tapping: the piece on m, then tm.
        tap(&c, "m").await;
        tap(&c, "tm").await;
        wait_text(&c, "#value", "负（2 步）", 15).await;
        assert_eq!(url_pos(&c).await, "XOX/SX./.OO X -");
        if phone {
            let png = c.screenshot().await.unwrap();
            std::fs::write(screenshot_dir().join("phone-zh.png"), png).unwrap();
        }
        // Switching the language keeps the position and goes in the permalink.
        js(
            &c,
            "const s = document.getElementById('lang'); s.value = 'en';
             s.dispatchEvent(new Event('change')); return null;",
        )
        .await;
        wait_text(&c, "#value", "loss 2", 10).await;
        assert_eq!(url_pos(&c).await, "XOX/SX./.OO X -");
        assert!(c.current_url().await.unwrap().as_str().contains("lang=en"));
        assert_eq!(text_of(&c, "#new-game").await.unwrap(), "New game");
        assert_eq!(
            js(&c, "return localStorage.getItem('qibase.lang');").await,
            json!("en")
        );
        // The rules open from the board: quick start, then the full rules.
        c.find(Locator::Id("rules-btn"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_text(&c, "#rules-dialog[open] ul.quick", "shared piece", 10).await;
        c.find(Locator::Css("#rules-dialog [data-tab='full']"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_text(&c, "#rules-body", "Lockout", 10).await;
        assert!(text_of(&c, "#rules-body")
            .await
            .unwrap()
            .contains("turn clock"));
        c.find(Locator::Id("rules-close"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        // Back to Chinese for the puzzles.
        js(
            &c,
            "const s = document.getElementById('lang'); s.value = 'zh';
             s.dispatchEvent(new Event('change')); return null;",
        )
        .await;
        wait_text(&c, "#value", "负（2 步）", 10).await;

        // Puzzle mode from its button: the first puzzle of the set.
        c.find(Locator::Id("puzzle-btn"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_text(&c, "#puzzle-head", "习题 1 / ", 10).await;
        // The values are hidden while solving.
        assert!(!c
            .find(Locator::Id("moves"))
            .await
            .unwrap()
            .is_displayed()
            .await
            .unwrap());
        // The set's first win puzzle, by its permalink (whatever set is
        // embedded: the test reads it from the API).
        let set = js(
            &c,
            "return fetch('/api/v1/weiming/puzzles').then((r) => r.json());",
        )
        .await;
        let p = set["puzzles"]
            .as_array()
            .unwrap()
            .iter()
            // A win that takes more than the puzzle's move, so that
            // qibase answers and the game is played out.
            .find(|p| {
                let v = p["value"].as_str().unwrap();
                v.starts_with("win") && v[4..].parse::<u32>().unwrap() >= 3
            })
            .expect("a win puzzle in 3 or more plies in the weiming set")
            .clone();
        let id = p["id"].as_str().unwrap();
        let solver = p["position"].as_str().unwrap().split(' ').nth(1).unwrap();
        let side = format!("{solver}方");
        c.goto(&format!("{addr}/?game=weiming&puzzle={id}&lang=zh"))
            .await
            .unwrap();
        wait_text(&c, "#puzzle-task", "找出取胜的一步", 10).await;
        assert!(text_of(&c, "#puzzle-task").await.unwrap().contains(&side));
        // A wrong move: why (the value it leads to, in words), with the
        // refutation line starting with the opponent's best reply.
        let wrong = &p["wrong"][0];
        let (from, to) = wrong["move"].as_str().unwrap().split_once('-').unwrap();
        tap(&c, from).await;
        tap(&c, to).await;
        let why = wait_text(&c, "#puzzle-why", wrong["move"].as_str().unwrap(), 10).await;
        let value = wrong["value"].as_str().unwrap();
        let words = match value.split_once(' ') {
            None => "和".to_string(),
            Some(("win", n)) => format!("胜（{n} 步）"),
            Some((_, n)) => format!("负（{n} 步）"),
        };
        assert!(why.contains(&words), "{why} should say {value}");
        let reply = wrong["refutation"][0].as_str().unwrap();
        let first = wait_text(&c, "#puzzle-refutation li", reply, 10).await;
        assert!(first.starts_with("1."), "{first}");
        // The refutation is played out on the board.
        if wrong["refutation"].as_array().unwrap().len() >= 2 {
            wait_for("the refutation on the board", 10, || async {
                let b = attr_of(&c, "#puzzle-refutation li.current", "data-step").await?;
                (b.parse::<u32>().ok()? >= 2).then_some(())
            })
            .await;
        }
        if !phone {
            let png = c.screenshot().await.unwrap();
            std::fs::write(screenshot_dir().join("puzzle-zh.png"), png).unwrap();
        }
        // Try again, and solve it by tapping.
        c.find(Locator::Id("puzzle-retry"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        wait_text(&c, "#puzzle-task", "找出取胜的一步", 10).await;
        assert!(c.find(Locator::Id("puzzle-why")).await.is_err());
        let (from, to) = p["best"].as_str().unwrap().split_once('-').unwrap();
        tap(&c, from).await;
        tap(&c, to).await;
        wait_text(&c, "#puzzle-note", "对了", 10).await;
        // qibase answers perfectly; the solver plays a winning move each
        // turn until the game is won.
        let remoteness: usize = p["value"].as_str().unwrap()[4..].parse().unwrap();
        for ply in (3..=remoteness).step_by(2) {
            let win = wait_for("qibase's reply", 20, || async {
                let turn = text_of(&c, "#turn").await?;
                if !turn.contains(&side) || turn.contains("思考") || plies(&c).await != ply {
                    return None;
                }
                attr_of(&c, "#moves .move[data-category='win']", "data-move").await
            })
            .await;
            let (from, to) = win.split_once('-').unwrap();
            tap(&c, from).await;
            tap(&c, to).await;
        }
        let banner = wait_text(&c, "#banner", "获胜", 20).await;
        assert!(banner.contains(&format!("你执{side}获胜")), "{banner}");
        wait_text(&c, "#puzzle-note", "完成", 10).await;
        let progress = js(
            &c,
            "return JSON.parse(localStorage.getItem('qibase.puzzles'));",
        )
        .await;
        assert_eq!(progress["solved"][id], json!(true), "{progress}");
        // Solved after a wrong try: the streak starts again.
        assert_eq!(progress["streak"], json!(0), "{progress}");
        c.close().await.unwrap();
    }
}
