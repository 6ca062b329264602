//! Draw classes from the command line and the server: `solve --ultra`, `probe`,
//! `draw`, `verify` and `/api/probe` show which draw a position heads for.
#![cfg(feature = "cli")]

use std::process::Command;

#[path = "common/server.rs"]
mod server;

fn morris(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_morris")).args(args).output().unwrap()
}

fn text(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn classes_from_the_command_line_and_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // Without classes, a draw is just a draw.
    let o = morris(&["solve", "--db", d, "--start", "4-4", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    // 4-3: White, with four stones, draws but heads for 4-3, worse for it than even.
    let draw = ["--white", "a7,d7,g1,b2", "--black", "d5,e4,c3", "--turn", "white"];
    let o = morris(&[&["probe", "--db", d][..], &draw[..]].concat());
    assert!(text(&o).contains("White to move: draw."), "{}", text(&o));
    // --ultra needs a start.
    let o = morris(&["solve", "--db", d, "--ultra", "--max-stones", "6"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--start"), "{}", text(&o));
    let o = morris(&["solve", "--db", d, "--start", "4-4", "--ultra", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("draw classes: 18 class files (18 solved now)"), "{}", text(&o));
    assert!(dir.path().join("sector-values.txt").exists());
    let o = morris(&[&["probe", "--db", d][..], &draw[..]].concat());
    assert!(text(&o).contains("White to move: draw, heading for 4-3 (unfavourable)."), "{}", text(&o));
    let o = morris(&[&["probe", "--db", d, "--json"][..], &draw[..]].concat());
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["class"]["sector"], "4-3", "{j}");
    assert!(j["class"]["class"].as_i64().unwrap() < 0, "{j}");
    assert!(j["moves"].as_array().unwrap().iter().all(|m| m["result"] != "draw" || m["class"].is_object()), "{j}");
    // The empty board heads for an even sector.
    let o = morris(&["draw", "--db", d, "--stones", "4-4"]);
    assert!(text(&o).contains("a draw, heading for an even sector"), "{}", text(&o));
    // The distribution of draws by class: every drawn position counted once.
    let o = morris(&["stats", "--db", d, "--classes", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let last: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().last().unwrap()).unwrap();
    // The classed sectors: those real moves reach from the start (sector-values.txt),
    // 18 of the 28 tables the strong solve writes for its coarser sector graph.
    let classed: Vec<String> = std::fs::read_to_string(dir.path().join("sector-values.txt"))
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(|x| x.strip_suffix("-0-0").unwrap_or(x).to_string())
        .collect();
    assert_eq!(classed.len(), 18);
    let draws: u64 = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|j| j["subspace"].as_str().is_some_and(|x| classed.iter().any(|c| c == x)))
        .filter_map(|j| j["draws"].as_u64())
        .sum();
    assert_eq!(last["draws"].as_u64(), Some(draws), "the classes count every draw of the classed tables: {last}");
    assert_eq!(last["classes"][0]["sector"], "k-k", "{last}");
    let o = morris(&["verify", "--db", d]);
    assert!(o.status.success() && text(&o).contains("verified the draw classes of") && text(&o).contains(": 0 mismatches"), "{}", text(&o));
    // The server: the class of a draw and of each drawing move, in words.
    let srv = server::Server::start(dir.path(), &[]);
    let pos = j["position"].as_str().unwrap();
    let (status, p) = srv.api("probe", pos);
    assert_eq!(status, 200, "{p}");
    assert_eq!(p["class"]["words"], "draw, heading for 4-3 (unfavourable)", "{p}");
    assert!(p["moves"].as_array().unwrap().iter().all(|m| m["result"] != "draw" || m["class"]["words"].is_string()), "{p}");
    let (status, m) = srv.api("mainline", pos);
    assert_eq!(status, 200, "{m}");
    assert_eq!(m["class"]["sector"], "4-3", "{m}");
    // Other sector values: the classes were not made with them, so every class
    // read fails and names the file; solving again with them mends it.
    let values = std::fs::read_to_string(dir.path().join("sector-values.txt")).unwrap();
    let flipped: String = values
        .lines()
        .map(|l| {
            let (x, r) = l.split_once(' ').unwrap();
            format!("{x} {}\n", -r.parse::<i32>().unwrap())
        })
        .collect();
    let file = dir.path().join("flipped.txt");
    std::fs::write(&file, flipped).unwrap();
    std::fs::write(dir.path().join("sector-values.txt"), std::fs::read(&file).unwrap()).unwrap();
    let o = morris(&[&["probe", "--db", d][..], &draw[..]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("other sector values"), "{}", text(&o));
    let o = morris(&["solve", "--db", d, "--start", "4-4", "--ultra", "--sector-values", file.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = morris(&[&["probe", "--db", d][..], &draw[..]].concat());
    // Play stays in 4-3 as before, which these values call good for White.
    assert!(text(&o).contains("White to move: draw, heading for 4-3 (favourable)."), "{}", text(&o));
}

/// An answer without its timing, which differs between two runs.
fn timeless(mut j: serde_json::Value) -> serde_json::Value {
    if let Some(o) = j.as_object_mut() {
        o.remove("seconds");
    }
    j
}

/// Positions of sectors that no play from the start reaches (the strong solve's
/// coarser sector graph has their tables, the classes do not): after `solve --ultra`
/// they answer as before, with the strong value and no class, on the command line, on
/// the server and in the library. Before, every answer failed on a missing class file.
#[test]
fn sectors_no_play_reaches_answer_with_the_strong_value_after_ultra() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = morris(&["solve", "--db", d, "--start", "4-4", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    // 0-1-3-3: White has placed a stone that Black took, before Black placed one; a
    // draw. 1-2-2-2: Black, one stone up after an impossible capture, with drawing moves.
    let positions = ["B....................... w 3 3", "BW...................... b 2 3"];
    for p in positions {
        let x = morris::Position::parse(p, morris::Rules::STANDARD).unwrap();
        let sector = morris::probe::sector_of(&x).unwrap().unwrap();
        assert!(dir.path().join(format!("{sector}.mtb")).exists(), "{p}: {sector}");
    }
    let answers = || {
        let srv = server::Server::start(dir.path(), &[]);
        positions
            .iter()
            .flat_map(|p| {
                let cli = morris(&["probe", "--db", d, "--json", p]);
                assert!(cli.status.success(), "{p}: {}", text(&cli));
                let words = morris(&["probe", "--db", d, p]);
                assert!(words.status.success(), "{p}: {}", text(&words));
                let (s1, probe) = srv.api("probe", p);
                let (s2, line) = srv.api("mainline", p);
                let tb = morris::Tablebase::open(dir.path()).unwrap();
                let x = morris::Position::parse(p, morris::Rules::STANDARD).unwrap();
                let best = tb.best_move(&x).map(|m| m.map(|m| m.value)).map_err(|e| e.to_string());
                [
                    timeless(serde_json::from_slice(&cli.stdout).unwrap()),
                    serde_json::json!(String::from_utf8_lossy(&words.stdout)),
                    serde_json::json!([s1, timeless(probe)]),
                    serde_json::json!([s2, line]),
                    serde_json::json!(format!("{best:?}")),
                ]
            })
            .collect::<Vec<_>>()
    };
    let before = answers();
    assert_eq!(before[0]["result"], "draw");
    assert_eq!(before[2][0], 200, "{}", before[2]);
    let o = morris(&["solve", "--db", d, "--start", "4-4", "--ultra", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let after = answers();
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(a, b);
    }
}

/// A sector-values file that is not valid is an error naming it, wherever classes are
/// read: it silently dropped the draw classes, as if the directory had none.
#[test]
fn an_invalid_sector_values_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = morris(&["solve", "--db", d, "--start", "4-4", "--ultra", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let draw = ["--white", "a7,d7,g1,b2", "--black", "d5,e4,c3", "--turn", "white"];
    let values = dir.path().join("sector-values.txt");
    let good = std::fs::read_to_string(&values).unwrap();
    for bad in ["not a sector value\n".to_string(), good.replacen(' ', " x", 1), format!("{good}{}", good.lines().next().unwrap())] {
        std::fs::write(&values, &bad).unwrap();
        let o = morris(&[&["probe", "--db", d][..], &draw[..]].concat());
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o));
        assert!(text(&o).contains(values.to_str().unwrap()), "{bad:?}: {}", text(&o));
        assert!(text(&o).contains("solve") && text(&o).contains("--ultra"), "the hint says what mends it: {}", text(&o));
        for command in [&["draw", "--db", d, "--stones", "4-4"][..], &["stats", "--db", d, "--classes"], &["verify", "--db", d]] {
            let o = morris(command);
            assert_eq!(o.status.code(), Some(2), "{command:?} {bad:?}: {}", text(&o));
            assert!(text(&o).contains(values.to_str().unwrap()), "{command:?} {bad:?}: {}", text(&o));
        }
        let srv = server::Server::start(dir.path(), &[]);
        let pos = "WW.....B....B..B..W....W w";
        for endpoint in ["probe", "mainline"] {
            let (status, j) = srv.api(endpoint, pos);
            assert_eq!(status, 500, "{endpoint} {bad:?}: {j}");
            assert!(j["error"].as_str().unwrap().contains("sector-values.txt") && !j["error"].as_str().unwrap().contains(d), "{j}");
        }
        let tb = morris::Tablebase::open(dir.path()).unwrap();
        let x = morris::Position::parse(pos, morris::Rules::STANDARD).unwrap();
        assert!(tb.best_move(&x).is_err_and(|e| e.to_string().contains("sector-values.txt")));
    }
    // No file: no classes, and no error.
    std::fs::remove_file(&values).unwrap();
    let o = morris(&[&["probe", "--db", d][..], &draw[..]].concat());
    assert!(o.status.success() && text(&o).contains("White to move: draw."), "{}", text(&o));
}

/// A class file of another format version is not a damaged strong table: the advice
/// is to classify again (`--ultra`), which rewrites it, and the rerun mends it.
#[test]
fn a_class_file_of_another_version_advises_classifying_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = morris(&["solve", "--db", d, "--start", "4-3", "--ultra", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let draw = ["--white", "a7,d7,g1,b2", "--black", "d5,e4,c3", "--turn", "white"];
    let mtc = dir.path().join("4-3.mtc");
    let mut bytes = std::fs::read(&mtc).unwrap();
    bytes[8..10].copy_from_slice(&2u16.to_le_bytes());
    std::fs::write(&mtc, &bytes).unwrap();
    let o = morris(&[&["probe", "--db", d][..], &draw[..]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("format version 2") && text(&o).contains("--start WK-BK --ultra"), "{}", text(&o));
    assert!(!text(&o).contains("morris solve` replaces damaged tables"), "{}", text(&o));
    let o = morris(&["solve", "--db", d, "--start", "4-3", "--ultra", "-q"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = morris(&[&["probe", "--db", d][..], &draw[..]].concat());
    assert!(text(&o).contains("White to move: draw, heading for"), "{}", text(&o));
}
