//! The `solve` pipeline: which units and sectors to solve, in which order, with which
//! tables in memory, and resuming from the files already written.
//!
//! Movement subspaces are solved first, unit by unit, by retrograde analysis; then the
//! placement sectors a start reaches, children first, by backward induction
//! (`placement::induction`). Each table is written atomically once solved, so a rerun
//! keeps every complete table and solves only what is missing or damaged.

use crate::position::sector::Sector;
use crate::position::subspace::{Subspace, Unit};
use crate::position::value::Deep;
use crate::solve::limits::Limits;
use crate::solve::progress::Progress;
use crate::solve::tables::SectorTables;
use crate::solve::unit::{solve_unit, DeepValues, SolvedSector};
use crate::table::stats::Stats;
use crate::table::{table_path, write_table_deep, TableError, TableFile};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What [`run`] solves, and where it writes the tables.
///
/// `morris solve --all` is `max_stones: 18, starts: vec![(9, 9)]`; the smallest useful
/// database, for tests and examples, is `max_stones: 0, starts: vec![(3, 3)]`: the 3-3
/// movement subspace and the placement sectors of the 3-stone game, solved in a
/// fraction of a second.
///
/// ```rust
/// use morris::solve::generate::{self, Options};
/// use morris::NoProgress;
///
/// let dir = tempfile::tempdir()?;
/// let opts = Options { dir: dir.path().to_owned(), max_stones: 6, only: None, starts: vec![], rules: morris::Rules::STANDARD };
/// let names: Vec<String> = generate::plan(&opts).iter().map(|u| u.to_string()).collect();
/// assert_eq!(names, ["3-3"]);
/// let reports = generate::run(&opts, &NoProgress)?;
/// assert_eq!(reports[0].sector.to_string(), "3-3");
/// assert!(dir.path().join("3-3.mtb").exists());
/// // A second run keeps the complete table: nothing is solved again.
/// assert_eq!(generate::run(&opts, &NoProgress)?[0].seconds, None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Options {
    /// The table directory, created if missing.
    pub dir: PathBuf,
    /// Largest `s + o` to solve (0 for none, beyond what `only` and `starts` need).
    pub max_stones: u8,
    /// Solve just the unit holding this subspace (and any missing dependency).
    pub only: Option<Subspace>,
    /// Also solve every placement sector of the games where White places `wk` and
    /// Black `bk` stones, for each `(wk, bk)`, and the movement subspaces they reach.
    pub starts: Vec<(u8, u8)>,
    /// The rule set: recorded in every table, and every table already in `dir` must
    /// have been made under it.
    pub rules: crate::Rules,
}

/// Bytes of decoded tables the placement pass keeps for later sectors, beyond the ones
/// the sector being solved needs. More only saves decoding them again from disk.
pub const KEEP_BYTES: usize = 6 << 30;

/// What happened to one subspace or sector.
#[derive(Clone, Debug)]
pub struct Report {
    /// The table's sector (a movement subspace has empty hands).
    pub sector: Sector,
    /// Counts and deepest values of its positions.
    pub stats: Stats,
    /// Index slots, holes included.
    pub slots: u64,
    /// Wall time of the unit the subspace was solved in; `None` if it was already on disk.
    pub seconds: Option<f64>,
    /// CPU seconds (all threads, user and system) over the same span: beside other work
    /// the wall time grows, this much less, so a long run's cost adds up from it.
    pub cpu_seconds: Option<f64>,
    /// Size of the table file.
    pub file_bytes: u64,
}

/// Receives the pipeline's events (the CLI draws progress bars from them).
/// Every method does nothing unless overridden.
pub trait Reporter: Progress {
    /// Movement unit `unit`, number `position` (from 0) of `count`, is next: solved or,
    /// if its tables are complete, only checked.
    fn unit_start(&self, _unit: Unit, _position: usize, _count: usize) {}
    /// Placement sector `sector`, number `position` (from 0) of `count`, is next.
    fn sector_start(&self, _sector: Sector, _position: usize, _count: usize) {}
    /// A table is on disk, written now or found complete.
    fn done(&self, _report: &Report) {}
}

impl Reporter for crate::solve::progress::NoProgress {}

/// The movement units to consider, in dependency order: those of `max_stones`, of
/// `only`, of the movement subspaces the starts reach, and every unit these depend on.
/// [`run`] skips the ones already on disk.
pub fn plan(opts: &Options) -> Vec<Unit> {
    let game = opts.rules.game();
    let all = Unit::all_in_order_up_to(opts.rules.stones());
    let mut roots: Vec<Unit> = match opts.only {
        None => all.iter().copied().filter(|u| u.total() <= opts.max_stones).collect(),
        Some(sub) => vec![sub.unit()],
    };
    if let Some(start) = start_sectors(opts) {
        roots.extend(start.iter().filter_map(|s| s.subspace()).map(|s| s.unit()));
    }
    let mut need: BTreeSet<Unit> = BTreeSet::new();
    while let Some(u) = roots.pop() {
        if need.insert(u) {
            roots.extend(u.dependencies(game).iter().map(|d| d.unit()));
        }
    }
    all.into_iter().filter(|u| need.contains(u)).collect()
}

