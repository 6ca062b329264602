//! Who writes a table directory at once: one process writing the whole directory
//! (`morris solve`, a copy), or any number of processes each solving units of it
//! (`morris solve --unit`), one process per unit.
//!
//! The locks are `flock`s on files in the directory: the kernel (or the shared
//! filesystem's lock manager) drops them when the process ends, even by SIGKILL, so a
//! killed worker never leaves a lock behind. Correctness does not rest on them: every
//! table is written to a fresh temporary file and renamed over its name
//! ([`write_atomic`](super::write_atomic)), and a unit's tables are the same bytes
//! whoever solves it, so two writers of one unit that the locks did not keep apart
//! leave one whole, right table. The locks keep them from doing the work twice, and
//! make it safe to remove a killed writer's temporary files.

use super::writer::is_temporary;
use super::TableError;
use std::fs::{self, File};
use std::io;
use std::path::Path;

/// The lock file of a directory: exclusive for a whole-directory writer, shared by
/// unit solvers.
pub const LOCK: &str = ".morris.lock";

/// The folder of per-unit lock files (`UNIT.lock`), inside the table directory.
pub const UNIT_LOCKS: &str = ".morris-units";

/// Takes the lock of `dir` for writing (`what` names the command in the message a
/// second process gets), held until the returned file is dropped or the process ends,
/// even by SIGKILL, and removes the temporary files an interrupted run left behind
/// ([`is_temporary`]: only those of morris's own file names): with the lock held, no
/// other run can be writing them.
///
/// Where the filesystem has no locks, the run goes on unlocked, and still removes the
/// temporary files: a second writer that the lock would have kept out then at worst
/// finds its own temporary file gone and fails with that error; no table is wrong.
pub fn lock_dir(dir: &Path, what: &str) -> Result<File, TableError> {
    let path = dir.join(LOCK);
    let io = |source| TableError::Io { path: path.clone(), source };
    let file = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            return Err(TableError::Io {
                path: path.clone(),
                source: io::Error::other(format!("another morris process is writing to this directory; wait for it to finish before {what}")),
            })
        }
        Err(fs::TryLockError::Error(e)) if no_locks(&e) => {}
        Err(fs::TryLockError::Error(e)) => return Err(io(e)),
    }
    remove_temporaries(dir, |_| true).map_err(io)?;
    Ok(file)
}

/// A lock a unit solver holds: `None` where the filesystem has no locks (see the
/// module documentation: the writes stay safe, only the cleanup is skipped).
pub type UnitLock = Option<File>;

/// Takes `dir`'s lock shared, as one of any number of unit solvers: refused while a
/// whole-directory writer holds it, which would remove the unit solvers' temporary
/// files as an interrupted run's.
pub fn lock_dir_shared(dir: &Path) -> Result<UnitLock, TableError> {
    let path = dir.join(LOCK);
    let io = |source| TableError::Io { path: path.clone(), source };
    let file = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
    match file.try_lock_shared() {
        Ok(()) => Ok(Some(file)),
        Err(fs::TryLockError::WouldBlock) => Err(TableError::Io {
            path: path.clone(),
            source: io::Error::other("another morris process is writing this whole directory (`morris solve` without --unit, or a copy); wait for it to finish"),
        }),
        Err(fs::TryLockError::Error(e)) if no_locks(&e) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(io(e)),
    }
}

/// Waits for the lock of unit `id` of `dir`, so that one process at a time solves it,
/// then removes the temporary files of its tables (`tables`, file names) that a
/// killed solver left: with both locks held, nobody else is writing them.
pub fn lock_unit(dir: &Path, id: &str, tables: &[String]) -> Result<UnitLock, TableError> {
    let folder = dir.join(UNIT_LOCKS);
    fs::create_dir_all(&folder).map_err(|source| TableError::Io { path: folder.clone(), source })?;
    let path = folder.join(format!("{id}.lock"));
    let io = |source| TableError::Io { path: path.clone(), source };
    let file = fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
    match file.lock() {
        Ok(()) => {
            remove_temporaries(dir, |stem| tables.iter().any(|t| t == stem)).map_err(io)?;
            Ok(Some(file))
        }
        Err(e) if no_locks(&e) => Ok(None),
        Err(e) => Err(io(e)),
    }
}

/// Whether a lock failed because the filesystem has none (NFS without a lock
/// manager, Lustre mounted without `flock`).
fn no_locks(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported || matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EOPNOTSUPP | libc::ENOLCK))
}

/// Removes the temporary files of `dir` ([`is_temporary`]) whose final name passes
/// `of`.
fn remove_temporaries(dir: &Path, of: impl Fn(&str) -> bool) -> io::Result<()> {
    for entry in fs::read_dir(dir)?.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let stem = name.rsplit_once(".tmp").map_or(name, |(stem, _)| stem);
        if is_temporary(name) && of(stem) {
            let _ = fs::remove_file(entry.path());
        }
    }
    Ok(())
}
