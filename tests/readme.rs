//! The README's examples run against the binary, so that they cannot go stale.
//!
//! Every ```` ```console ```` block of README.md is a session: `$ COMMAND` lines, each
//! followed by the standard output it must print. The commands run one after another
//! with `sh` in one fresh directory (so the first `morris solve` writes `databases/`
//! there), with the binary under test first on `PATH`. In the expected output, a line
//! `...` stands for any number of lines, `[..]` within a line for any text, and a last
//! line `? N` for the exit status N (0 when there is none).

use std::path::Path;
use std::process::Command;

struct Step {
    command: String,
    expected: Vec<String>,
    status: i32,
}

fn sessions(readme: &str) -> Vec<Vec<Step>> {
    let mut out = vec![];
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "```console" {
            continue;
        }
        let mut steps: Vec<Step> = vec![];
        for line in lines.by_ref() {
            if line.trim() == "```" {
                break;
            }
            if let Some(cmd) = line.strip_prefix("$ ") {
                steps.push(Step { command: cmd.to_string(), expected: vec![], status: 0 });
            } else if let Some(step) = steps.last_mut() {
                match line.strip_prefix("? ").and_then(|n| n.parse().ok()) {
                    Some(n) => step.status = n,
                    None => step.expected.push(line.to_string()),
                }
            }
        }
        out.push(steps);
    }
    out
}

/// Whether `line` matches `pattern`, where `[..]` matches any text.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || !line[first.len()..].ends_with(last) || line.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `lines` match `expected`, where a line `...` matches any number of lines.
fn matches(expected: &[String], lines: &[&str]) -> bool {
    match expected.split_first() {
        None => lines.is_empty(),
        Some((e, rest)) if e == "..." => (0..=lines.len()).any(|k| matches(rest, &lines[k..])),
        Some((e, rest)) => !lines.is_empty() && line_matches(e, lines[0]) && matches(rest, &lines[1..]),
    }
}

#[test]
fn readme_examples_print_what_they_say() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let sessions = sessions(&readme);
    assert!(sessions.len() >= 2, "the README has its examples");
    let bin = Path::new(env!("CARGO_BIN_EXE_morris")).parent().unwrap().to_owned();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for steps in sessions {
        let dir = tempfile::tempdir().unwrap();
        for step in steps {
            let out = Command::new("sh").arg("-c").arg(&step.command).current_dir(dir.path()).env("PATH", &path).output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let lines: Vec<&str> = stdout.lines().collect();
            assert!(
                matches(&step.expected, &lines),
                "README example `{}` printed:\n{stdout}\nstderr:\n{}\nexpected:\n{}",
                step.command,
                String::from_utf8_lossy(&out.stderr),
                step.expected.join("\n")
            );
            assert_eq!(out.status.code(), Some(step.status), "README example `{}`: exit status", step.command);
            ran += 1;
        }
    }
    assert!(ran >= 8, "{ran} README commands ran");
}

#[test]
fn the_matcher_matches_and_refuses() {
    let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(matches(&e(&["a", "...", "z"]), &["a", "b", "c", "z"]));
    assert!(matches(&e(&["a", "...", "z"]), &["a", "z"]));
    assert!(!matches(&e(&["a", "...", "z"]), &["a", "b"]));
    assert!(line_matches("took [..] s, [..] positions", "took 1.5 s, 30 positions"));
    assert!(!line_matches("took [..] s", "took 1.5 ms!"));
    assert!(!matches(&e(&["a"]), &["a", "b"]));
}
