//! The web board in a real browser: `morris serve` on the 3-3 tables, driven through headless
//! Chromium over the DevTools protocol (headless_chrome).
//!
//! It plays a game by clicking the board's SVG points (placements, a flight with a capture),
//! checks after every move that the move list (move, result, plies) equals `GET /api/probe`,
//! starts a side line from the middle of the game, hovers a move, tries undo and redo
//! (buttons and keys), reopens the URL, types a position into the position field, steps
//! through "Play best line", tries set-up mode with an illegal and a legal position and
//! from an empty board, plays by keyboard, checks the layout (rings and labels, the value
//! at 1280 px, a phone), and saves screenshots under `target/`. Other boards, `/stats`
//! and the double captures of `take=each` have tests of their own.
//!
//! Without a Chromium on PATH (`chromium`, `chromium-browser`, `google-chrome`, or `$CHROME`)
//! the test says it is skipped and passes, unless `MORRIS_REQUIRE_BROWSER=1` (CI sets it).
#![cfg(feature = "cli")]

use headless_chrome::browser::tab::point::Point;
use headless_chrome::browser::tab::ModifierKey;
use headless_chrome::protocol::cdp::Page::CaptureScreenshotFormatOption;
use headless_chrome::protocol::cdp::{Emulation, Input};
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const START: &str = "........................ w 3 3";
const WAIT: Duration = Duration::from_secs(20);

#[path = "common/server.rs"]
mod server;
use server::{encode, Server};

// ---------------------------------------------------------------------------------------------
// The browser

fn find_browser() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROME").map(PathBuf::from).filter(|p| p.is_file()) {
        return Some(p);
    }
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Evaluates `js` in the page; the expression must give a string, a number or a boolean.
fn eval(tab: &Tab, js: &str) -> Value {
    let r = tab.evaluate(js, true).unwrap_or_else(|e| panic!("evaluate {js}: {e}"));
    r.value.unwrap_or(Value::Null)
}

fn eval_json(tab: &Tab, js: &str) -> Value {
    let s = eval(tab, &format!("JSON.stringify({js})"));
    serde_json::from_str(s.as_str().unwrap_or("null")).unwrap()
}

fn wait_until(tab: &Tab, what: &str, js: &str) {
    let t = Instant::now();
    while t.elapsed() < WAIT {
        if eval(tab, js) == Value::Bool(true) {
            return;
        }
        std::thread::sleep(Duration::from_millis(40));
    }
    let status = eval(tab, "document.getElementById('status').textContent");
    let body = eval_json(tab, "({...document.body.dataset})");
    panic!("timed out waiting for {what} ({js}); status line {status}, body {body}");
}

fn js_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Waits until the page shows `position` with its probe rendered and no request pending.
fn wait_loaded(tab: &Tab, position: &str) {
    wait_until(
        tab,
        &format!("position {position:?}"),
        &format!("document.body.dataset.loaded === {0} && document.body.dataset.position === {0} && document.body.dataset.busy === '0'", js_str(position)),
    );
}

/// The moves the page should list: the API's, each once (the API may list a move that
/// takes two stones twice, once per order of its captures).
fn api_rows(probe: &Value) -> Vec<(String, String, Option<u64>)> {
    let mut seen = std::collections::HashSet::new();
    probe["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| seen.insert(capture_set(m["move"].as_str().unwrap())))
        .map(|m| (m["move"].as_str().unwrap().to_string(), m["result"].as_str().unwrap().to_string(), m["plies"].as_u64()))
        .collect()
}

/// A move with its captures in a fixed order: `d7xb4xa1` and `d7xa1xb4` are one move.
fn capture_set(mv: &str) -> String {
    let mut parts: Vec<&str> = mv.split('x').collect();
    parts[1..].sort();
    parts.join("x")
}

/// The value in words as the page should put it.
fn words(probe: &Value) -> String {
    let side = if probe["side"] == "white" { "White" } else { "Black" };
    let n = probe["plies"].as_u64();
    let plies = |n: u64| format!("{n} {}", if n == 1 { "ply" } else { "plies" });
    match (probe["result"].as_str().unwrap(), n) {
        ("win", Some(n)) => format!("{side} to move wins in {}", plies(n)),
        ("draw", _) => format!("{side} to move: draw"),
        ("loss", Some(0)) => format!("Game over: {side} to move has lost"),
        ("loss", Some(n)) => format!("{side} to move loses in {}", plies(n)),
        other => panic!("unexpected value {other:?}"),
    }
}

/// Checks the page against the API for the position it shows: the move list row by row,
/// the value in words, the position field and the URL.
fn check_page(tab: &Tab, server: &Server, position: &str) -> Value {
    let probe = server.probe(position);
    assert_eq!(probe["position"], position, "the API's canonical form");
    let page = eval_json(
        tab,
        "({rows: [...document.querySelectorAll('#moves [data-move]')].map(li => [li.dataset.move, li.dataset.result, li.dataset.plies, li.className]), \
          words: document.getElementById('value-words').textContent, \
          field: document.getElementById('position-input').value, \
          url: new URLSearchParams(location.search).get('position')})",
    );
    let rows: Vec<(String, String, Option<u64>)> = page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let plies = r[2].as_str().unwrap();
            let result = r[1].as_str().unwrap();
            assert!(r[3].as_str().unwrap().split(' ').any(|c| c == result), "row {r} is coloured by its result");
            (r[0].as_str().unwrap().to_string(), result.to_string(), if plies.is_empty() { None } else { Some(plies.parse().unwrap()) })
        })
        .collect();
    assert_eq!(rows, api_rows(&probe), "move list of {position:?}");
    let shown = page["words"].as_str().unwrap();
    assert!(shown.starts_with(&words(&probe)), "value words {shown:?} for {probe}");
    assert_eq!(page["field"], position, "position field");
    assert_eq!(page["url"], position, "the URL holds the position");
    probe
}

/// Clicks the element `selector` where a person would: at its centre, through real mouse
/// events, after checking that nothing covers it there. (One evaluation and the three input
/// events: headless_chrome takes about 0.1 s per DevTools call.)
fn click(tab: &Tab, selector: &str) {
    let p = center(tab, selector);
    tab.click_point(p).unwrap_or_else(|e| panic!("click {selector}: {e}"));
}

/// The centre of `selector` in the viewport, scrolled into view and not covered.
fn center(tab: &Tab, selector: &str) -> Point {
    let js = format!(
        "(() => {{ const e = document.querySelector({0}); if (!e) return 'missing'; \
         let r = e.getBoundingClientRect(); \
         if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {{ e.scrollIntoView({{block: 'center', inline: 'center', behavior: 'instant'}}); r = e.getBoundingClientRect(); }} \
         const x = r.left + r.width / 2, y = r.top + r.height / 2, hit = document.elementFromPoint(x, y); \
         if (!hit || !(hit === e || e.contains(hit))) return 'covered by ' + (hit ? hit.outerHTML.slice(0, 80) : 'nothing'); \
         return JSON.stringify([x, y]); }})()",
        js_str(selector)
    );
    let t = Instant::now();
    let xy = loop {
        let v = eval(tab, &js);
        let s = v.as_str().unwrap_or("").to_string();
        if s.starts_with('[') {
            break serde_json::from_str::<[f64; 2]>(&s).unwrap();
        }
        assert!(t.elapsed() < WAIT, "cannot click {selector}: {s}");
        std::thread::sleep(Duration::from_millis(40));
    };
    Point { x: xy[0], y: xy[1] }
}

