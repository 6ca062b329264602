//! The record a copying command (`morris strip`, `morris compact`) keeps in the
//! directory it writes, so that it never overwrites or deletes a file it did not write.
//!
//! A copy may only go into a new or empty directory, or into one that holds nothing
//! but the same command's earlier output from the same source set: the manifest names
//! the command and its options, the source set (a hash of its tables' identities) and
//! every file the copy may write. It is written before the first table, so the files
//! of an interrupted copy are its own and the rerun may replace them.

use super::{writer, TableError, TableFile};
use crate::position::sector::Sector;
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// The manifest's file name.
pub const MANIFEST: &str = ".morris-copy";

/// What a copying command is about to write, and from what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The command and its options, e.g. `strip` or `compact --wdl`.
    pub kind: String,
    /// A hash of the source set: every table's sector, rule set and content checksum.
    pub source: u64,
    /// The table files the copy writes, by name.
    pub files: BTreeSet<String>,
}

/// Why a copy refuses its output directory.
#[derive(Debug, thiserror::Error)]
pub enum OutDirError {
    /// The directory holds files the command did not write.
    #[error("{dir} holds files this command did not write ({}); use a new or empty directory", .names.join(", "))]
    Foreign {
        /// The directory.
        dir: String,
        /// Some of the files, at most 10.
        names: Vec<String>,
    },
    /// The directory holds another command's output or another source's.
    #[error("{dir} holds the output of `morris {found}` from {}; use a new or empty directory", if *.same_source { "the same tables" } else { "other tables" })]
    OtherCopy {
        /// The directory.
        dir: String,
        /// The command recorded there.
        found: String,
        /// Whether its source is this one.
        same_source: bool,
    },
    /// A table could not be read or written.
    #[error(transparent)]
    Table(#[from] TableError),
}

/// The hash of a source set, from its opened tables.
pub fn source_hash<'a>(tables: impl IntoIterator<Item = (&'a Sector, &'a TableFile)>) -> u64 {
    let mut h = Xxh3::new();
    for (s, t) in tables {
        h.update(s.to_string().as_bytes());
        h.update(&t.header.rules.fingerprint().to_le_bytes());
        h.update(&t.header.content_hash.to_le_bytes());
    }
    h.digest()
}

impl Manifest {
    fn to_text(&self) -> String {
        let mut s = format!("# written by morris before it copies tables here; do not edit\nkind {}\nsource {:016x}\n", self.kind, self.source);
        for f in &self.files {
            s.push_str(&format!("file {f}\n"));
        }
        s
    }

    fn parse(text: &str) -> Option<Manifest> {
        let mut m = Manifest { kind: String::new(), source: 0, files: BTreeSet::new() };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let (k, v) = line.split_once(' ')?;
            match k {
                "kind" => m.kind = v.to_string(),
                "source" => m.source = u64::from_str_radix(v, 16).ok()?,
                // Only a table's own name, inside the directory: a manifest that names
                // `../victim.txt` (or any path) is not one this build wrote, and is
                // refused rather than obeyed.
                "file" if v.ends_with(".mtb") && writer::is_own_name(v) => {
                    m.files.insert(v.to_string());
                }
                _ => return None,
            }
        }
        (!m.kind.is_empty()).then_some(m)
    }

    /// Reads the manifest of `dir`, if it has one.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, TableError> {
        let path = dir.join(MANIFEST);
        match fs::read_to_string(&path) {
            Ok(text) => Manifest::parse(&text).map(Some).ok_or_else(|| TableError::Corrupt { path, detail: "not a manifest this build can read".into() }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(TableError::Io { path, source }),
        }
    }

    /// Prepares `dir` for this copy: creates it, refuses it if it holds anything but
    /// this same copy's earlier output (before touching a file), takes its lock
    /// (removing the stale temporary files of morris's own names), removes the files of
    /// that earlier output this copy does not write, and writes the manifest. The
    /// returned lock is held while the copy runs.
    pub fn claim(&self, dir: &Path) -> Result<fs::File, OutDirError> {
        let io = |source| TableError::Io { path: dir.to_owned(), source };
        fs::create_dir_all(dir).map_err(io)?;
        let had_lock = dir.join(".morris.lock").exists();
        self.refuse_foreign(dir)?;
        let lock = super::lock::lock_dir(dir, "copying tables into it")?;
        // Checked again under the lock: another process may have written meanwhile.
        let earlier = match self.refuse_foreign(dir) {
            Ok(earlier) => earlier,
            Err(e) => {
                if !had_lock {
                    let _ = fs::remove_file(dir.join(".morris.lock"));
                }
                return Err(e);
            }
        };
        // Ours, from the earlier run: what this run does not write again goes. A kill
        // before the new manifest is written leaves the old one, which names them.
        if let Some(m) = &earlier {
            for name in m.files.difference(&self.files) {
                match fs::remove_file(dir.join(name)) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e).into()),
                    _ => {}
                }
            }
        }
        let text = self.to_text();
        writer::write_atomic(dir, MANIFEST, |f| f.write_all(text.as_bytes()))?;
        Ok(lock)
    }

    /// The earlier manifest of `dir`, if its copy is this one; an error if `dir` holds
    /// another copy, or any file that is neither that copy's (the manifest, the lock,
    /// a table it names, or a temporary file of one of those). Reads only.
    fn refuse_foreign(&self, dir: &Path) -> Result<Option<Manifest>, OutDirError> {
        let io = |source| TableError::Io { path: dir.to_owned(), source };
        let shown = dir.display().to_string();
        let earlier = Manifest::read(dir)?;
        if let Some(m) = &earlier {
            if m.kind != self.kind || m.source != self.source {
                return Err(OutDirError::OtherCopy { dir: shown, found: m.kind.clone(), same_source: m.source == self.source });
            }
        }
        let listed = |name: &str| name == MANIFEST || earlier.as_ref().is_some_and(|m| m.files.contains(name));
        let owned = |name: &str| {
            let temp_of = name.rsplit_once(".tmp").map(|(stem, _)| stem);
            name == ".morris.lock" || listed(name) || (writer::is_temporary(name) && temp_of.is_some_and(listed))
        };
        let mut foreign = Vec::new();
        for entry in fs::read_dir(dir).map_err(io)?.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !owned(&name) {
                foreign.push(name);
            }
        }
        if !foreign.is_empty() {
            foreign.sort();
            foreign.truncate(10);
            return Err(OutDirError::Foreign { dir: shown, names: foreign });
        }
        Ok(earlier)
    }
}
