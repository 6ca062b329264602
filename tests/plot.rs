//! `morris stats --plot`: the real binary on small solved tables. The SVG is checked
//! for well-formedness by a small XML reader below, and its histograms against the
//! figures `stats --json` prints from the headers and against values decoded here.

use morris::table::{table_path, TableFile};
use morris::{Sector, Value};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

fn morris(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

/// Movement tables for s + o <= 8 and the placement sectors of the 3-3 start, solved
/// once, in a directory whose name needs escaping in XML.
fn db() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tables & <more> \"x\"");
        let out = morris(&["solve", "--db", path.to_str().unwrap(), "--max-stones", "8", "--start", "3-3", "--quiet"]);
        assert!(out.status.success(), "{}", text(&out));
        (dir, path)
    });
    path
}

fn dbs() -> &'static str {
    db().to_str().unwrap()
}

// A minimal XML reader: enough to reject what a browser would refuse (unbalanced or
// misnamed tags, unquoted or duplicate attributes, a raw `<` or `&`, content after
// the root) and to walk the tree.

#[derive(Debug)]
struct Element {
    name: String,
    attrs: BTreeMap<String, String>,
    children: Vec<Element>,
    text: String,
}

impl Element {
    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.get(name).map(|s| s.as_str())
    }

    fn descendants(&self) -> Vec<&Element> {
        let mut out = Vec::new();
        for c in &self.children {
            out.push(c);
            out.extend(c.descendants());
        }
        out
    }

    /// All text inside, descendants included.
    fn all_text(&self) -> String {
        let mut s = self.text.clone();
        for c in &self.children {
            s += &c.all_text();
        }
        s
    }
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find(['&', '<']) {
        out += &rest[..at];
        if rest[at..].starts_with('<') {
            return Err(format!("raw < in {s:?}"));
        }
        let end = rest[at..].find(';').ok_or_else(|| format!("unterminated entity in {s:?}"))? + at;
        out.push(match &rest[at + 1..end] {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            e => return Err(format!("unknown entity &{e}; in {s:?}")),
        });
        rest = &rest[end + 1..];
    }
    Ok(out + rest)
}

fn is_name(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && cs.all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c))
}

fn parse_xml(doc: &str) -> Result<Element, String> {
    let mut s = doc.trim_start();
    if s.starts_with("<?xml") {
        s = &s[s.find("?>").ok_or("unterminated declaration")? + 2..];
    }
    let mut stack: Vec<Element> = Vec::new();
    let mut root = None;
    loop {
        let lt = s.find('<');
        let (txt, rest) = s.split_at(lt.unwrap_or(s.len()));
        let txt = unescape(txt)?;
        match stack.last_mut() {
            Some(top) => top.text += &txt,
            None if !txt.trim().is_empty() => return Err(format!("text outside the root: {txt:?}")),
            None => {}
        }
        if lt.is_none() {
            break;
        }
        let close = rest.find('>').ok_or("unterminated tag")?;
        let tag = &rest[1..close];
        s = &rest[close + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let el = stack.pop().ok_or_else(|| format!("</{name}> closes nothing"))?;
            if el.name != name.trim() {
                return Err(format!("</{name}> closes <{}>", el.name));
            }
            match stack.last_mut() {
                Some(parent) => parent.children.push(el),
                None if root.is_none() => root = Some(el),
                None => return Err("two root elements".into()),
            }
            continue;
        }
        if tag.starts_with("!--") {
            return Err("comments are not expected".into());
        }
        let (tag, empty) = match tag.strip_suffix('/') {
            Some(t) => (t, true),
            None => (tag, false),
        };
        let name_end = tag.find(char::is_whitespace).unwrap_or(tag.len());
        let name = &tag[..name_end];
        if !is_name(name) {
            return Err(format!("bad element name {name:?}"));
        }
        let mut attrs = BTreeMap::new();
        let mut a = tag[name_end..].trim_start();
        while !a.is_empty() {
            let eq = a.find('=').ok_or_else(|| format!("attribute without value in <{name} {a}"))?;
            let key = a[..eq].trim();
            if !is_name(key) {
                return Err(format!("bad attribute name {key:?} in <{name}>"));
            }
            let quote = a[eq + 1..].chars().next().filter(|c| *c == '"' || *c == '\'').ok_or_else(|| format!("unquoted attribute {key} in <{name}>"))?;
            let end = a[eq + 2..].find(quote).ok_or_else(|| format!("unterminated attribute {key}"))? + eq + 2;
            if attrs.insert(key.to_string(), unescape(&a[eq + 2..end])?).is_some() {
                return Err(format!("duplicate attribute {key} in <{name}>"));
            }
            let after = &a[end + 1..];
            if !after.is_empty() && !after.starts_with(char::is_whitespace) {
                return Err(format!("no space after attribute {key} in <{name}>"));
            }
            a = after.trim_start();
        }
        let el = Element { name: name.to_string(), attrs, children: Vec::new(), text: String::new() };
        if root.is_some() {
            return Err("content after the root element".into());
        }
        if empty {
            match stack.last_mut() {
                Some(parent) => parent.children.push(el),
                None => root = Some(el),
            }
        } else {
            stack.push(el);
        }
    }
    if let Some(open) = stack.last() {
        return Err(format!("<{}> is never closed", open.name));
    }
    root.ok_or_else(|| "no root element".into())
}