fn click_point(tab: &Tab, point: &str) {
    click(tab, &format!("circle[data-point='{point}']"));
}

/// Plays `mv` (listed by the API for `position`) by clicking its points; returns the position
/// after it, as the API gives it.
fn play_by_clicks(tab: &Tab, server: &Server, position: &str, mv: &str, shot_before_capture: Option<&str>) -> String {
    let probe = server.probe(position);
    let entry = probe["moves"].as_array().unwrap().iter().find(|m| m["move"] == mv).unwrap_or_else(|| panic!("{mv} is not legal in {position:?}: {probe}"));
    let after = entry["position"].as_str().unwrap().to_string();
    let mut parts = mv.split('x');
    let body = parts.next().unwrap();
    let caps: Vec<&str> = parts.collect();
    let (from, to) = match body.split_once('-') {
        Some((f, t)) => (Some(f), t),
        None => (None, body),
    };
    if let Some(f) = from {
        click_point(tab, f);
        wait_until(tab, "the stone to be selected", &format!("document.querySelector('[data-point={f}]').parentNode.querySelector('.ring').classList.contains('selected')"));
        // every destination of that stone is marked
        let targets = eval_json(tab, "[...document.querySelectorAll('.dot.target')].map(d => d.parentNode.querySelector('[data-point]').dataset.point).sort()");
        let mut want: Vec<String> = api_rows(&probe).iter().filter_map(|(m, _, _)| m.strip_prefix(&format!("{f}-")).map(|r| r[..2].to_string())).collect();
        want.sort();
        want.dedup();
        assert_eq!(targets, serde_json::json!(want), "destinations marked for {f}");
    }
    click_point(tab, to);
    for (k, c) in caps.iter().enumerate() {
        // the stone is shown moved and the capturable stones are marked; nothing is played
        // until the last capture is chosen
        wait_until(tab, "capturable stones", &format!("!!document.querySelector('[data-point={c}]').parentNode.querySelector('.ring.capturable')"));
        assert_eq!(eval(tab, "document.body.dataset.position"), position, "no move before the captures are chosen");
        if k == 0 {
            if let Some(name) = shot_before_capture {
                save_png(tab, name);
            }
        }
        click_point(tab, c);
    }
    let canonical = server.probe(&after)["position"].as_str().unwrap().to_string();
    wait_loaded(tab, &canonical);
    canonical
}

/// Sets form fields as typing would (value, then an `input` event).
fn set_fields(tab: &Tab, fields: &[(&str, &str)]) {
    let js: String = fields
        .iter()
        .map(|(id, v)| format!("{{ const e = document.getElementById({}); e.value = {}; e.dispatchEvent(new Event('input', {{bubbles: true}})); }}", js_str(id), js_str(v)))
        .collect();
    eval(tab, &format!("(() => {{ {js} return true; }})()"));
}

fn save_png(tab: &Tab, name: &str) -> PathBuf {
    let png = tab.capture_screenshot(CaptureScreenshotFormatOption::Png, None, None, true).expect("screenshot");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, png).unwrap();
    println!("screenshot: {}", path.display());
    path
}

fn set_viewport(tab: &Tab, width: u32, height: u32, mobile: bool) {
    tab.call_method(Emulation::SetDeviceMetricsOverride {
        width,
        height,
        device_scale_factor: if mobile { 2.0 } else { 1.0 },
        mobile,
        scale: None,
        screen_width: None,
        screen_height: None,
        position_x: None,
        position_y: None,
        dont_set_visible_size: None,
        screen_orientation: None,
        viewport: None,
        display_feature: None,
        device_posture: None,
    })
    .expect("set the viewport");
}

