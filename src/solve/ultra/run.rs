//! The class pass over a start: its sectors, their values, and the units in an order
//! where every unit's exits are classed before it.

use super::classes::{unit_classes, ClassTables, Classes, NO_CLASS};
use super::values::{SectorCounts, SectorValues};
use crate::position::sector::Sector;
use crate::position::subspace::Unit;
use crate::position::value::{Value, DRAW};
use crate::rules::game::Game;
use crate::table::stats::Stats;
use crate::table::TableError;
use std::collections::{BTreeSet, HashMap};

/// Every sector the starts reach by real moves, movement sectors and what their
/// captures lead to included: the sectors whose counts rank them (`docs/ultra.md`).
/// The edges are [`reached_children`], not the coarse [`Sector::children`], which
/// also lists captures no position of the sector can make (a first stone closing a
/// mill); such a sector would change the ranks of all the others.
pub fn sectors_of(game: &Game, starts: &[(u8, u8)]) -> BTreeSet<Sector> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<Sector> = starts.iter().filter_map(|&(w, b)| Sector::start(w, b)).collect();
    while let Some(x) = stack.pop() {
        if seen.insert(x) {
            stack.extend(reached_children(game, x));
        }
    }
    seen
}

/// The sectors into which some position of `x` (reached from a start or not) has a
/// move: the part of [`Sector::children`] that real moves reach. A spread sample
/// of the sector finds the common edges at once; only an edge still missing after it
/// costs a scan of the whole sector, and those are the small sectors where a mill
/// cannot close.
pub fn reached_children(game: &Game, x: Sector) -> BTreeSet<Sector> {
    use crate::solve::placement::{for_each_ply_move, Ply};
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let maybe: BTreeSet<Sector> = x.children(game).into_iter().collect();
    let index = x.index(game.rules().board());
    let ply = Ply { white_hand: x.sh, black_hand: x.oh, to_move: crate::position::Color::White };
    let found = std::sync::Mutex::new(BTreeSet::new());
    let done = AtomicBool::new(maybe.is_empty());
    let scan = |slots: &mut dyn Iterator<Item = u64>| {
        let mut here = BTreeSet::new();
        for i in slots {
            if index.may_be_hole(i) && index.is_hole(i) {
                continue;
            }
            let (mover, opp) = index.unindex(i);
            for_each_ply_move(game, ply, mover, opp, |mv, after, opp_after| {
                let placed = (mv.from == crate::rules::movegen::NONE) as u8;
                let child = Sector::new(opp_after.count_ones() as u8, after.count_ones() as u8, x.oh, x.sh - placed);
                here.extend(child.filter(|c| maybe.contains(c)));
            });
            if here.len() == maybe.len() {
                break;
            }
        }
        let mut f = found.lock().unwrap();
        f.extend(here);
        if f.len() == maybe.len() {
            done.store(true, Relaxed);
        }
    };
    let len = index.len();
    // A sample spread over the whole sector, then the whole sector in chunks.
    const SAMPLE: u64 = 1 << 12;
    let step = (len / SAMPLE).max(1);
    (0..16u64).into_par_iter().for_each(|g| {
        if !done.load(Relaxed) {
            scan(&mut (g..SAMPLE.min(len)).step_by(16).map(|k| k * step));
        }
    });
    const CHUNK: u64 = 1 << 16;
    (0..len.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
        if !done.load(Relaxed) {
            scan(&mut (c * CHUNK..((c + 1) * CHUNK).min(len)));
        }
    });
    found.into_inner().unwrap()
}

/// The units of `set` children first: movement units (a sector with its mirror), then
/// placement units, as the strong solver takes them.
pub fn units_of(game: &Game, set: &BTreeSet<Sector>) -> Result<Vec<Vec<Sector>>, TableError> {
    let mut units: Vec<Vec<Sector>> = Unit::all_in_order_up_to(game.rules().stones())
        .into_iter()
        .map(|u| u.members().into_iter().map(Sector::from).collect::<Vec<_>>())
        .filter(|m| m.iter().any(|x| set.contains(x)))
        .collect();
    units.extend(Sector::solve_units(set, game)?);
    Ok(units)
}

/// Counts from a table header's figures.
pub fn counts_of(stats: &Stats) -> SectorCounts {
    SectorCounts { wins: stats.wins, draws: stats.draws, losses: stats.losses }
}

/// Strong values and classes in memory.
#[derive(Default)]
pub struct InMemory {
    /// Strong value bytes by sector.
    pub values: HashMap<Sector, Vec<u8>>,
    /// Classes by sector.
    pub classes: HashMap<Sector, Classes>,
}

