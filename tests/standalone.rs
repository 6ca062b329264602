//! The repository stands alone: a clone has every document its files point to.
//!
//! - The rules, conventions, notation and published figures are in `docs/rules.md`,
//!   and the README links it.
//! - No text file of the repository (sources, tests, scripts, documents, bindings, the
//!   web board) names the rules texts that lived beside the repository before
//!   `docs/rules.md` existed, or a path into that `shared` folder. The names are put
//!   together below, so that this file does not match itself.
//! - Every relative link of a Markdown file leads to a file inside the repository that
//!   exists, and every `#anchor` of such a link to a heading of its target.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Text files of the repository: everything but build output, hidden folders (except
/// the CI's) and files that are not text.
fn text_files() -> Vec<PathBuf> {
    const TEXT: [&str; 14] = ["md", "rs", "py", "pyi", "sh", "h", "c", "toml", "js", "html", "css", "txt", "yml", "yaml"];
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let skip = name == "target" || name == "__pycache__" || (name.starts_with('.') && name != ".ci" && name != ".cargo");
                if !skip {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| TEXT.contains(&e.to_string_lossy().as_ref())) || name == "run" {
                out.push(path);
            }
        }
    }
    let mut out = vec![];
    walk(root(), &mut out);
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).display().to_string()
}

/// Where `text` points outside the repository: a path into the `shared` folder, or a
/// bare name of one of the rules texts that lived there. `docs/rules.md` is lower case
/// and matches neither.
fn outside_references(text: &str) -> Vec<String> {
    let names: Vec<String> = ["RULES", "VARIANTS", "REFERENCES", "STYLE"].iter().map(|n| format!("{n}.md")).collect();
    let folder = format!("{}/", "shared");
    let mut found = vec![];
    for (i, line) in text.lines().enumerate() {
        let bare = names.iter().any(|n| {
            line.match_indices(n.as_str()).any(|(at, _)| {
                // A name inside a longer one (with `MY_` before it, say) is another file.
                let before = line[..at].chars().next_back();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        });
        if bare || line.contains(&format!("../{folder}")) || names.iter().any(|n| line.contains(&format!("{folder}{n}"))) {
            found.push(format!("line {}: {}", i + 1, line.trim()));
        }
    }
    found
}

#[test]
fn no_file_points_outside_the_repository() {
    let files = text_files();
    assert!(files.len() > 50, "the walk found the repository's files ({})", files.len());
    let mut bad = vec![];
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        for hit in outside_references(&text) {
            bad.push(format!("{}: {hit}", relative(path)));
        }
    }
    assert!(bad.is_empty(), "references to rules texts outside the repository (the rules are in docs/rules.md):\n{}", bad.join("\n"));
}

/// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_` kept, spaces
/// turned into `-`, anything else dropped; a repeated anchor gets `-1`, `-2`, ...
fn anchors(markdown: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(heading) = line.strip_prefix('#') else { continue };
        if fenced {
            continue;
        }
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let mut unique = slug.clone();
        let mut n = 1;
        while out.contains(&unique) {
            unique = format!("{slug}-{n}");
            n += 1;
        }
        out.push(unique);
    }
    out
}

/// The targets of the inline links and images of a Markdown text, outside code blocks.
fn link_targets(markdown: &str) -> Vec<String> {
    let mut out = vec![];
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let tail = &rest[at + 2..];
            let end = tail.find(')').unwrap_or(tail.len());
            out.push(tail[..end].trim().to_string());
            rest = &tail[end..];
        }
    }
    out
}

#[test]
fn every_markdown_link_stays_inside_and_arrives() {
    let root = root().canonicalize().unwrap();
    let mut bad = vec![];
    let mut checked = 0;
    for path in text_files().iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(path).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let dest = if file.is_empty() { path.clone() } else { path.parent().unwrap().join(file) };
            checked += 1;
            let Ok(dest) = dest.canonicalize() else {
                bad.push(format!("{}: `{target}` leads to no file", relative(path)));
                continue;
            };
            if !dest.starts_with(&root) {
                bad.push(format!("{}: `{target}` leads outside the repository", relative(path)));
                continue;
            }
            if !anchor.is_empty() && dest.extension().is_some_and(|e| e == "md") {
                let heads = anchors(&std::fs::read_to_string(&dest).unwrap());
                if !heads.iter().any(|h| h == anchor) {
                    bad.push(format!("{}: `{target}`: no heading with that anchor", relative(path)));
                }
            }
        }
    }
    assert!(checked >= 20, "the README and docs have their links ({checked})");
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn the_rules_document_is_in_the_repository_and_linked() {
    let rules = std::fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md, the rules of every game the engine plays");
    for section in ["Nine Men's Morris", "Notation", "standard", "lasker", "morabaraba", "twelve", "six", "five", "Published figures"] {
        assert!(rules.contains(section), "docs/rules.md covers {section}");
    }
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.contains("](docs/rules.md"), "the README links docs/rules.md");
}

#[test]
fn the_checks_catch_what_they_should() {
    let name = |n: &str| format!("{n}.md");
    let shared = "shared";
    assert_eq!(outside_references(&format!("see [the rules](../{shared}/{})", name("RULES"))).len(), 1);
    assert_eq!(outside_references(&format!("/// options of `{}`", name("VARIANTS"))).len(), 1);
    assert_eq!(outside_references(&format!("// figures of {shared}/{}", name("REFERENCES"))).len(), 1);
    assert_eq!(outside_references(&format!("see ../{shared}/notes")).len(), 1);
    assert!(outside_references("see docs/rules.md#notation, and docs/ultra.md").is_empty());
    assert!(outside_references(&format!("MY_{}", name("RULES"))).is_empty());
    assert_eq!(anchors("# A title\n## The `take=each` rule: one, two\n```\n# not a heading\n```\n## A title"), ["a-title", "the-takeeach-rule-one-two", "a-title-1"]);
    assert_eq!(link_targets("[a](b.md#c) and ![i](d.png)\n```\n[x](y)\n```"), ["b.md#c", "d.png"]);
}