/// Headless Chromium that stays off the network.
fn launch(chrome: &Path, profile: &Path) -> Browser {
    let options = LaunchOptions::default_builder()
        .path(Some(chrome.to_path_buf()))
        .headless(true)
        .sandbox(false)
        .window_size(Some((1200, 900)))
        .user_data_dir(Some(profile.to_path_buf()))
        .idle_browser_timeout(Duration::from_secs(300))
        .args(
            ["--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]
                .iter()
                .map(OsStr::new)
                .collect(),
        )
        .build()
        .unwrap();
    Browser::new(options).unwrap_or_else(|e| panic!("launch {}: {e}", chrome.display()))
}

/// The browser, or `None` with a note when there is none and CI does not require one.
fn browser_or_skip() -> Option<PathBuf> {
    let found = find_browser();
    if found.is_none() {
        if std::env::var("MORRIS_REQUIRE_BROWSER").as_deref() == Ok("1") {
            panic!("MORRIS_REQUIRE_BROWSER=1 but no chromium, chromium-browser or google-chrome on PATH");
        }
        println!("browser test skipped: no chromium, chromium-browser or google-chrome on PATH (set MORRIS_REQUIRE_BROWSER=1 to fail instead)");
    }
    found
}

// ---------------------------------------------------------------------------------------------

#[test]
fn web_board_in_chromium() {
    let Some(chrome) = browser_or_skip() else { return };
    let t0 = Instant::now();
    let lap = |what: &str| println!("[{:6.2} s] {what}", t0.elapsed().as_secs_f64());

    // Small tables: the 3-3 game.
    let db = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_morris")).args(["solve", "--db"]).arg(db.path()).args(["--start", "3-3"]).output().unwrap();
    assert!(out.status.success(), "solve failed: {}", String::from_utf8_lossy(&out.stderr));
    lap("tables solved");
    let server = Server::start(db.path(), &[]);
    assert_eq!(server.get("/health").0, 200);
    let (status, info) = server.json("/api/info");
    assert_eq!(status, 200);
    assert_eq!(info["start_position"], START, "{info}");
    // The page and its assets are served by the binary itself.
    for path in ["/", "/app.js", "/style.css"] {
        let (status, _, body) = server.get(path);
        assert_eq!(status, 200, "{path}");
        assert!(body.len() > 500, "{path} is served in full");
    }

    let profile = tempfile::tempdir().unwrap();
    let browser = launch(&chrome, profile.path());
    lap("browser started");
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(WAIT);
    set_viewport(&tab, 1200, 900, false);

    // Open the 3-3 empty board by URL.
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(START))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, START);
    let p = check_page(&tab, &server, START);
    // The board stays put from one position to the next (its top is measured again
    // after the placements and after the capture that ends the game).
    let board_top = eval(&tab, "document.getElementById('board').getBoundingClientRect().top").as_f64().unwrap();
    assert_eq!(p["result"], "win", "3-3 is a first-player win");
    assert_eq!(eval(&tab, "document.getElementById('undo').disabled"), true);
    // No coordinate label lies under a stone: each label's box clear of every point's
    // stone circle.
    let overlaps = eval_json(
        &tab,
        "(() => { const out = []; for (const t of document.querySelectorAll('.coords text')) { const a = t.getBoundingClientRect();          for (const q of ORDER) { const c = pointEls[q].stone.getBoundingClientRect(); const r = c.width / 2, cx = c.x + r, cy = c.y + r;          const dx = Math.max(a.left - cx, 0, cx - a.right), dy = Math.max(a.top - cy, 0, cy - a.bottom); if (dx * dx + dy * dy < r * r) out.push(t.textContent + '/' + q); } } return out; })()",
    );
    assert_eq!(overlaps, serde_json::json!([]), "labels under stones");
    // The rings around points (the last move, a selection, capturable stones) stay clear of
    // the board's edge and of every label, in their widest style (SVG units).
    let rings = eval_json(
        &tab,
        "(() => { const out = []; const bg = document.querySelector('.board-bg'); const a = (e, k) => parseFloat(e.getAttribute(k)); \
           const x0 = a(bg, 'x'), y0 = a(bg, 'y'), x1 = x0 + a(bg, 'width'), y1 = y0 + a(bg, 'height'); \
           const labels = [...document.querySelectorAll('.coords text')].map((t) => [t.textContent, t.getBBox()]); \
           for (const q of ORDER) { const el = pointEls[q], m = el.g.transform.baseVal.consolidate().matrix, cx = m.e, cy = m.f; let w = 0; \
             for (const c of ['last', 'selected', 'capturable', 'preview']) { el.ring.setAttribute('class', 'ring ' + c); w = Math.max(w, parseFloat(getComputedStyle(el.ring).strokeWidth)); } \
             const r = a(el.ring, 'r') + w / 2; \
             if (cx - r < x0 + 6 || cx + r > x1 - 6 || cy - r < y0 + 6 || cy + r > y1 - 6) out.push(q + ' at the edge'); \
             for (const [t, b] of labels) { const dx = Math.max(b.x - cx, 0, cx - b.x - b.width), dy = Math.max(b.y - cy, 0, cy - b.y - b.height); if (dx * dx + dy * dy < r * r) out.push(q + ' over ' + t); } } \
           render(); return out; })()",
    );
    assert_eq!(rings, serde_json::json!([]), "rings clipped or over labels");
    // During placement every empty point is coloured by its best placement's result.
    let mut want = serde_json::Map::new();
    for m in p["moves"].as_array().unwrap() {
        let to = m["move"].as_str().unwrap()[..2].to_string();
        want.entry(to).or_insert(m["result"].clone());
    }
    assert_eq!(want.len(), 24);
    let dots = eval_json(&tab, "Object.fromEntries(ORDER.map(q => [q, (pointEls[q].dot.getAttribute('class').match(/target (win|draw|loss)/) || [])[1] || null]))");
    assert_eq!(dots, Value::Object(want), "placement values on the empty points");

    // Every label of the move list and the value reads at WCAG AA contrast (4.5:1).
    let contrast = eval(
        &tab,
        "(() => { const lum = (c) => { const v = c.match(/[0-9.]+/g).slice(0, 3).map(Number).map((x) => x / 255).map((x) => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4));          return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };          const bg = (el) => { for (let e = el; e; e = e.parentElement) { const b = getComputedStyle(e).backgroundColor; if (b && !b.startsWith('rgba(0, 0, 0, 0)') && b !== 'transparent') return b; } return 'rgb(255, 255, 255)'; };          let min = 99; for (const el of document.querySelectorAll('#moves li.move, #moves li.move *, #value-words')) { if (!el.textContent.trim()) continue;          const a = lum(getComputedStyle(el).color), b = lum(bg(el)); min = Math.min(min, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)); } return min; })()",
    );
    assert!(contrast.as_f64().unwrap() >= 4.5, "lowest contrast of the move list and value: {contrast}");

    lap("page open");
    // A game by clicks: six placements, then White flies d7-g1 closing a1-d1-g1 and takes a7.
    // Clicking a point that leads nowhere does nothing.
    let mut positions = vec![START.to_string()];
    let mut pos = START.to_string();
    for mv in ["a1", "a7", "d1", "g7", "d7", "b6"] {
        pos = play_by_clicks(&tab, &server, &pos, mv, None);
        check_page(&tab, &server, &pos);
        positions.push(pos.clone());
    }
    click_point(&tab, "a7"); // an opponent's stone: no move
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(eval(&tab, "document.body.dataset.position"), pos.as_str());
    assert_eq!(eval(&tab, "document.querySelectorAll('.ring.selected').length"), 0);
    assert_eq!(eval(&tab, "document.getElementById('hands').textContent.includes('Movement phase')"), true);

    assert_eq!(eval(&tab, "document.getElementById('board').getBoundingClientRect().top").as_f64().unwrap(), board_top, "the board moved after the placements");
    lap("six placements played");
    // The history is numbered as players write games.
    let labels = eval_json(&tab, "[...document.querySelectorAll('#history li')].map(li => li.textContent)");
    assert_eq!(labels, serde_json::json!(["start", "1. a1", "a7", "2. d1", "g7", "3. d7", "b6"]));

    // Variations, as on the lichess analysis board: a move other than the game's, played from
    // the middle of it, starts a side line shown indented after the move it replaces; the main
    // line stays, and a click on a move of either line goes there.
    let node = |position: &str| format!("#history [data-position={}]", js_str(position));
    click(&tab, &node(&positions[4]));
    wait_loaded(&tab, &positions[4]);
    let alt = api_rows(&server.probe(&positions[4])).into_iter().map(|r| r.0).find(|m| m != "d7" && !m.contains('x')).unwrap();
    let side = play_by_clicks(&tab, &server, &positions[4], &alt, None);
    check_page(&tab, &server, &side);
    let tree = eval_json(
        &tab,
        "({main: [...document.querySelectorAll('#history > li.node')].map(li => li.textContent), \
           lines: [...document.querySelectorAll('#history > li.variation')].map(v => [...v.querySelectorAll('.node')].map(li => li.textContent)), \
           after: (document.querySelector('#history > li.variation') || {}).previousElementSibling?.textContent, \
           indent: document.querySelector('#history > li.variation .node')?.getBoundingClientRect().left - document.querySelector('#history > li.node').getBoundingClientRect().left, \
           current: document.querySelector('#history .current')?.dataset.position})",
    );
    assert_eq!(tree["main"], serde_json::json!(["start", "1. a1", "a7", "2. d1", "g7", "3. d7", "3... b6"]), "the main line is kept: {tree}");
    assert_eq!(tree["lines"], serde_json::json!([[format!("3. {alt}")]]), "the side line: {tree}");
    assert_eq!(tree["after"], "3. d7", "the side line follows the move it replaces: {tree}");
    assert!(tree["indent"].as_f64().unwrap() >= 12.0, "the side line is indented: {tree}");
    assert_eq!(tree["current"], side.as_str(), "{tree}");
    save_png(&tab, "browser-screenshot-variation.png");
    // Undo goes back to the branch point; Redo follows the main line.
    click(&tab, "#undo");
    wait_loaded(&tab, &positions[4]);
    click(&tab, "#redo");
    wait_loaded(&tab, &positions[5]);
    // A click on a move of either line goes there.
    click(&tab, &node(&side));
    wait_loaded(&tab, &side);
    click(&tab, &node(&positions[6]));
    wait_loaded(&tab, &positions[6]);
    check_page(&tab, &server, &positions[6]);
    // The game's own move, played again, goes along the main line: no new line.
    click(&tab, &node(&positions[4]));
    wait_loaded(&tab, &positions[4]);
    play_by_clicks(&tab, &server, &positions[4], "d7", None);
    assert_eq!(eval(&tab, "document.querySelectorAll('#history .node').length"), 8, "no line added for the game's own move");
    assert_eq!(eval(&tab, "document.querySelectorAll('#history .variation').length"), 1);
    click(&tab, &node(&positions[6]));
    wait_loaded(&tab, &positions[6]);
    // The move list is grouped by result, and each run of more than 3 moves of one value
    // is one folded line, "N moves: VALUE", that opens on a click.
    let api = server.probe(&pos);
    let mut want_heads = Vec::new();
    let mut want_runs = Vec::new();
    let mut best = true; // the best moves are never folded
    for (res, title) in [("win", "Winning moves"), ("draw", "Drawing moves"), ("loss", "Losing moves")] {
        let ms: Vec<&Value> = api["moves"].as_array().unwrap().iter().filter(|m| m["result"] == res).collect();
        if !ms.is_empty() {
            want_heads.push(format!("{title} ({})", ms.len()));
        }
        for run in ms.chunk_by(|a, b| a["plies"] == b["plies"]) {
            let first = std::mem::take(&mut best);
            if run.len() > 3 && !first {
                let v = match run[0]["plies"].as_u64() {
                    Some(p) => format!("{res} in {p}"),
                    None => res.to_string(),
                };
                want_runs.push(format!("{} moves: {v}", run.len()));
            }
        }
    }
    assert!(!want_runs.is_empty(), "this position has runs to fold: {api}");
    let heads = eval_json(&tab, "[...document.querySelectorAll('#moves li.group')].map(li => li.textContent)");
    assert_eq!(heads, serde_json::json!(want_heads));
    let runs = eval_json(&tab, "[...document.querySelectorAll('#moves li.run')].map(li => li.textContent)");
    assert_eq!(runs, serde_json::json!(want_runs));
    let hidden = eval(&tab, "document.querySelectorAll('#moves li.move[hidden]').length").as_u64().unwrap();
    assert!(hidden > 0 && eval(&tab, "getComputedStyle(document.querySelector('#moves li.move[hidden]')).display") == "none");
    click(&tab, "#moves li.run");
    wait_until(&tab, "the first run open", "document.querySelector('#moves li.run').getAttribute('aria-expanded') === 'true'");
    assert!(eval(&tab, "document.querySelectorAll('#moves li.move[hidden]').length").as_u64().unwrap() < hidden);
    // Open the run that holds the move hovered next.
    eval(&tab, "(() => { const li = document.querySelector(\"#moves [data-move='d7-g1xa7']\"); let r = li; while (li.hidden && r && !r.classList.contains('run')) r = r.previousElementSibling; if (li.hidden) r.click(); return true; })()");
    // Hovering a move shows it on the board (g1 filled, a7 taken), and leaving restores it.
    tab.move_mouse_to_point(center(&tab, "#moves [data-move='d7-g1xa7']")).unwrap();
    wait_until(&tab, "the hover preview", "document.querySelector('[data-point=g1]').dataset.stone === 'W' && document.querySelector('[data-point=a7]').dataset.stone === '.'");
    tab.move_mouse_to_point(Point { x: 1195.0, y: 5.0 }).unwrap();
    wait_until(&tab, "the board back", "document.querySelector('[data-point=g1]').dataset.stone === '.' && document.querySelector('[data-point=a7]').dataset.stone === 'B'");

    // Escape cancels a selection.
    click_point(&tab, "d7");
    wait_until(&tab, "a selection", "document.querySelectorAll('.ring.selected').length === 1");
    tab.press_key("Escape").unwrap();
    wait_until(&tab, "no selection", "document.querySelectorAll('.ring.selected').length === 0");

    pos = play_by_clicks(&tab, &server, &pos, "d7-g1xa7", Some("browser-screenshot-capture.png"));
    let over = check_page(&tab, &server, &pos);
    assert_eq!(over["moves"].as_array().unwrap().len(), 0, "Black has two stones left: game over");
    assert!(eval(&tab, "document.getElementById('value-words').textContent").as_str().unwrap().contains("fewer than 3 stones"));
    positions.push(pos.clone());
    let n = positions.len();
    assert_eq!(eval(&tab, "document.getElementById('board').getBoundingClientRect().top").as_f64().unwrap(), board_top, "the board moved at the end of the game");
    // The capture leaves a mark where the stone was taken.
    assert_eq!(eval(&tab, "pointEls['a7'].cross.getAttribute('class')"), "cross on", "the point of the captured stone is marked");

    lap("capture played");
    // Undo and redo: buttons and keys; the field and the URL follow.
    click(&tab, "#undo");
    wait_loaded(&tab, &positions[n - 2]);
    check_page(&tab, &server, &positions[n - 2]);
    tab.press_key_with_modifiers("z", Some(&[ModifierKey::Ctrl])).unwrap();
    wait_loaded(&tab, &positions[n - 3]);
    check_page(&tab, &server, &positions[n - 3]);
    tab.press_key_with_modifiers("y", Some(&[ModifierKey::Ctrl])).unwrap();
    wait_loaded(&tab, &positions[n - 2]);
    tab.press_key_with_modifiers("z", Some(&[ModifierKey::Ctrl, ModifierKey::Shift])).unwrap();
    wait_loaded(&tab, &positions[n - 1]);
    assert_eq!(eval(&tab, "document.getElementById('redo').disabled"), true);
    for _ in 0..3 {
        click(&tab, "#undo");
    }
    wait_loaded(&tab, &positions[n - 4]);
    click(&tab, "#redo");
    wait_loaded(&tab, &positions[n - 3]);
    check_page(&tab, &server, &positions[n - 3]);

    lap("undo and redo");
    // The URL round trip: a fresh load of the page's own URL reopens the same position.
    let url = eval(&tab, "location.href").as_str().unwrap().to_string();
    tab.navigate_to("about:blank").unwrap().wait_until_navigated().unwrap();
    tab.navigate_to(&url).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &positions[n - 3]);
    check_page(&tab, &server, &positions[n - 3]);
    // The link holds the game too: its moves up to here are back, and Undo steps into them.
    assert!(url.contains("&game=") && url.contains("&moves="), "{url}");
    assert_eq!(eval(&tab, "document.querySelectorAll('#history li').length").as_u64(), Some((n - 2) as u64), "the game's history from the link");
    click(&tab, "#undo");
    wait_loaded(&tab, &positions[n - 4]);
    click(&tab, "#redo");
    wait_loaded(&tab, &positions[n - 3]);
    // A link whose moves do not lead to its position opens the position alone.
    let bad = format!("{}/?position={}&game={}&moves=a1%20a1", server.base(), encode(&positions[n - 3]), encode(START));
    tab.navigate_to(&bad).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &positions[n - 3]);
    assert_eq!(eval(&tab, "document.querySelectorAll('#history li').length"), 1);
    // Copy link: the page's own URL.
    click(&tab, "#link-copy");
    wait_until(&tab, "the link copied", "document.getElementById('status').textContent.includes('copied') || document.getElementById('position-input').value === location.href");
    tab.navigate_to(&url).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &positions[n - 3]);

    lap("URL round trip");
    // The position field: pasted, then Enter.
    let typed = &positions[n - 2];
    eval(&tab, "(() => { const i = document.getElementById('position-input'); i.value = ''; i.focus(); return true; })()");
    tab.call_method(Input::InsertText { text: typed.to_string() }).unwrap(); // as a paste
    tab.press_key("Enter").unwrap();
    wait_loaded(&tab, typed);
    check_page(&tab, &server, typed);
    // A malformed one gives a message and keeps the board.
    eval(&tab, "(() => { const i = document.getElementById('position-input'); i.value = 'WWW w'; i.focus(); return true; })()");
    tab.press_key("Enter").unwrap();
    wait_until(&tab, "an error for a malformed position", "document.getElementById('status').classList.contains('error')");
    assert_eq!(eval(&tab, "document.body.dataset.position"), typed.as_str());

    // A position the tables do not cover: a message for the player, without the
    // server's paths or command-line flags, and no retry (trying again cannot help).
    let uncovered = "WWWW.........BBBB....... w";
    eval(&tab, &format!("(() => {{ const i = document.getElementById('position-input'); i.value = {}; i.focus(); return true; }})()", js_str(uncovered)));
    tab.press_key("Enter").unwrap();
    wait_until(&tab, "the message for an uncovered position", "document.getElementById('status').textContent.includes('do not cover')");
    let shown = eval(&tab, "document.getElementById('status').textContent").as_str().unwrap().to_string();
    for operator in ["morris", ".mtb", "--", "/tmp", "solve"] {
        assert!(!shown.contains(operator), "the player's message {shown:?} has the operator's {operator:?}");
    }
    assert_eq!(eval(&tab, "document.getElementById('retry') === null"), true);
    assert_eq!(eval(&tab, "document.body.dataset.position"), typed.as_str());
    // The next step clears the message: no stale error stays on screen.
    let before = eval(&tab, "document.querySelectorAll('#history li').length").as_u64().unwrap();
    click(&tab, "#undo");
    wait_until(&tab, "the message cleared by Undo", "document.getElementById('status').textContent === ''");
    click(&tab, "#redo");
    wait_loaded(&tab, typed);
    assert_eq!(eval(&tab, "document.querySelectorAll('#history li').length").as_u64().unwrap(), before);

    lap("position field");
    // "Play best line" steps through the mainline to its end.
    let (status, line) = server.api("mainline", typed);
    assert_eq!(status, 200, "{line}");
    let steps = line["mainline"].as_array().unwrap();
    assert!(!steps.is_empty(), "a won position has a mainline");
    let last = steps.last().unwrap()["position"].as_str().unwrap().to_string();
    click(&tab, "#best-line");
    // The line is written out, numbered, before it plays.
    let mut text = Vec::new();
    let (mut white, mut number) = (typed.split(' ').nth(1) == Some("w"), 1);
    for (i, step) in steps.iter().enumerate() {
        let mv = step["move"].as_str().unwrap();
        text.push(if white {
            format!("{number}. {mv}")
        } else if i == 0 {
            format!("{number}... {mv}")
        } else {
            mv.to_string()
        });
        if !white {
            number += 1;
        }
        white = !white;
    }
    let want = format!("Best line, {} {}: {}", steps.len(), if steps.len() == 1 { "ply" } else { "plies" }, text.join(" "));
    wait_until(&tab, "the best line as text", &format!("document.getElementById('status').textContent === {}", js_str(&want)));
    // It stays while the line plays, and after.
    let shown = format!("document.getElementById('status').textContent === {}", js_str(&want));
    let first = steps[0]["position"].as_str().unwrap();
    wait_until(&tab, "the first step of the best line", &format!("document.body.dataset.loaded === {}", js_str(first)));
    assert_eq!(eval(&tab, &shown), true, "the best line is still written out after its first step ({first})");
    wait_loaded(&tab, &last);
    assert_eq!(eval(&tab, &shown), true, "the best line is still written out at its end");
    check_page(&tab, &server, &last);
    wait_until(&tab, "the animation to end", "document.getElementById('best-line').textContent.includes('Play best line')");

    lap("best line");
    // Escape leaves set-up mode.
    click(&tab, "#setup");
    wait_until(&tab, "set-up mode", "document.body.dataset.mode === 'setup'");
    tab.press_key("Escape").unwrap();
    wait_until(&tab, "play mode after Escape", "document.body.dataset.mode === 'play'");
    // Set-up mode: an illegal position (ten white stones) gives the server's message; a legal
    // one is played on.
    click(&tab, "#setup");
    wait_until(&tab, "set-up mode", "document.body.dataset.mode === 'setup'");
    click(&tab, "#setup-clear");
    click_point(&tab, "a1"); // white
    click_point(&tab, "d1"); // white
    click_point(&tab, "d1"); // black
    click_point(&tab, "g1"); // white
    click_point(&tab, "g1"); // black
    click_point(&tab, "g1"); // empty again
    set_fields(&tab, &[("setup-white-hand", "9"), ("setup-black-hand", "2"), ("setup-side", "w")]);
    click(&tab, "#setup-done");
    wait_until(&tab, "the set-up error", "!document.getElementById('setup-error').hidden");
    let illegal = format!("{}WB. w 9 2", ".".repeat(21));
    let (status, err) = server.api("probe", &illegal);
    assert_eq!(status, 400, "{err}");
    let shown = eval(&tab, "document.getElementById('setup-error').textContent").as_str().unwrap().to_string();
    assert!(shown.contains(err["error"].as_str().unwrap()), "set-up error {shown:?} shows the server's {err}");
    assert_eq!(eval(&tab, "document.getElementById('setup-position').textContent"), illegal.as_str(), "the string being set up");
    save_png(&tab, "browser-screenshot-setup.png");
    assert_eq!(eval(&tab, "document.body.dataset.mode"), "setup");
    set_fields(&tab, &[("setup-white-hand", "2")]);
    click(&tab, "#setup-done");
    let legal = server.probe(&format!("{}WB. w 2 2", ".".repeat(21)))["position"].as_str().unwrap().to_string();
    wait_loaded(&tab, &legal);
    assert_eq!(eval(&tab, "document.body.dataset.mode"), "play");
    check_page(&tab, &server, &legal);

    lap("set-up mode");
    // New game: only the starts whose tables are all there (3-3, not the 9-9 game these
    // tables cannot answer), and the game starts afresh: nothing to undo.
    let options = eval_json(&tab, "[...document.querySelectorAll('#new-game option')].map(o => o.value).filter(v => v)");
    assert_eq!(options, serde_json::json!([START]), "New game offers the complete starts only");
    assert_eq!(eval(&tab, "document.getElementById('undo').disabled"), false, "a game with moves to undo");
    eval(&tab, &format!("(() => {{ const s = document.getElementById('new-game'); s.value = {}; s.dispatchEvent(new Event('change')); return true; }})()", js_str(START)));
    wait_loaded(&tab, START);
    wait_until(&tab, "a fresh history", "document.getElementById('undo').disabled && document.getElementById('redo').disabled");
    assert_eq!(eval(&tab, "document.querySelectorAll('#history li').length"), 1, "the new game's history is its start");

    lap("new game");
    // Set up from the empty board, the stones of a movement position are that position: the
    // start's stones in hand are not carried over.
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(START))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, START);
    click(&tab, "#setup");
    wait_until(&tab, "set-up mode", "document.body.dataset.mode === 'setup'");
    for (point, clicks) in [("a7", 1), ("g7", 1), ("d6", 1), ("a1", 2), ("g1", 2), ("d2", 2)] {
        for _ in 0..clicks {
            click_point(&tab, point);
        }
    }
    let hands = eval_json(&tab, "[document.getElementById('setup-white-hand').value, document.getElementById('setup-black-hand').value]");
    assert_eq!(hands, serde_json::json!(["0", "0"]), "no stones in hand set up from the empty board");
    click(&tab, "#setup-done");
    let moved = server.probe(&format!("W.W.W{}B.B.B w", ".".repeat(14)))["position"].as_str().unwrap().to_string();
    wait_loaded(&tab, &moved);
    check_page(&tab, &server, &moved);
    // Set up from a placement position, the stones in hand are its own, and a stone put on
    // the board comes out of its side's hand when the side would have too many.
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(&positions[2]))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &positions[2]);
    click(&tab, "#setup");
    wait_until(&tab, "set-up mode", "document.body.dataset.mode === 'setup'");
    let hands = eval_json(&tab, "[document.getElementById('setup-white-hand').value, document.getElementById('setup-black-hand').value]");
    assert_eq!(hands, serde_json::json!(["2", "2"]), "the position's own stones in hand");
    click_point(&tab, "g4");
    let hands = eval_json(&tab, "[document.getElementById('setup-white-hand').value, document.getElementById('setup-black-hand').value]");
    assert_eq!(hands, serde_json::json!(["1", "2"]), "White's third stone came out of the hand");
    click(&tab, "#setup-cancel");
    wait_until(&tab, "play mode", "document.body.dataset.mode === 'play'");

    lap("set-up from the empty board");
    // Flip: the board turned half round, labels too, and points still play by clicks.
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(START))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, START);
    let (a1, g7) = (center(&tab, "[data-point=a1]"), center(&tab, "[data-point=g7]"));
    assert!(a1.x < g7.x && a1.y > g7.y, "a1 bottom left before the flip");
    click(&tab, "#flip");
    wait_until(&tab, "the flipped board", "document.body.dataset.flipped === '1'");
    let (a1, g7) = (center(&tab, "[data-point=a1]"), center(&tab, "[data-point=g7]"));
    assert!(a1.x > g7.x && a1.y < g7.y, "a1 top right after the flip");
    let labels = eval_json(
        &tab,
        "(() => { const x = (t) => [...document.querySelectorAll('.coords text')].find((e) => e.textContent === t).getBoundingClientRect().x; return [x('a'), x('g')]; })()",
    );
    assert!(labels[0].as_f64() > labels[1].as_f64(), "file labels turned too: {labels}");
    let placed = play_by_clicks(&tab, &server, START, "a1", None);
    check_page(&tab, &server, &placed);
    click(&tab, "#flip");
    wait_until(&tab, "the board turned back", "document.body.dataset.flipped === '0'");

    lap("flip");
    // Keyboard play on the board: Tab reaches the points, the arrow keys move between them
    // as they lie on the screen, and Enter or Space acts as a click.
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(START))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, START);
    let focused = |tab: &Tab| eval(tab, "(document.activeElement && document.activeElement.dataset && document.activeElement.dataset.point) || ''");
    let keys = |tab: &Tab, keys: &[(&str, &str)]| {
        for (key, want) in keys {
            tab.press_key(key).unwrap();
            assert_eq!(focused(tab), *want, "focus after {key}");
        }
    };
    eval(&tab, "(() => { document.getElementById('stats-link').focus(); return true; })()");
    tab.press_key("Tab").unwrap();
    assert_eq!(focused(&tab), "a7", "Tab goes from the header to the board");
    assert_eq!(
        eval(&tab, "(() => { const s = getComputedStyle(document.activeElement); return s.stroke !== 'none' || s.outlineStyle !== 'none'; })()"),
        true,
        "the focused point is marked"
    );
    keys(&tab, &[("ArrowRight", "d7"), ("ArrowDown", "d6")]);
    let after = |position: &str, mv: &str| {
        let p = server.probe(position)["moves"].as_array().unwrap().iter().find(|m| m["move"] == mv).unwrap()["position"].as_str().unwrap().to_string();
        server.probe(&p)["position"].as_str().unwrap().to_string()
    };
    let placed = after(START, "d6");
    tab.press_key("Enter").unwrap();
    wait_loaded(&tab, &placed);
    assert_eq!(focused(&tab), "d6", "the focus stays on the point played");
    keys(&tab, &[("ArrowDown", "d5")]);
    let replied = after(&placed, "d5");
    tab.press_key(" ").unwrap();
    wait_loaded(&tab, &replied);
    check_page(&tab, &server, &replied);
    // On the board the arrow keys move the focus, not through the game.
    keys(&tab, &[("ArrowLeft", "c5"), ("ArrowRight", "d5")]);
    assert_eq!(eval(&tab, "document.body.dataset.position"), replied.as_str(), "an arrow key on the board stepped through the game");
    // A flight with a capture by keys: d7, then g1, then a7.
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(&positions[6]))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &positions[6]);
    eval(&tab, "(() => { document.querySelector('[data-point=d7]').focus(); return true; })()");
    tab.press_key("Enter").unwrap();
    wait_until(&tab, "d7 selected", "document.querySelector('[data-point=d7]').parentNode.querySelector('.ring.selected') !== null");
    keys(&tab, &[("ArrowRight", "g7"), ("ArrowDown", "g4"), ("ArrowDown", "g1")]);
    tab.press_key("Enter").unwrap();
    wait_until(&tab, "capturable stones", "document.querySelectorAll('.ring.capturable').length > 0");
    keys(&tab, &[("ArrowLeft", "d1"), ("ArrowLeft", "a1"), ("ArrowUp", "a4"), ("ArrowUp", "a7")]);
    tab.press_key("Enter").unwrap();
    wait_loaded(&tab, &positions[7]);
    check_page(&tab, &server, &positions[7]);

    lap("keyboard play");
    // A slow answer: the page says it is working, takes no clicks meanwhile, and then
    // shows the answer of the move that was played.
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(START))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, START);
    eval(&tab, "(() => { const f = window.fetch; window.fetch = (u, o) => new Promise((r) => setTimeout(r, String(u).includes('api/probe') ? 2500 : 0)).then(() => f(u, o)); return true; })()");
    click_point(&tab, "a1");
    wait_until(
        &tab,
        "the busy notice",
        "document.body.dataset.busy === '1' && !document.getElementById('busy').hidden && document.getElementById('busy').textContent.includes('Working')",
    );
    let blocked = eval(&tab, "getComputedStyle(document.getElementById('board')).pointerEvents");
    assert_eq!(blocked, "none", "the board takes no clicks while busy");
    eval(&tab, "(() => { const m = document.querySelector('#moves [data-move]'); if (m) m.click(); document.getElementById('undo').click(); return true; })()");
    let placed = server.probe(&format!("{}W.. b 2 3", ".".repeat(21)))["position"].as_str().unwrap().to_string();
    wait_loaded(&tab, &placed);
    assert_eq!(eval(&tab, "document.getElementById('busy').hidden"), true);
    assert_eq!(eval(&tab, "document.querySelectorAll('#history li').length"), 2, "the clicks made while busy were ignored");
    check_page(&tab, &server, &placed);
    // A late answer is discarded: the answer for d1 (delayed) comes after the page has
    // moved on to a position typed into the field, and changes nothing.
    eval(&tab, "(() => { const f = window.fetch; window.fetch = (u, o) => new Promise((r) => setTimeout(r, String(u).includes('api/probe') && decodeURIComponent(String(u)).includes('WB. w') ? 2500 : 0)).then(() => f(u, o)); return true; })()");
    click_point(&tab, "d1");
    wait_until(&tab, "the request for d1", "document.body.dataset.busy === '1'");
    let typed_now = server.probe(&format!("{}W.B w 2 2", ".".repeat(21)))["position"].as_str().unwrap().to_string();
    eval(&tab, &format!("(() => {{ const i = document.getElementById('position-input'); i.value = {}; i.form.requestSubmit(); return true; }})()", js_str(&typed_now)));
    wait_loaded(&tab, &typed_now);
    std::thread::sleep(Duration::from_millis(3000));
    assert_eq!(eval(&tab, "document.body.dataset.position"), typed_now.as_str(), "the late answer for d1 changed the page");
    check_page(&tab, &server, &typed_now);

    lap("slow answer");
    // At 1280 px the value and the facts above the board are shown whole, not cut off,
    // also the longest: a game over and why.
    set_viewport(&tab, 1280, 800, false);
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(&positions[7]))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &positions[7]);
    let cut = eval_json(
        &tab,
        "['value-words', 'facts', 'side-to-move', 'hands', 'method'].filter((id) => { const e = document.getElementById(id); return e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1; })",
    );
    assert_eq!(cut, serde_json::json!([]), "cut off at 1280 px: {}", eval(&tab, "document.getElementById('value-words').textContent"));
    set_viewport(&tab, 1200, 900, false);

    lap("the lines above the board at 1280 px");
    // Screenshots: desktop with a stone selected in the movement phase, then a phone.
    let shot_pos = &positions[6];
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(shot_pos))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, shot_pos);
    click_point(&tab, "d7");
    wait_until(&tab, "a selection", "document.querySelectorAll('.ring.selected').length === 1");
    tab.move_mouse_to_point(Point { x: 1195.0, y: 5.0 }).unwrap();
    let desktop = save_png(&tab, "browser-screenshot.png");

    set_viewport(&tab, 390, 844, true);
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(&positions[4]))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &positions[4]);
    let layout = eval_json(
        &tab,
        "(() => { const b = document.getElementById('board').getBoundingClientRect(); const m = document.getElementById('moves-pane').getBoundingClientRect(); \
         return {board_w: b.width, board_bottom: b.bottom, moves_top: m.top, page_w: document.documentElement.scrollWidth, vw: innerWidth}; })()",
    );
    assert!(layout["moves_top"].as_f64().unwrap() >= layout["board_bottom"].as_f64().unwrap(), "move list below the board on a phone: {layout}");
    assert!(layout["board_w"].as_f64().unwrap() >= 300.0, "board fills a phone's width: {layout}");
    assert!(layout["page_w"].as_f64().unwrap() <= layout["vw"].as_f64().unwrap() + 0.5, "no sideways scrolling on a phone: {layout}");
    save_png(&tab, "browser-screenshot-phone.png");

    assert!(desktop.is_file());
    println!("browser test passed in {:.1} s", t0.elapsed().as_secs_f64());
}