impl ClassTables for InMemory {
    fn values(&self, sector: Sector) -> Option<&[u8]> {
        self.values.get(&sector).map(|v| v.as_slice())
    }
    fn classes(&self, sector: Sector) -> Option<&[i16]> {
        Some(&self.classes.get(&sector)?.class)
    }
}

/// Classes every sector of `set`, whose strong values `tables.values` holds, in place.
/// For tests and small starts: everything stays in memory.
pub fn classes_in_memory(game: &Game, set: &BTreeSet<Sector>, values: &SectorValues, tables: &mut InMemory) -> Result<(), TableError> {
    for unit in units_of(game, set)? {
        let strong: Vec<&[u8]> = unit.iter().map(|x| tables.values[x].as_slice()).collect();
        let rank = |x: Sector| values.get(x).expect("every sector of the start is ranked") as i16;
        let out = unit_classes(game, &unit, &strong, &rank, tables);
        for (x, c) in unit.into_iter().zip(out) {
            tables.classes.insert(x, c);
        }
    }
    Ok(())
}

/// One position's class and depth, where the strong value is a draw.
pub fn class_at(classes: &Classes, slot: u64) -> Option<(i16, Option<u16>)> {
    let c = classes.class[slot as usize];
    (c != NO_CLASS).then(|| (c, (classes.depth[slot as usize] != 0).then_some(classes.depth[slot as usize])))
}

/// Whether a value byte is a draw.
pub fn is_draw(byte: u8) -> bool {
    byte == DRAW && Value::decode(byte) == Value::Draw
}

/// Why the class pass stopped.
#[derive(Debug, thiserror::Error)]
pub enum UltraError {
    /// A strong table or class file could not be read or written.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The sector values given cannot serve the start. The reason is in the message,
    /// and so not also the source (a printer of the chain would say it twice).
    #[error("sector values: {0}")]
    Values(super::values::SectorValuesError),
    /// A directory's sector values file is not valid.
    #[error("the sector values {} cannot be read: {reason}", path.display())]
    ValuesFile {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        reason: super::values::SectorValuesError,
    },
}

/// A directory's sector values, read and checked: an error names the file.
pub fn read_values(dir: &std::path::Path) -> Result<SectorValues, UltraError> {
    let path = dir.join(VALUES_FILE);
    let text = std::fs::read_to_string(&path).map_err(|source| TableError::Io { path: path.clone(), source })?;
    SectorValues::parse(&text).map_err(|reason| UltraError::ValuesFile { path, reason })
}

impl From<super::values::SectorValuesError> for UltraError {
    fn from(e: super::values::SectorValuesError) -> UltraError {
        UltraError::Values(e)
    }
}

/// One sector's class file, written now or found.
#[derive(Clone, Debug)]
pub struct ClassReport {
    /// The sector.
    pub sector: Sector,
    /// Its drawn positions (slots, as stored).
    pub draws: u64,
    /// Bytes of its class file.
    pub file_bytes: u64,
    /// Seconds its unit took; `None` if the file was already there.
    pub seconds: Option<f64>,
}

/// The name of the sector-values file beside the tables.
pub const VALUES_FILE: &str = "sector-values.txt";

