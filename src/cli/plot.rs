//! `morris stats --plot FILE`: an SVG with one row per table, a stacked bar of its win,
//! draw and loss shares (from the table header) and a histogram of its depths (decoded
//! from the table, holes skipped: wins above the line, losses below, counts on a log scale).
//!
//! Every table group carries its header figures as `data-` attributes and every
//! histogram bar its `data-plies` and `data-count`, so scripts and tests can read the
//! figure back. Colours are those of `WIN`, `DRAW` and `LOSS`.

use indicatif::{ProgressBar, ProgressStyle};
use morris::position::value::{is_deep, DEEP_LOSS, DEEP_WIN};
use morris::table::TableFile;
use morris::Stats;
use morris::{Sector, Value};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

pub const WIN: &str = "#2e9b4a";
pub const DRAW: &str = "#a0a0a0";
pub const LOSS: &str = "#d23c3c";

/// Figure width and the columns of a row.
const WIDTH: f64 = 1100.0;
const BAR_X: f64 = 130.0;
const BAR_W: f64 = 330.0;
const HIST_X: f64 = 500.0;
const HIST_W: f64 = 500.0;
const NOTE_X: f64 = 1012.0;
/// Row height, and the height of a histogram bar of the largest count.
const ROW: f64 = 42.0;
const HALF: f64 = 17.0;
/// Rows between repeated depth axes.
const AXIS_EVERY: usize = 25;

/// The positions of one table by value: `win[d]` wins in `d` plies, `loss[d]` losses in `d`.
struct Histogram {
    win: Vec<u64>,
    loss: Vec<u64>,
    draws: u64,
}

struct Row {
    sector: Sector,
    stats: Stats,
    /// `None` for a results-only table (no depth planes).
    hist: Option<Histogram>,
}

/// The plot file being made: a temporary file beside the target, renamed at the end
/// and removed if the run fails before.
pub struct Plot {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
}