/// The board the page draws is the server's: the 16 points and 20 lines of `six`, and
/// Morabaraba's diagonals, with moves along them played by clicks.
#[test]
fn other_boards_in_chromium() {
    let Some(chrome) = browser_or_skip() else { return };
    let root = tempfile::tempdir().unwrap();
    let solve = |rules: &str, scope: &[&str]| {
        let dir = root.path().join(rules);
        let out = Command::new(env!("CARGO_BIN_EXE_morris")).args(["--rules", rules, "solve", "-q", "--db"]).arg(&dir).args(scope).output().unwrap();
        assert!(out.status.success(), "solve {rules}: {}", String::from_utf8_lossy(&out.stderr));
        dir
    };
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(&chrome, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(WAIT);
    set_viewport(&tab, 1200, 900, false);
    let drawn = |tab: &Tab| {
        eval_json(
            tab,
            "({points: [...document.querySelectorAll('[data-point]')].map(e => e.dataset.point).sort(), \
               edges: [...document.querySelectorAll('[data-edge]')].map(e => e.dataset.edge), \
               title: document.getElementById('title').textContent, \
               columns: [...document.querySelectorAll('.coords text')].map(t => t.textContent).join('')})",
        )
    };

    // Six Men's Morris: the whole game. The page opens on its empty board with 6 stones
    // each, draws what /api/info says, and a game is played by clicks into the movement
    // phase, each page checked against the API.
    let six = solve("six", &["--all"]);
    let server = Server::start(&six, &["--rules", "six"]);
    let (_, info) = server.json("/api/info");
    let start = "................ w 6 6";
    assert_eq!(info["start_position"], start, "{info}");
    assert_eq!(info["board"]["points"].as_array().unwrap().len(), 16, "{info}");
    assert_eq!(info["board"]["edges"].as_array().unwrap().len(), 20, "{info}");
    tab.navigate_to(&format!("{}/", server.base())).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, start);
    let page = drawn(&tab);
    let mut want: Vec<&str> = "a5 c5 e5 b4 c4 d4 a3 b3 d3 e3 b2 c2 d2 a1 c1 e1".split(' ').collect();
    want.sort();
    assert_eq!(page["points"], serde_json::json!(want), "{page}");
    assert_eq!(page["edges"].as_array().unwrap().len(), 20, "{page}");
    let has_edge = |page: &Value, p: &str, q: &str| page["edges"].as_array().unwrap().iter().any(|e| *e == format!("{p}-{q}") || *e == format!("{q}-{p}"));
    for (p, q) in [("a3", "b3"), ("c1", "c2"), ("d3", "e3"), ("c4", "c5")] {
        assert!(has_edge(&page, p, q), "{p}-{q} is drawn: {page}");
    }
    assert!(!has_edge(&page, "a5", "b4"), "no diagonals on six: {page}");
    assert_eq!(page["title"], "Six Men's Morris");
    assert_eq!(page["columns"], "abcde12345", "a 5 by 5 grid: {page}");
    check_page(&tab, &server, start);
    // The best move each ply (the API lists them best first) until a stone slides.
    let mut pos = start.to_string();
    let mut slid = false;
    for _ in 0..24 {
        let probe = server.probe(&pos);
        let Some(mv) = probe["moves"].as_array().unwrap().first().map(|m| m["move"].as_str().unwrap().to_string()) else { break };
        pos = play_by_clicks(&tab, &server, &pos, &mv, None);
        check_page(&tab, &server, &pos);
        if mv.contains('-') {
            slid = true;
            break;
        }
    }
    assert!(slid, "the game reached the movement phase: {pos}");
    save_png(&tab, "browser-screenshot-six.png");
    check_stats(&tab, &server, "Six Men's Morris");
    drop(server);

    // Morabaraba: the diagonals are drawn, and a7 slides to b6 along one (White has four
    // stones, so it does not fly).
    let mora = solve("morabaraba", &["--start", "4-3"]);
    let server = Server::start(&mora, &["--rules", "morabaraba"]);
    let pos = server.probe("WB........B...W.....B.WW w")["position"].as_str().unwrap().to_string();
    tab.navigate_to(&format!("{}/?position={}", server.base(), encode(&pos))).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &pos);
    let page = drawn(&tab);
    assert_eq!(page["points"].as_array().unwrap().len(), 24, "{page}");
    assert_eq!(page["edges"].as_array().unwrap().len(), 40, "{page}");
    assert!(has_edge(&page, "a7", "b6") && has_edge(&page, "c3", "b2"), "the diagonals are drawn: {page}");
    assert_eq!(page["title"], "Morabaraba");
    check_page(&tab, &server, &pos);
    let after = play_by_clicks(&tab, &server, &pos, "a7-b6", None);
    check_page(&tab, &server, &after);
    save_png(&tab, "browser-screenshot-morabaraba.png");
    check_stats(&tab, &server, "Morabaraba");
}

