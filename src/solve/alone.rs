//! One unit of the graph solved on its own (`morris solve --unit`), by a worker among
//! many writing one shared directory: the unit's dependencies must be there already,
//! complete and of the same rules, and nothing else is solved.
//!
//! Workers on different units run at once (they share the directory's lock); two on
//! one unit take turns, and the second finds the tables written and keeps them. A
//! table is written under a temporary name and renamed, so a worker killed mid-unit
//! leaves at most a temporary file, which no reader takes for a table and the unit's
//! next worker removes.

use crate::solve::generate::{kept, read_with_deep, solve_and_write, Cache, Report, Reporter};
use crate::solve::graph::UnitId;
use crate::table::lock::{lock_dir_shared, lock_unit};
use crate::table::{one_rule_set, table_path, TableError, TableFile};
use std::collections::HashMap;
use std::path::Path;

/// Solves unit `id` into `dir` under `rules`, or keeps its tables if they are all
/// there and pass every check; returns a report per table (`seconds: None` for a
/// table kept). Refuses, before solving anything, a directory of other rules and a
/// unit whose dependencies are not all complete ([`TableError::Dependency`], naming
/// the file and the unit that writes it). Calling it again is harmless: it keeps
/// what the first call wrote.
pub fn solve_alone(dir: &Path, rules: &crate::Rules, id: &UnitId, reporter: &dyn Reporter) -> Result<Vec<Report>, TableError> {
    let game = rules.game();
    std::fs::create_dir_all(dir).map_err(|source| TableError::Io { path: dir.to_owned(), source })?;
    let _dir_lock = lock_dir_shared(dir)?;
    one_rule_set(dir, rules)?;
    let names: Vec<String> = id.sectors().iter().map(|&x| format!("{x}.mtb")).collect();
    let _unit_lock = lock_unit(dir, &id.to_string(), &names)?;
    if let Some(kept) = kept(dir, rules, id.sectors(), reporter)? {
        return Ok(kept);
    }
    let mut cache = Cache(HashMap::new());
    for sector in id.reads(game) {
        let dependency = |source| TableError::Dependency { unit: id.to_string(), writer: UnitId::of(sector, game).to_string(), source: Box::new(source) };
        let table = TableFile::open(&table_path(dir, sector), sector, rules).and_then(|t| read_with_deep(&t)).map_err(dependency)?;
        cache.0.insert(sector, table);
    }
    Ok(solve_and_write(dir, rules, id.sectors(), &cache, reporter)?.into_iter().map(|(r, _, _)| r).collect())
}