impl Plot {
    /// Creates the temporary file at once, so an unwritable target fails before any work.
    pub fn create(path: &Path) -> anyhow::Result<Plot> {
        let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| anyhow::anyhow!("--plot needs a file name, got {}", path.display()))?;
        anyhow::ensure!(!path.is_dir(), "cannot write the plot to {}: it is a directory", path.display());
        let tmp = path.with_file_name(format!(".{name}.tmp.{}", std::process::id()));
        // An earlier run killed before its rename left its temporary file: remove it.
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if let Ok(entries) = std::fs::read_dir(dir) {
            let stem = format!(".{name}.tmp.");
            for e in entries.flatten() {
                let n = e.file_name().to_string_lossy().into_owned();
                if n.strip_prefix(&stem).is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
        let file = File::create(&tmp).map_err(|e| anyhow::anyhow!("cannot write the plot to {}: {e}", path.display()))?;
        Ok(Plot { path: path.to_owned(), tmp, file: Some(file) })
    }

    /// Decodes the tables, draws them and renames the file into place. Returns the line to print.
    pub fn finish(mut self, db: &Path, tables: &[TableFile]) -> anyhow::Result<String> {
        let slots: u64 = tables.iter().filter(|t| !t.header.results_only).map(|t| t.header.entries).sum();
        let bar = ProgressBar::new(slots);
        bar.set_style(ProgressStyle::with_template("{msg:>12} [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta}").unwrap().progress_chars("=> "));
        let rows = rows_of(tables, &bar)?;
        bar.finish_and_clear();
        let game = tables.first().map_or_else(|| "Morris".to_string(), |t| game_name(&t.header.rules));
        let svg = render(&format!("{game} tables in {}", db.display()), &rows);
        let mut file = self.file.take().expect("the plot is finished once");
        let written = file.write_all(svg.as_bytes()).and_then(|_| file.sync_all());
        drop(file);
        let err = |e: std::io::Error| anyhow::anyhow!("cannot write the plot to {}: {e}", self.path.display());
        written.map_err(err)?;
        std::fs::rename(&self.tmp, &self.path).map_err(err)?;
        let movement = rows.iter().filter(|r| r.sector.is_movement()).count();
        Ok(format!("plot of {} tables ({movement} movement, {} placement) written to {}", rows.len(), rows.len() - movement, self.path.display()))
    }
}

fn rows_of(tables: &[TableFile], bar: &ProgressBar) -> anyhow::Result<Vec<Row>> {
    tables
        .iter()
        .map(|t| {
            bar.set_message(t.header.sector.to_string());
            let hist = if t.header.results_only { None } else { Some(histogram(t, bar)?) };
            Ok(Row { sector: t.header.sector, stats: t.header.stats, hist })
        })
        .collect()
}

/// The name of the game a rule set plays, as the board's title gives it (`web/app.js`):
/// "Morabaraba", "Nine Men's Morris (take=each)". Plots of the variants' tables are
/// titled by it, not as the standard game's.
pub fn game_name(rules: &morris::Rules) -> String {
    let text = rules.to_string();
    let (name, options) = text.split_once(',').map_or((text.as_str(), None), |(n, o)| (n, Some(o)));
    let game = match name {
        "standard" => "Nine Men's Morris",
        "lasker" => "Lasker Morris",
        "morabaraba" => "Morabaraba",
        "twelve" => "Twelve Men's Morris",
        "six" => "Six Men's Morris",
        "five" => "Five Men's Morris",
        other => other,
    };
    match options {
        Some(o) => format!("{game} ({o})"),
        None => game.to_string(),
    }
}

/// The plot of every table of `db` under `rules`, in `stats`' order, titled `title`
/// (the server's statistics page: no path of the server's in it).
pub fn svg_for_dir(db: &Path, rules: &morris::Rules, title: &str) -> anyhow::Result<String> {
    let mut sectors: Vec<Sector> = std::fs::read_dir(db)?.filter_map(|e| e.ok()).filter_map(|e| e.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok()).collect();
    sectors.sort_by_key(|x| (!x.is_movement(), x.sh + x.oh, x.s + x.o, x.s, x.o, x.sh));
    let tables = sectors.iter().map(|&x| TableFile::open(&morris::table::table_path(db, x), x, rules)).collect::<Result<Vec<_>, _>>()?;
    anyhow::ensure!(!tables.is_empty(), "no tables");
    Ok(render(title, &rows_of(&tables, &ProgressBar::hidden())?))
}

impl Drop for Plot {
    fn drop(&mut self) {
        // Only a plot renamed into place leaves its temporary name behind it.
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Counts the table's values, block by block in parallel (one block buffer per
/// worker), skipping the holes of the index, and checks the counts against the header.
fn histogram(t: &TableFile, bar: &ProgressBar) -> anyhow::Result<Histogram> {
    let index = t.header.sector.index(t.header.rules.board());
    let block = t.header.block_size as u64;
    let zero = || vec![0u64; 256];
    let bytes = (0..t.header.blocks as usize)
        .into_par_iter()
        .try_fold(
            || (zero(), Vec::new()),
            |(mut counts, mut buf), k| {
                t.read_block(k, &mut buf)?;
                let start = k as u64 * block;
                for (j, &b) in buf.iter().enumerate() {
                    let i = start + j as u64;
                    if !(index.may_be_hole(i) && index.is_hole(i)) {
                        counts[b as usize] += 1;
                    }
                }
                bar.inc(buf.len() as u64);
                Ok::<_, morris::table::TableError>((counts, buf))
            },
        )
        .map(|r| r.map(|(counts, _)| counts))
        .try_reduce(zero, |a, b| Ok(a.iter().zip(&b).map(|(x, y)| x + y).collect()))?;
    // Values deeper than a byte (`removal=strict`) take their depths from the deep
    // section, one entry for each deep byte counted above.
    let deep = t.deep().entries();
    let bins = 256.max(deep.iter().map(|e| e.1 as usize + 1).max().unwrap_or(0));
    let mut h = Histogram { win: vec![0; bins], loss: vec![0; bins], draws: 0 };
    for (b, &n) in bytes.iter().enumerate() {
        match Value::decode(b as u8) {
            _ if is_deep(b as u8) => {}
            Value::Win(d) => h.win[d as usize] += n,
            Value::Loss(d) => h.loss[d as usize] += n,
            Value::Draw => h.draws += n,
        }
    }
    let deep_wins = deep.iter().filter(|e| e.1 % 2 == 1).count() as u64;
    anyhow::ensure!(
        (bytes[DEEP_WIN as usize], bytes[DEEP_LOSS as usize]) == (deep_wins, deep.len() as u64 - deep_wins),
        "{}: {} deep win and {} deep loss bytes, but its deep section holds {} wins and {} losses",
        t.path.display(),
        bytes[DEEP_WIN as usize],
        bytes[DEEP_LOSS as usize],
        deep_wins,
        deep.len() as u64 - deep_wins
    );
    for &(_, d) in deep {
        if d % 2 == 1 {
            h.win[d as usize] += 1;
        } else {
            h.loss[d as usize] += 1;
        }
    }
    let s = &t.header.stats;
    let (wins, losses) = (h.win.iter().sum::<u64>(), h.loss.iter().sum::<u64>());
    let deepest = |v: &[u64]| v.iter().rposition(|&n| n > 0).unwrap_or(0) as u16;
    anyhow::ensure!(
        (wins, h.draws, losses, deepest(&h.win), deepest(&h.loss)) == (s.wins, s.draws, s.losses, s.max_win, s.max_loss),
        "{}: the decoded values ({wins} wins, {} draws, {losses} losses, deepest {} and {}) disagree with the header ({} wins, {} draws, {} losses, deepest {} and {})",
        t.path.display(),
        h.draws,
        deepest(&h.win),
        deepest(&h.loss),
        s.wins,
        s.draws,
        s.losses,
        s.max_win,
        s.max_loss
    );
    Ok(h)
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share as a percentage, with tiny non-zero shares not shown as 0, escaped for SVG text.
fn percent(part: u64, whole: u64) -> String {
    let p = 100.0 * part as f64 / whole.max(1) as f64;
    if part > 0 && p < 0.01 {
        "&lt;0.01%".to_string()
    } else {
        format!("{p:.2}%")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Ply spacing for axis ticks: about ten ticks over `plies`.
fn tick_step(plies: u16) -> u16 {
    [2, 5, 10, 20, 25, 50].into_iter().find(|&s| plies / s <= 12).unwrap_or(100)
}

/// The figures of several tables together.
fn total<'a>(rows: impl Iterator<Item = &'a Row>) -> Stats {
    rows.fold(Stats::default(), |a, r| Stats {
        positions: a.positions + r.stats.positions,
        wins: a.wins + r.stats.wins,
        draws: a.draws + r.stats.draws,
        losses: a.losses + r.stats.losses,
        max_win: a.max_win.max(r.stats.max_win),
        max_loss: a.max_loss.max(r.stats.max_loss),
    })
}

/// Draws the rows under the title `title`.
fn render(title: &str, rows: &[Row]) -> String {
    let plies = rows.iter().map(|r| r.stats.max_win.max(r.stats.max_loss)).max().unwrap_or(0).max(10);
    let plies = plies.div_ceil(10) * 10;
    // Ply p is centred at px(p); a bar covers two plies, so wins (odd) and losses (even) tile.
    let pw = HIST_W / (plies as f64 + 2.0);
    let px = |p: f64| HIST_X + (p + 1.0) * pw;
    let top = rows.iter().filter_map(|r| r.hist.as_ref()).flat_map(|h| h.win.iter().chain(&h.loss)).copied().max().unwrap_or(1).max(2);
    let height = |n: u64| 1.0 + (HALF - 1.0) * (n as f64).ln() / (top as f64).ln();
    let step = tick_step(plies);

    let sections: Vec<(&str, Vec<&Row>)> = [("Movement subspaces S-O", true), ("Placement sectors S-O-SH-OH", false)]
        .into_iter()
        .map(|(name, movement)| (name, rows.iter().filter(|r| r.sector.is_movement() == movement).collect::<Vec<_>>()))
        .filter(|(_, rs)| !rs.is_empty())
        .collect();

    let mut body = String::new();
    let b = &mut body;
    let mut y = 150.0;
    // A depth axis across the histogram column, its baseline at `y`.
    let axis = |b: &mut String, y: f64| {
        let _ = write!(b, r##"<g class="axis"><line x1="{HIST_X}" y1="{y}" x2="{}" y2="{y}" stroke="#555"/>"##, HIST_X + HIST_W);
        for p in (0..=plies).step_by(step as usize) {
            let x = px(p as f64);
            let _ = write!(b, r##"<line x1="{x:.1}" y1="{y}" x2="{x:.1}" y2="{}" stroke="#555"/><text x="{x:.1}" y="{}" text-anchor="middle">{p}</text>"##, y - 4.0, y - 6.0);
        }
        let _ = write!(b, r#"<text x="{}" y="{}" text-anchor="end">plies</text></g>"#, HIST_X - 6.0, y - 2.0);
    };
    for (name, section) in &sections {
        let t = total(section.iter().copied());
        let _ = write!(
            b,
            r#"<text x="16" y="{}"><tspan class="section">{}</tspan><tspan dx="12">{} tables, {} positions: <tspan class="tw">win {}</tspan>, <tspan class="td">draw {}</tspan>, <tspan class="tl">loss {}</tspan></tspan></text>"#,
            y + 4.0,
            escape(name),
            section.len(),
            thousands(t.positions),
            percent(t.wins, t.positions),
            percent(t.draws, t.positions),
            percent(t.losses, t.positions)
        );
        y += 30.0;
        let grid_top = y;
        let mut grid = String::new();
        for (k, row) in section.iter().enumerate() {
            if k % AXIS_EVERY == 0 {
                axis(b, y + 4.0);
                y += 10.0;
            }
            row_svg(b, row, y, k, &px, &height, pw);
            y += ROW;
        }
        // Faint grid lines at each tick, over the rows of the section.
        for p in (0..=plies).step_by(step as usize) {
            let x = px(p as f64);
            let _ = write!(grid, r#"<line x1="{x:.1}" y1="{grid_top}" x2="{x:.1}" y2="{y}"/>"#);
        }
        let _ = write!(b, r#"<g class="grid">{grid}</g>"#);
        axis(b, y + 14.0);
        y += 40.0;
    }
    let total_height = y + 10.0;

    let total = total(rows.iter());
    let movement = rows.iter().filter(|r| r.sector.is_movement()).count();
    let mut svg = String::with_capacity(body.len() + 4096);
    let s = &mut svg;
    let _ = write!(
        s,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{total_height}" viewBox="0 0 {WIDTH} {total_height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="11">
<style>
.w {{ fill: {WIN} }} .d {{ fill: {DRAW} }} .l {{ fill: {LOSS} }}
.tw {{ fill: #1f7a37 }} .td {{ fill: #666 }} .tl {{ fill: #b02a2a }}
.name {{ font-size: 14px; font-weight: bold }} .sub {{ fill: #666; font-size: 10px }}
.section {{ font-size: 15px; font-weight: bold }} .axis text {{ font-size: 10px; fill: #333 }}
.grid line {{ stroke: #000; stroke-opacity: 0.08 }} .zero {{ stroke: #888; stroke-width: 0.5 }}
</style>
<rect width="100%" height="100%" fill="white"/>
"#
    );
    let _ = write!(s, r#"<text x="16" y="30" font-size="20" font-weight="bold">{}</text>"#, escape(title));
    let _ = write!(
        s,
        r#"<text x="16" y="52" font-size="12">{} tables ({movement} movement subspaces, {} placement sectors), {} positions: <tspan class="tw">win {}</tspan>, <tspan class="td">draw {}</tspan>, <tspan class="tl">loss {}</tspan>; deepest win {} plies, deepest loss {}</text>"#,
        rows.len(),
        rows.len() - movement,
        thousands(total.positions),
        percent(total.wins, total.positions),
        percent(total.draws, total.positions),
        percent(total.losses, total.positions),
        total.max_win,
        total.max_loss
    );
    // Legend.
    let _ = write!(s, r#"<g class="legend"><text x="16" y="80" font-weight="bold">Shares (table headers)</text>"#);
    for (k, (class, word)) in [("w", "win"), ("d", "draw"), ("l", "loss")].into_iter().enumerate() {
        let x = 16.0 + 70.0 * k as f64;
        let _ = write!(s, r#"<rect class="{class}" x="{x}" y="88" width="14" height="12"/><text x="{}" y="98">{word}</text>"#, x + 19.0);
    }
    let _ = write!(
        s,
        r#"<text x="16" y="120" class="sub">for the side to move; shares of positions (symmetric positions counted once)</text><text x="{HIST_X}" y="80" font-weight="bold">Depth histogram (decoded from the tables)</text><rect class="w" x="{HIST_X}" y="88" width="6" height="12"/><text x="{}" y="98">wins in d plies, above the line</text><rect class="l" x="{}" y="88" width="6" height="12"/><text x="{}" y="102">losses in d plies, below the line</text><text x="{HIST_X}" y="120" class="sub">bar height: log scale of positions, from 1 to {} (the largest bar); d = plies to the end of the game, best play</text></g>"#,
        HIST_X + 10.0,
        HIST_X + 200.0,
        HIST_X + 210.0,
        thousands(top)
    );
    s.push_str(&body);
    s.push_str("</svg>\n");
    svg
}

/// One table's row with its top at `y`; `k` is its rank in the section (for shading).
fn row_svg(b: &mut String, row: &Row, y: f64, k: usize, px: &dyn Fn(f64) -> f64, height: &dyn Fn(u64) -> f64, pw: f64) {
    let s = &row.stats;
    let name = row.sector.to_string();
    let _ = write!(
        b,
        r#"<g class="table" data-sector="{name}" data-positions="{}" data-wins="{}" data-draws="{}" data-losses="{}" data-max-win="{}" data-max-loss="{}" transform="translate(0,{y})">"#,
        s.positions, s.wins, s.draws, s.losses, s.max_win, s.max_loss
    );
    if k % 2 == 1 {
        let _ = write!(b, r##"<rect x="8" y="0" width="{}" height="{ROW}" fill="#f4f4f4"/>"##, WIDTH - 16.0);
    }
    let _ = write!(b, r#"<text x="16" y="19" class="name">{name}</text><text x="16" y="34" class="sub">{} pos.</text>"#, thousands(s.positions));
    // Stacked bar of shares.
    let _ = write!(
        b,
        r#"<g><title>{name}: {} positions: {} wins ({}), {} draws ({}), {} losses ({})</title>"#,
        thousands(s.positions),
        thousands(s.wins),
        percent(s.wins, s.positions),
        thousands(s.draws),
        percent(s.draws, s.positions),
        thousands(s.losses),
        percent(s.losses, s.positions)
    );
    let mut x = BAR_X;
    for (class, n) in [("w", s.wins), ("d", s.draws), ("l", s.losses)] {
        let w = BAR_W * n as f64 / s.positions.max(1) as f64;
        if n > 0 {
            let _ = write!(b, r#"<rect class="{class}" x="{x:.2}" y="7" width="{w:.2}" height="14"/>"#);
        }
        x += w;
    }
    let _ = write!(
        b,
        r#"</g><text x="{BAR_X}" y="34" class="sub"><tspan class="tw">win {}</tspan><tspan class="td" dx="9">draw {}</tspan><tspan class="tl" dx="9">loss {}</tspan></text>"#,
        percent(s.wins, s.positions),
        percent(s.draws, s.positions),
        percent(s.losses, s.positions)
    );
    // Depth histogram around the zero line.
    let mid = ROW / 2.0;
    let _ = write!(b, r#"<line class="zero" x1="{HIST_X}" y1="{mid}" x2="{}" y2="{mid}"/>"#, HIST_X + HIST_W);
    match &row.hist {
        None => {
            let _ = write!(b, r#"<text x="{}" y="{}" class="sub">results only: no depths in this table</text>"#, HIST_X + 8.0, mid - 4.0);
        }
        Some(h) => {
            for (class, counts, word, up) in [("w", &h.win, "win", true), ("l", &h.loss, "loss", false)] {
                for (d, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
                    let hgt = height(n);
                    let top = if up { mid - hgt } else { mid };
                    let _ = write!(
                        b,
                        r#"<rect class="{class}" x="{:.2}" y="{top:.2}" width="{:.2}" height="{hgt:.2}" data-plies="{d}" data-count="{n}"><title>{name}: {word} in {d}: {}</title></rect>"#,
                        px(d as f64 - 1.0),
                        2.0 * pw,
                        thousands(n)
                    );
                }
            }
        }
    }
    let _ = write!(b, r#"<text x="{NOTE_X}" y="17" class="tw">max W {}</text><text x="{NOTE_X}" y="33" class="tl">max L {}</text></g>"#, s.max_win, s.max_loss);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(591_726_690), "591,726,690");
        assert_eq!(percent(1, 1_000_000), "&lt;0.01%");
        assert_eq!(percent(0, 0), "0.00%");
        assert_eq!(percent(1, 3), "33.33%");
        assert_eq!(escape(r#"a&b<"c">"#), "a&amp;b&lt;&quot;c&quot;&gt;");
        assert_eq!(tick_step(30), 5);
        assert_eq!(tick_step(210), 20);
    }
}