/// Classes every sector the `starts` reach, whose strong tables `dir` holds, and writes
/// a class file beside each table and the sector values to [`VALUES_FILE`]. The values
/// are `given`, or ranked from the tables' counts. Class files already there for the
/// same strong tables and values are kept, so an interrupted run resumes.
pub fn run_dir(
    dir: &std::path::Path,
    rules: &crate::Rules,
    starts: &[(u8, u8)],
    given: Option<SectorValues>,
    progress: &dyn crate::solve::progress::Progress,
    done: &mut dyn FnMut(&ClassReport),
) -> Result<(SectorValues, Vec<ClassReport>), UltraError> {
    use crate::table::{table_path, TableFile};
    use crate::table::{write_classes, ClassFile};
    let game = rules.game();
    let set: BTreeSet<Sector> = sectors_of(game, starts);
    let open = |x: Sector| TableFile::open(&table_path(dir, x), x, rules);
    let mut strong: HashMap<Sector, TableFile> = HashMap::new();
    for &x in &set {
        let t = open(x)?;
        if !t.deep().is_empty() {
            return Err(TableError::DeepValues { path: t.path.clone(), reader: "the ultra-strong pass" }.into());
        }
        strong.insert(x, t);
    }
    let values = match given {
        Some(v) => {
            v.covers(set.iter().copied())?;
            v
        }
        None => SectorValues::from_counts(&set.iter().map(|&x| (x, counts_of(&strong[&x].header.stats))).collect()),
    };
    let fp = values.fingerprint();
    crate::table::write_atomic(dir, VALUES_FILE, |w| w.write_all(values.to_text().as_bytes()))?;
    let units = units_of(game, &set)?;
    let mut mem = InMemory::default();
    let mut reports = Vec::new();
    for (pos, unit) in units.iter().enumerate() {
        // A class file is kept only whole: every frame decodes against its table.
        let kept: Option<Vec<ClassFile>> = unit.iter().map(|x| ClassFile::open(dir, &strong[x], fp).ok().filter(|f| f.read_all(&strong[x]).is_ok())).collect();
        if let Some(files) = kept {
            for (x, f) in unit.iter().zip(files) {
                let r = ClassReport { sector: *x, draws: f.header.draws, file_bytes: f.file_size(), seconds: None };
                done(&r);
                reports.push(r);
            }
            continue;
        }
        // The unit's strong values, and the strong values and classes of its exits.
        let exits: BTreeSet<Sector> = unit.iter().flat_map(|x| x.children(game)).filter(|c| !unit.contains(c) && set.contains(c)).collect();
        for &x in unit.iter().chain(&exits) {
            if let std::collections::hash_map::Entry::Vacant(e) = mem.values.entry(x) {
                e.insert(strong[&x].read_all()?);
            }
        }
        for &x in &exits {
            if let std::collections::hash_map::Entry::Vacant(e) = mem.classes.entry(x) {
                let f = ClassFile::open(dir, &strong[&x], fp)?;
                e.insert(Classes { depth: Vec::new(), ..f.read_all(&strong[&x])? });
            }
        }
        let t = std::time::Instant::now();
        progress.begin(&format!("classes of {}", unit.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" + ")), 0);
        let strong_values: Vec<&[u8]> = unit.iter().map(|x| mem.values[x].as_slice()).collect();
        let rank = |x: Sector| values.get(x).expect("every sector of the start is ranked") as i16;
        let out = unit_classes(game, unit, &strong_values, &rank, &mem);
        let seconds = t.elapsed().as_secs_f64();
        for (x, c) in unit.iter().zip(out) {
            let bytes = write_classes(dir, &strong[x], &c, rank(*x), fp)?;
            let draws = mem.values[x].iter().filter(|&&b| b == DRAW).count() as u64;
            let r = ClassReport { sector: *x, draws, file_bytes: bytes, seconds: Some(seconds) };
            done(&r);
            reports.push(r);
            // Later units read only the classes of their exits, never their depths.
            mem.classes.insert(*x, Classes { class: c.class, depth: Vec::new() });
        }
        // Keep what later units leave into, nearest use first, within the budget.
        let next_use = |x: &Sector| units[pos + 1..].iter().position(|u| u.iter().any(|y| !u.contains(x) && y.children(game).contains(x)));
        mem.values.retain(|x, _| next_use(x).is_some());
        mem.classes.retain(|x, _| next_use(x).is_some());
        let mut kept: Vec<(usize, Sector, usize)> = mem.values.iter().map(|(x, v)| (next_use(x).unwrap_or(usize::MAX), *x, 3 * v.len())).collect();
        kept.sort();
        let mut bytes = 0;
        for (_, x, len) in kept {
            bytes += len;
            if bytes > crate::solve::generate::KEEP_BYTES {
                mem.values.remove(&x);
                mem.classes.remove(&x);
            }
        }
    }
    Ok((values, reports))
}

/// Drawn positions (up to symmetry: holes of the index skipped) by class, over every
/// class file of the directory's sector values, and the bytes of those files.
pub fn class_histogram(dir: &std::path::Path, rules: &crate::Rules) -> Result<(std::collections::BTreeMap<i16, u64>, u64), UltraError> {
    use crate::table::ClassFile;
    use crate::table::{table_path, TableFile};
    let values = read_values(dir)?;
    let mut hist = std::collections::BTreeMap::new();
    let mut bytes = 0;
    for (x, _) in values.iter() {
        let strong = TableFile::open(&table_path(dir, x), x, rules)?;
        let file = ClassFile::open(dir, &strong, values.fingerprint())?;
        bytes += file.file_size();
        let classes = file.read_all(&strong)?;
        let index = x.index(rules.board());
        for (i, &c) in classes.class.iter().enumerate() {
            if c != NO_CLASS && !(index.may_be_hole(i as u64) && index.is_hole(i as u64)) {
                *hist.entry(c).or_insert(0u64) += 1;
            }
        }
    }
    Ok((hist, bytes))
}