/// Every sector the starts of `opts` reach, if it names any.
fn start_sectors(opts: &Options) -> Option<BTreeSet<Sector>> {
    let game = opts.rules.game();
    let sets: Vec<BTreeSet<Sector>> = opts.starts.iter().filter_map(|&(wk, bk)| Sector::start(wk, bk)).map(|s| Sector::reachable(s, game)).collect();
    (!sets.is_empty()).then(|| sets.into_iter().flatten().collect())
}

/// The placement sectors to solve, children first.
pub fn plan_sectors(opts: &Options) -> Result<Vec<Sector>, TableError> {
    Ok(plan_units(opts)?.into_iter().flatten().collect())
}

/// The placement sectors to solve in units, children first: one sector each, or
/// under Lasker rules a sector with its mirror where each side may move a stone.
pub fn plan_units(opts: &Options) -> Result<Vec<Vec<Sector>>, TableError> {
    match start_sectors(opts) {
        None => Ok(vec![]),
        Some(set) => Sector::solve_units(&set, opts.rules.game()).map_err(TableError::from),
    }
}

/// Opens and fully checks an existing table made under `rules`; `Ok(None)` if it is
/// absent.
pub fn existing(dir: &Path, rules: &crate::Rules, sub: impl Into<Sector>) -> Result<Option<TableFile>, TableError> {
    let sub: Sector = sub.into();
    match TableFile::open(&table_path(dir, sub), sub, rules) {
        Ok(t) => {
            t.read_all()?;
            Ok(Some(t))
        }
        Err(TableError::Missing { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The reports of the tables of `sectors` if every one is in `dir` and passes its
/// checks (and tells `reporter`); `None` if one is missing or damaged, so that the
/// unit is solved again. Every table is looked at: an error that solving again would
/// not mend (tables of other rules) is returned.
pub(crate) fn kept(dir: &Path, rules: &crate::Rules, sectors: &[Sector], reporter: &dyn Reporter) -> Result<Option<Vec<Report>>, TableError> {
    let mut present = Vec::new();
    for &sector in sectors {
        match existing(dir, rules, sector) {
            Ok(Some(t)) => present.push(Report { sector, stats: t.header.stats, slots: t.header.entries, seconds: None, cpu_seconds: None, file_bytes: t.file_size() }),
            Ok(None) => {}
            Err(e) if resolvable(&e) => {}
            Err(e) => return Err(e),
        }
    }
    if present.len() < sectors.len() {
        return Ok(None);
    }
    for r in &present {
        reporter.done(r);
    }
    Ok(Some(present))
}

/// Decoded tables of the sectors solved before, which the unit being solved reads.
pub(crate) struct Cache(pub(crate) HashMap<Sector, (Vec<u8>, Deep)>);

impl SectorTables for Cache {
    fn values(&self, sector: Sector) -> &[u8] {
        &self.0[&sector].0
    }
    fn deep(&self, sector: Sector) -> Option<&Deep> {
        Some(&self.0[&sector].1)
    }
}

/// The values and deep values of a table, every block checked.
pub(crate) fn read_with_deep(t: &TableFile) -> Result<(Vec<u8>, Deep), TableError> {
    Ok((t.read_all()?, t.deep().clone()))
}

/// Runs the pipeline. Complete, valid tables are kept; invalid ones are re-solved.
/// Returns a report per table, in the order solved, movement subspaces first.
///
/// Holds a lock file in `dir` for the whole run, so a second run on the same
/// directory fails at once rather than race this one. Memory and time grow quickly
/// with the stones: every subspace to `s + o = 8` takes seconds, the whole game about an
/// hour and a half and 8 GB of memory on two cores.
pub fn run(opts: &Options, reporter: &dyn Reporter) -> Result<Vec<Report>, TableError> {
    within_rules(opts)?;
    let game = opts.rules.game();
    std::fs::create_dir_all(&opts.dir).map_err(|source| TableError::Io { path: opts.dir.clone(), source })?;
    let _lock = crate::table::lock_dir(&opts.dir, "solving")?;
    crate::table::one_rule_set(&opts.dir, &opts.rules)?;
    let units = plan(opts);
    let mut cache = Cache(HashMap::new());
    let mut reports = Vec::new();
    for (pos, &unit) in units.iter().enumerate() {
        reporter.unit_start(unit, pos, units.len());
        if let Some(kept) = kept(&opts.dir, &opts.rules, &unit.sectors(), reporter)? {
            reports.extend(kept);
            continue;
        }
        for dep in unit.dependencies(game) {
            if let std::collections::hash_map::Entry::Vacant(e) = cache.0.entry(dep.into()) {
                let t = TableFile::open(&table_path(&opts.dir, dep), dep, &opts.rules)?;
                e.insert(read_with_deep(&t)?);
            }
        }
        for (r, values, deep) in solve_and_write(&opts.dir, &opts.rules, &unit.sectors(), &cache, reporter)? {
            cache.0.insert(r.sector, (values, deep));
            reports.push(r);
        }
        // Keep only what a later unit will read.
        let later: BTreeSet<Sector> = units[pos + 1..].iter().flat_map(|u| u.dependencies(game)).map(Sector::from).collect();
        cache.0.retain(|sector, _| later.contains(sector));
    }
    drop(cache);
    reports.extend(run_sectors(opts, reporter)?);
    Ok(reports)
}

/// Solves `unit` (its sectors as [`Sector::unit`] orders them) over the decoded tables
/// it reads and writes its tables: the one path of [`run`] and of a unit solved alone
/// ([`alone`](super::alone)), so that both write the same bytes. Returns each table's
/// report with its values, which a later unit may read.
pub(crate) fn solve_and_write(
    dir: &Path,
    rules: &crate::Rules,
    unit: &[Sector],
    tables: &dyn SectorTables,
    reporter: &dyn Reporter,
) -> Result<Vec<(Report, Vec<u8>, Deep)>, TableError> {
    let game = rules.game();
    let (start, cpu_start) = (Instant::now(), crate::cpu::process_seconds());
    let solved = solve_unit(game, unit, tables, reporter, DeepValues::Keep(Limits::TABLE)).expect("deep values are kept");
    let seconds = start.elapsed().as_secs_f64();
    let cpu_seconds = crate::cpu::process_seconds() - cpu_start;
    let mut out = Vec::new();
    for SolvedSector { sector, values, deep } in solved {
        let stats = Stats::of_deep(&sector.index(rules.board()), &values, Some(&deep));
        let file_bytes = write_table_deep(dir, rules, sector, &values, &deep, &stats)?;
        let r = Report { sector, stats, slots: values.len() as u64, seconds: Some(seconds), cpu_seconds: Some(cpu_seconds), file_bytes };
        reporter.done(&r);
        out.push((r, values, deep));
    }
    Ok(out)
}

/// Refuses a start or an `only` subspace with more stones a side than the rules give,
/// before anything is written ([`run`] checks it first): the plan would otherwise
/// solve a start of another game under these rules' name, or leave out a subspace they
/// never reach and end with nothing of what was asked.
pub fn within_rules(opts: &Options) -> Result<(), TableError> {
    let most = opts.rules.stones();
    let beyond = |asked: String| TableError::BeyondRules { asked, rules: opts.rules };
    if let Some(&(wk, bk)) = opts.starts.iter().find(|&&(wk, bk)| wk > most || bk > most) {
        return Err(beyond(format!("the start {wk}-{bk}")));
    }
    match opts.only {
        Some(sub) if sub.s > most || sub.o > most => Err(beyond(format!("the subspace {sub}"))),
        _ => Ok(()),
    }
}

/// Whether an existing table can be replaced by solving it again (it is damaged or
/// from another format), as opposed to an error the user must see (I/O, say).
pub(crate) fn resolvable(e: &TableError) -> bool {
    matches!(e, TableError::Corrupt { .. } | TableError::Truncated { .. } | TableError::BadMagic { .. } | TableError::Version { .. })
}

/// Solves the placement sectors of `opts.starts`, children first.
fn run_sectors(opts: &Options, reporter: &dyn Reporter) -> Result<Vec<Report>, TableError> {
    let units = plan_units(opts)?;
    let game = opts.rules.game();
    let count: usize = units.iter().map(|u| u.len()).sum();
    let mut cache = Cache(HashMap::new());
    let mut reports = Vec::new();
    let mut done = 0;
    for (pos, unit) in units.iter().enumerate() {
        for &sector in unit {
            reporter.sector_start(sector, done, count);
            done += 1;
        }
        if let Some(kept) = kept(&opts.dir, &opts.rules, unit, reporter)? {
            reports.extend(kept);
            continue;
        }
        let mut children: Vec<Sector> = unit.iter().flat_map(|x| x.children(game)).filter(|c| !unit.contains(c)).collect();
        children.sort();
        children.dedup();
        for &child in &children {
            if let std::collections::hash_map::Entry::Vacant(e) = cache.0.entry(child) {
                let t = TableFile::open(&table_path(&opts.dir, child), child, &opts.rules)?;
                e.insert(read_with_deep(&t)?);
            }
        }
        for (r, values, deep) in solve_and_write(&opts.dir, &opts.rules, unit, &cache, reporter)? {
            cache.0.insert(r.sector, (values, deep));
            reports.push(r);
        }
        // Keep what later units read, nearest use first, within the budget.
        let next_use = |s: &Sector| units[pos + 1..].iter().position(|later| later.iter().any(|x| x.children(game).contains(s)));
        cache.0.retain(|s, _| next_use(s).is_some());
        let mut kept: Vec<(usize, Sector, usize)> = cache.0.iter().map(|(s, v)| (next_use(s).unwrap_or(usize::MAX), *s, v.0.len())).collect();
        kept.sort();
        let mut bytes = 0;
        for (_, s, len) in kept {
            bytes += len;
            if bytes > KEEP_BYTES {
                cache.0.remove(&s);
            }
        }
    }
    Ok(reports)
}
