//! The record of a long verification (`verify --journal FILE`), so that one cut short
//! by a signal, a reboot or the end of a working day resumes instead of starting over:
//! a whole Lasker or Morabaraba game takes hours to check.
//!
//! Each line names a table that verified with no mismatch and the identity of what its
//! check read: the rules, and the content checksum of the table and of every table its
//! moves lead into. A rerun skips a table only while that identity is unchanged, so a
//! table solved again, or a successor replaced, is checked again. A skipped table's
//! blocks are not read again; `stats --check` checks them.
//!
//! Lines are appended and synced one by one. A line cut short by a crash, or any line
//! that does not parse, is ignored, so the worst a damaged journal costs is a table
//! checked twice, never a table taken as verified that was not.

use super::needs;
use crate::position::sector::Sector;
use crate::probe::Tablebase;
use crate::table::TableError;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::Xxh3;

const HEAD: &str = "# morris verify journal: SECTOR IDENTITY POSITIONS SECONDS CPU_SECONDS, one line per table verified with no mismatch";

/// What a journal line says of a table beside its identity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Record {
    /// Positions checked.
    pub positions: u64,
    /// Seconds its check took, reading its tables included: the legs of a resumed run
    /// add up to the whole run's time.
    pub seconds: f64,
    /// CPU seconds of the process (user and system) over the same span: less bent than
    /// wall time by other work on the machine, to compare with a solve's.
    pub cpu_seconds: f64,
}

/// An open journal: what it records, and the file new lines go to.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    done: HashMap<Sector, (u64, Record)>,
}

impl Journal {
    /// Opens or creates the journal at `path`.
    pub fn open(path: &Path) -> Result<Journal, TableError> {
        let io = |source| TableError::Io { path: path.to_path_buf(), source };
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
        };
        let mut done = HashMap::new();
        // Only whole lines count: the last one may have been cut short.
        for line in text.split_inclusive('\n').filter(|l| l.ends_with('\n') && !l.starts_with('#')) {
            let f = line.split_whitespace();
            let f: Vec<&str> = f.collect();
            if let [s, id, n, t, c] = f[..] {
                if let (Ok(s), Ok(id), Ok(positions), Ok(seconds), Ok(cpu_seconds)) =
                    (s.parse::<Sector>(), u64::from_str_radix(id, 16), n.parse::<u64>(), t.parse::<f64>(), c.parse::<f64>())
                {
                    done.insert(s, (id, Record { positions, seconds, cpu_seconds }));
                }
            }
        }
        let mut file = OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
        if text.is_empty() {
            writeln!(file, "{HEAD}").map_err(io)?;
        } else if !text.ends_with('\n') {
            // A line cut short: end it, so that the next one stands on its own.
            writeln!(file).map_err(io)?;
        }
        Ok(Journal { path: path.to_path_buf(), file, done })
    }

    /// What checking `sector` reads: the rules, and the content checksum of its table
    /// and of every table its moves lead into. Opens those tables' headers.
    pub fn identity(tb: &Tablebase, sector: Sector) -> Result<u64, TableError> {
        let mut h = Xxh3::new();
        h.update(&tb.rules().fingerprint().to_le_bytes());
        for s in needs(sector, tb.rules().game()) {
            let t = tb.table(s)?;
            h.update(s.to_string().as_bytes());
            h.update(&[u8::from(t.header.results_only)]);
            h.update(&t.header.content_hash.to_le_bytes());
        }
        Ok(h.digest())
    }

    /// What the journal records of `sector`, if it verified before with this `identity`.
    pub fn verified(&self, sector: Sector, identity: u64) -> Option<Record> {
        self.done.get(&sector).filter(|(id, _)| *id == identity).map(|&(_, r)| r)
    }

    /// Records that `sector` verified with no mismatch, durably before returning.
    pub fn record(&mut self, sector: Sector, identity: u64, r: Record) -> Result<(), TableError> {
        let io = |source| TableError::Io { path: self.path.clone(), source };
        writeln!(self.file, "{sector} {identity:016x} {} {:.3} {:.3}", r.positions, r.seconds, r.cpu_seconds).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.done.insert(sector, (identity, r));
        Ok(())
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(positions: u64) -> Record {
        Record { positions, seconds: positions as f64 / 8.0, cpu_seconds: positions as f64 / 4.0 }
    }

    #[test]
    fn a_cut_line_and_a_changed_identity_are_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal");
        let a: Sector = "3-3".parse().unwrap();
        let b: Sector = "4-3".parse().unwrap();
        let c: Sector = "4-4".parse().unwrap();
        {
            let mut j = Journal::open(&path).unwrap();
            j.record(a, 7, r(100)).unwrap();
            j.record(b, 8, r(200)).unwrap();
        }
        // A crash in the middle of the third line.
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"4-4 00000000000").unwrap();
        let mut j = Journal::open(&path).unwrap();
        assert_eq!(j.verified(a, 7), Some(r(100)));
        assert_eq!(j.verified(a, 8), None, "another identity is another table");
        assert_eq!(j.verified(b, 8), Some(r(200)));
        assert_eq!(j.verified(c, 0), None, "a cut line is ignored");
        j.record(c, 9, r(300)).unwrap();
        let j = Journal::open(&path).unwrap();
        assert_eq!(j.verified(c, 9), Some(r(300)), "the line after a cut one stands on its own");
        assert_eq!(j.verified(b, 8), Some(r(200)));
    }
}
