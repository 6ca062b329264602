//! The `solve` pipeline: which units to solve, in which order, with which tables in
//! memory, and resuming from the files already written.

use crate::index::SubspaceIndex;
use crate::solver::{solve_unit, Progress, Solved, Stats};
use crate::subspace::{Subspace, Unit};
use crate::table::{table_path, write_table, TableError, TableFile};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub struct Options {
    pub dir: PathBuf,
    /// Largest `s + o` to solve.
    pub max_stones: u8,
    /// Solve just the unit holding this subspace (and any missing dependency).
    pub only: Option<Subspace>,
}

/// What happened to one subspace.
#[derive(Clone, Debug)]
pub struct Report {
    pub sub: Subspace,
    pub stats: Stats,
    pub slots: u64,
    /// Wall time of the unit the subspace was solved in; `None` if it was already on disk.
    pub seconds: Option<f64>,
    pub file_bytes: u64,
}

/// Receives the pipeline's events (the CLI draws progress bars from them).
pub trait Reporter: Progress {
    fn unit_start(&self, _unit: Unit, _position: usize, _count: usize) {}
    fn done(&self, _report: &Report) {}
}

impl Reporter for crate::solver::NoProgress {}

/// The units to consider, in dependency order.
pub fn plan(opts: &Options) -> Vec<Unit> {
    let all = Unit::all_in_order();
    match opts.only {
        None => all.into_iter().filter(|u| u.total() <= opts.max_stones).collect(),
        Some(sub) => {
            let mut need: BTreeSet<Unit> = BTreeSet::new();
            let mut stack = vec![sub.unit()];
            while let Some(u) = stack.pop() {
                if need.insert(u) {
                    stack.extend(u.dependencies().iter().map(|d| d.unit()));
                }
            }
            all.into_iter().filter(|u| need.contains(u)).collect()
        }
    }
}

/// Opens and fully checks an existing table; `Ok(None)` if it is absent.
pub fn existing(dir: &Path, sub: Subspace) -> Result<Option<TableFile>, TableError> {
    match TableFile::open(&table_path(dir, sub), sub) {
        Ok(t) => {
            t.read_all()?;
            Ok(Some(t))
        }
        Err(TableError::Missing { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

struct Cache(HashMap<Subspace, Vec<u8>>);

impl Solved for Cache {
    fn values(&self, sub: Subspace) -> &[u8] {
        &self.0[&sub]
    }
}

/// Runs the pipeline. Complete, valid tables are kept; invalid ones are re-solved.
pub fn run(opts: &Options, reporter: &dyn Reporter) -> Result<Vec<Report>, TableError> {
    std::fs::create_dir_all(&opts.dir).map_err(|source| TableError::Io { path: opts.dir.clone(), source })?;
    let units = plan(opts);
    let mut cache = Cache(HashMap::new());
    let mut reports = Vec::new();
    for (pos, &unit) in units.iter().enumerate() {
        reporter.unit_start(unit, pos, units.len());
        let mut present = Vec::new();
        for sub in unit.members() {
            match existing(&opts.dir, sub) {
                Ok(Some(t)) => present.push((sub, t)),
                Ok(None) | Err(TableError::Corrupt { .. }) | Err(TableError::Truncated { .. }) | Err(TableError::BadMagic { .. }) | Err(TableError::Version { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        if present.len() == unit.members().len() {
            for (sub, t) in present {
                let r = Report { sub, stats: t.header.stats, slots: t.header.entries, seconds: None, file_bytes: t.file_size() };
                reporter.done(&r);
                reports.push(r);
            }
            continue;
        }
        for dep in unit.dependencies() {
            if !cache.0.contains_key(&dep) {
                let t = TableFile::open(&table_path(&opts.dir, dep), dep)?;
                cache.0.insert(dep, t.read_all()?);
            }
        }
        let start = Instant::now();
        let solved = solve_unit(unit, &cache, reporter);
        let seconds = start.elapsed().as_secs_f64();
        for (sub, values) in solved {
            let stats = Stats::of(&SubspaceIndex::new(sub), &values);
            let file_bytes = write_table(&opts.dir, sub, &values, &stats)?;
            let r = Report { sub, stats, slots: values.len() as u64, seconds: Some(seconds), file_bytes };
            reporter.done(&r);
            reports.push(r);
            cache.0.insert(sub, values);
        }
        // Keep only what a later unit will read.
        let later: BTreeSet<Subspace> = units[pos + 1..].iter().flat_map(|u| u.dependencies()).collect();
        cache.0.retain(|sub, _| later.contains(sub));
    }
    Ok(reports)
}
