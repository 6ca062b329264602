//! The tables of a directory as bytes, for tests that compare two directories' tables
//! byte for byte (a resumed or distributed solve against one plain solve).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// Every `.mtb` file of `dir`, by file name.
pub fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().to_str()?.to_string();
            name.ends_with(".mtb").then(|| (name, fs::read(e.path()).unwrap()))
        })
        .collect()
}