/// `/stats` names the served rule set's game (and no other), and on a phone its chart's
/// text is at least 9 px high, the chart scrolling sideways within the page.
fn check_stats(tab: &Tab, server: &Server, game: &str) {
    set_viewport(tab, 390, 844, true);
    tab.navigate_to(&format!("{}/stats", server.base())).unwrap().wait_until_navigated().unwrap();
    let t = Instant::now();
    while eval(tab, "document.body.dataset.ready === '1'") != Value::Bool(true) {
        assert!(t.elapsed() < Duration::from_secs(120), "the statistics page never drew its chart: {}", eval(tab, "document.body.innerText"));
        std::thread::sleep(Duration::from_millis(100));
    }
    let all = eval(tab, "document.getElementById('plot').textContent").as_str().unwrap().to_string();
    let page = eval_json(
        tab,
        "(() => { const texts = [...document.querySelectorAll('#plot svg text')]; \
           return {heading: document.querySelector('h1').textContent, title: texts[0].textContent, \
             smallest: Math.min(...texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)), \
             page_w: document.documentElement.scrollWidth, vw: innerWidth}; })()",
    );
    assert!(page["title"].as_str().unwrap().contains(game), "the chart's title names {game}: {page}");
    assert!(page["heading"].as_str().unwrap().contains(game), "the page's heading names {game}: {page}");
    for other in ["Nine Men's Morris", "Six Men's Morris", "Morabaraba", "Twelve Men's Morris", "Lasker Morris"] {
        assert!(other == game || !all.contains(other), "the chart of {game} tables says {other}: {page}");
    }
    assert!(page["smallest"].as_f64().unwrap() >= 9.0, "the chart's smallest text on a phone: {page}");
    assert!(page["page_w"].as_f64().unwrap() <= page["vw"].as_f64().unwrap() + 0.5, "no sideways scrolling of the page on a phone: {page}");
    save_png(tab, &format!("browser-screenshot-stats-{}.png", game.split(' ').next().unwrap().to_lowercase()));
    set_viewport(tab, 1200, 900, false);
}