#[test]
fn the_xml_reader_rejects_what_it_should() {
    assert!(parse_xml(r#"<svg a="1"><g><rect/></g><text>x &amp; y</text></svg>"#).is_ok());
    for bad in [
        "<svg><g></svg>",
        "<svg></g>",
        "<svg a=1/>",
        r#"<svg a="1" a="2"/>"#,
        "<svg>a < b</svg>",
        "<svg>a & b</svg>",
        r#"<svg a="<"/>"#,
        "<svg/><svg/>",
        "<svg><text>win <0.01%</text></svg>",
        "<svg>",
    ] {
        assert!(parse_xml(bad).is_err(), "accepted {bad}");
    }
}

/// The SVG for the test tables, and what the command printed.
fn plot() -> &'static (Element, String) {
    static PLOT: OnceLock<(Element, String)> = OnceLock::new();
    PLOT.get_or_init(|| {
        let out_dir = tempfile::tempdir().unwrap();
        let file = out_dir.path().join("stats.svg");
        let out = morris(&["stats", "--db", dbs(), "--plot", file.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out));
        let svg = fs::read_to_string(&file).unwrap();
        let names: Vec<_> = fs::read_dir(out_dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["stats.svg"], "no temporary file is left behind");
        let root = parse_xml(&svg).unwrap_or_else(|e| panic!("the SVG is not well-formed XML: {e}"));
        (root, String::from_utf8(out.stdout).unwrap())
    })
}

/// The header figures of every table, in the order `stats` prints them.
fn header_figures() -> Vec<serde_json::Value> {
    let out = morris(&["stats", "--db", dbs(), "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The histogram bars of one table group: (class, plies, count).
fn bars(group: &Element) -> Vec<(String, u64, u64)> {
    group
        .descendants()
        .into_iter()
        .filter(|e| e.name == "rect" && e.attr("data-plies").is_some())
        .map(|e| {
            let class = e.attr("class").unwrap().to_string();
            (class, e.attr("data-plies").unwrap().parse().unwrap(), e.attr("data-count").unwrap().parse().unwrap())
        })
        .collect()
}

fn tables(root: &Element) -> Vec<&Element> {
    root.descendants().into_iter().filter(|e| e.name == "g" && e.attr("class") == Some("table")).collect()
}

#[test]
fn the_plot_is_an_svg_with_a_title_and_a_legend() {
    let (root, stdout) = plot();
    assert_eq!(root.name, "svg");
    assert_eq!(root.attr("xmlns"), Some("http://www.w3.org/2000/svg"));
    let all = root.all_text();
    assert!(all.contains(&format!("tables in {}", dbs())), "the title names the directory, unescaped: {all}");
    for word in ["win", "draw", "loss", "plies", "log scale", "Movement subspaces", "Placement sectors"] {
        assert!(all.contains(word), "{word} missing");
    }
    let n = header_figures().len();
    assert_eq!(n, 12, "6 movement subspaces and 6 placement sectors of the 3-3 start");
    // The figures are printed as usual, then one line naming the plot file.
    let rows = stdout.lines().filter(|l| l.split_whitespace().next().is_some_and(|w| w.parse::<Sector>().is_ok())).count();
    assert_eq!(rows, n, "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.contains(&format!("{n} tables")) && last.contains("stats.svg"), "{last}");
}

#[test]
fn histograms_sum_to_the_header_counts() {
    let (root, _) = plot();
    let groups = tables(root);
    let headers = header_figures();
    let order: Vec<&str> = groups.iter().map(|g| g.attr("data-sector").unwrap()).collect();
    let expected: Vec<&str> = headers.iter().map(|h| h["subspace"].as_str().unwrap()).collect();
    assert_eq!(order, expected, "one group per table, in the order of `stats`");
    let mut with_both = 0;
    for (g, h) in groups.iter().zip(&headers) {
        let name = g.attr("data-sector").unwrap();
        let bars = bars(g);
        let sum = |class: &str| bars.iter().filter(|b| b.0 == class).map(|b| b.2).sum::<u64>();
        let deepest = |class: &str| bars.iter().filter(|b| b.0 == class).map(|b| b.1).max();
        assert_eq!(sum("w"), h["wins"].as_u64().unwrap(), "{name}: wins");
        assert_eq!(sum("l"), h["losses"].as_u64().unwrap(), "{name}: losses");
        assert!(bars.iter().all(|b| b.2 > 0 && (b.0 == "w") == (b.1 % 2 == 1)), "{name}: wins odd, losses even, no empty bars");
        assert!(bars.iter().all(|b| b.0 == "w" || b.0 == "l"), "{name}: bars are wins or losses");
        // A loss in 0 (blocked) is a bar at 0, so `max_loss` 0 with losses is a bar too.
        let max = |n: &str, count: &str| (h[count].as_u64().unwrap() > 0).then(|| h[n].as_u64().unwrap());
        assert_eq!(deepest("w"), max("max_win", "wins"), "{name}: deepest win");
        assert_eq!(deepest("l"), max("max_loss", "losses"), "{name}: deepest loss");
        for (attr, key) in [("data-positions", "positions"), ("data-wins", "wins"), ("data-draws", "draws"), ("data-losses", "losses")] {
            assert_eq!(g.attr(attr).unwrap().parse::<u64>().unwrap(), h[key].as_u64().unwrap(), "{name}: {attr}");
        }
        with_both += (sum("w") > 0 && sum("l") > 0) as usize;
    }
    assert!(with_both >= 4, "the test tables have wins and losses to draw");
}

/// Each bar against the values of the table decoded whole, holes skipped (a path
/// independent of the plot's block-by-block reader).
#[test]
fn each_bar_matches_the_decoded_table() {
    let (root, _) = plot();
    for g in tables(root) {
        let sector: Sector = g.attr("data-sector").unwrap().parse().unwrap();
        let t = TableFile::open(&table_path(db(), sector), sector, &morris::rules::Rules::STANDARD).unwrap();
        let values = t.read_all().unwrap();
        let index = sector.index(morris::rules::Board::Nine);
        let mut want: BTreeMap<(String, u64), u64> = BTreeMap::new();
        let mut holes = 0;
        for (i, &b) in values.iter().enumerate() {
            if index.is_hole(i as u64) {
                holes += 1;
                continue;
            }
            match Value::decode(b) {
                Value::Win(d) => *want.entry(("w".into(), d as u64)).or_default() += 1,
                Value::Loss(d) => *want.entry(("l".into(), d as u64)).or_default() += 1,
                Value::Draw => {}
            }
        }
        let got: BTreeMap<(String, u64), u64> = bars(g).into_iter().map(|(c, d, n)| ((c, d), n)).collect();
        assert_eq!(got, want, "{sector}");
        assert_eq!(values.len() as u64 - holes, t.header.stats.positions, "{sector}: holes");
        // The block reader the plot uses gives the same bytes as the whole-table read.
        let mut buf = Vec::new();
        let mut joined = Vec::new();
        for k in 0..t.header.blocks as usize {
            t.read_block(k, &mut buf).unwrap();
            joined.extend_from_slice(&buf);
        }
        assert_eq!(joined, values, "{sector}: read_block");
        assert!(t.read_block(t.header.blocks as usize, &mut buf).is_err(), "no block past the end");
    }
}

#[test]
fn results_only_tables_are_drawn_without_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let stripped = dir.path().join("wdl");
    let out = morris(&["strip", "--db", dbs(), "--out", stripped.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let file = dir.path().join("wdl.svg");
    let out = morris(&["stats", "--db", stripped.to_str().unwrap(), "--plot", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let root = parse_xml(&fs::read_to_string(&file).unwrap()).unwrap();
    let groups = tables(&root);
    assert_eq!(groups.len(), 12);
    for g in groups {
        assert!(bars(g).is_empty());
        assert!(g.all_text().contains("results only"));
    }
}

#[test]
fn clear_errors_and_no_stray_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let check = |out: &Output, want: &str| {
        assert_eq!(out.status.code(), Some(2), "{}", text(out));
        assert!(text(out).contains(want), "expected {want:?} in {}", text(out));
        assert!(!text(out).contains("panicked"), "{}", text(out));
    };
    // No tables.
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let file = dir.path().join("out.svg");
    check(&morris(&["stats", "--db", empty.to_str().unwrap(), "--plot", file.to_str().unwrap()]), "no tables");
    // An unwritable file: its directory does not exist, or it is a directory.
    check(&morris(&["stats", "--db", dbs(), "--plot", &format!("{d}/missing/out.svg")]), "cannot write the plot");
    check(&morris(&["stats", "--db", dbs(), "--plot", d]), "cannot write the plot");
    // --plot and --json do not combine.
    let out = morris(&["stats", "--db", dbs(), "--json", "--plot", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // A corrupt block is reported, and no plot is left.
    let bad = dir.path().join("bad");
    fs::create_dir(&bad).unwrap();
    let src = table_path(db(), "3-3".parse::<Sector>().unwrap());
    let mut bytes = fs::read(src).unwrap();
    let at = bytes.len() - 300;
    bytes[at] ^= 0x20;
    fs::write(bad.join("3-3.mtb"), bytes).unwrap();
    check(&morris(&["stats", "--db", bad.to_str().unwrap(), "--plot", file.to_str().unwrap()]), "corrupt");
    let mut names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["bad", "empty"], "no plot and no temporary file after a failure");
}
