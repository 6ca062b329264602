//! The layers of `src/` (docs/design.md): a layer uses the layers below it, never
//! one above. Read from the source's own `crate::` paths, so a new import that runs
//! back up fails here, naming the file and the line.

use std::path::Path;

/// The layers from the bottom up; `cpu` serves every layer.
const ORDER: [&str; 8] = ["rules", "position", "table", "solve", "probe", "verify", "arena", "cli"];

fn layer_of(path: &Path) -> Option<usize> {
    let rel = path.strip_prefix("src").ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    ORDER.iter().position(|&l| l == name)
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn no_layer_uses_a_layer_above_it() {
    std::env::set_current_dir(env!("CARGO_MANIFEST_DIR")).unwrap();
    let mut files = vec![];
    walk(Path::new("src"), &mut files);
    let mut checked = 0;
    let mut wrong = vec![];
    for f in &files {
        let Some(own) = layer_of(f) else { continue };
        let text = std::fs::read_to_string(f).unwrap();
        // Tests inside a file may use anything.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("//") {
                continue;
            }
            for (at, _) in l.match_indices("crate::") {
                let rest = &l[at + "crate::".len()..];
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                checked += 1;
                if let Some(used) = ORDER.iter().position(|&x| x == name) {
                    if used > own {
                        wrong.push(format!("{}:{}: {} uses {}", f.display(), n + 1, ORDER[own], name));
                    }
                } else if own <= 2 && name.chars().next().is_some_and(|c| c.is_uppercase()) {
                    // The lowest layers name their imports by module, so that a
                    // re-export at the root cannot hide an import from above.
                    wrong.push(format!("{}:{}: {} uses the root item {name}", f.display(), n + 1, ORDER[own]));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} imports read: is the layout as docs/design.md says?");
    assert!(wrong.is_empty(), "imports that run back up:\n{}", wrong.join("\n"));
}