/// Under `take=each` a move that closes two mills takes two stones: it is listed once, and
/// played by clicking its point and then both stones, in either order; the page draws both
/// captures (hover preview and last move).
#[test]
fn double_capture_in_chromium() {
    let Some(chrome) = browser_or_skip() else { return };
    let rules = "standard,take=each";
    let db = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_morris")).args(["--rules", rules, "solve", "-q", "--db"]).arg(db.path()).args(["--max-stones", "9"]).output().unwrap();
    assert!(out.status.success(), "solve {rules}: {}", String::from_utf8_lossy(&out.stderr));
    let server = Server::start(db.path(), &["--rules", rules]);
    let profile = tempfile::tempdir().unwrap();
    let browser = launch(&chrome, profile.path());
    let tab = browser.new_tab().unwrap();
    tab.set_default_timeout(WAIT);
    set_viewport(&tab, 1200, 900, false);

    // White places d7, closing a7-d7-g7 and d7-d6-d5, and takes both black stones.
    let pos = server.probe("W.W.W..W..B..........B.. w 1 2")["position"].as_str().unwrap().to_string();
    let url = format!("{}/?position={}", server.base(), encode(&pos));
    tab.navigate_to(&url).unwrap().wait_until_navigated().unwrap();
    wait_loaded(&tab, &pos);
    let probe = check_page(&tab, &server, &pos);
    let double = "d7xa1xb4";
    assert!(probe["moves"].as_array().unwrap().iter().any(|m| m["move"] == double), "{probe}");
    assert_eq!(eval(&tab, &format!("document.querySelectorAll('#moves [data-move={double}]').length")), 1, "{double} is listed once");
    // Hovering it shows both stones taken.
    tab.move_mouse_to_point(center(&tab, &format!("#moves [data-move={double}]"))).unwrap();
    wait_until(
        &tab,
        "the hover preview",
        "['a1', 'b4'].every((q) => document.querySelector(`[data-point=${q}]`).dataset.stone === '.' && pointEls[q].cross.getAttribute('class') === 'cross on')",
    );
    tab.move_mouse_to_point(Point { x: 1195.0, y: 5.0 }).unwrap();
    wait_until(&tab, "the board back", "document.querySelector('[data-point=a1]').dataset.stone === 'B'");
    // By clicks, the captures in the move's order...
    let after = play_by_clicks(&tab, &server, &pos, double, None);
    check_page(&tab, &server, &after);
    assert_eq!(eval(&tab, "['a1', 'b4'].every((q) => pointEls[q].cross.getAttribute('class') === 'cross on')"), true, "both captured stones are marked");
    // ...and in the other order: the first one chosen is marked taken, the other still
    // capturable, and nothing is played before the second.
    click(&tab, "#undo");
    wait_loaded(&tab, &pos);
    click_point(&tab, "d7");
    wait_until(&tab, "capturable stones", "document.querySelectorAll('.ring.capturable').length === 2");
    assert_eq!(eval(&tab, "document.getElementById('hint').textContent.startsWith('Two mills: click two black stones')"), true, "the hint asks for two stones");
    click_point(&tab, "b4");
    wait_until(
        &tab,
        "the second capture",
        "document.querySelectorAll('.ring.capturable').length === 1 && !!document.querySelector('[data-point=a1]').parentNode.querySelector('.ring.capturable')",
    );
    assert_eq!(eval(&tab, "document.body.dataset.position"), pos.as_str(), "no move before the second capture");
    click_point(&tab, "a1");
    wait_loaded(&tab, &after);
    // From the move list.
    click(&tab, "#undo");
    wait_loaded(&tab, &pos);
    click(&tab, &format!("#moves [data-move={double}]"));
    wait_loaded(&tab, &after);
    assert_eq!(eval(&tab, "document.querySelectorAll('#history .node').length"), 2, "one move, played three times, in the history");
}
