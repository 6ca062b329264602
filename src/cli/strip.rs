//! `morris strip`: results-only copies of the tables; and the directory pair that it
//! and `morris compact` copy between.

use morris::rules::Rules;
use morris::table::manifest::{source_hash, Manifest};
use morris::table::{table_path, TableFile};
use morris::Sector;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// A table directory to read and one to write copies into.
#[derive(clap::Args, Debug)]
pub struct Dirs {
    /// Directory holding the full tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub db: PathBuf,
    /// Directory for the copies: new, empty, or holding only this same command's
    /// earlier output from the same tables (created if needed).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

impl Dirs {
    /// The tables of `db`, opened (headers checked), in order; fails when there are none.
    pub fn tables(&self, rules: &Rules) -> anyhow::Result<BTreeMap<Sector, TableFile>> {
        anyhow::ensure!(self.db.is_dir(), "no table directory at {}; run `morris solve` first", self.db.display());
        let mut sectors: Vec<Sector> = std::fs::read_dir(&self.db)?.filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok()).collect();
        sectors.sort();
        anyhow::ensure!(!sectors.is_empty(), "no tables in {}", self.db.display());
        sectors.into_iter().map(|s| Ok((s, TableFile::open(&table_path(&self.db, s), s, rules)?))).collect()
    }

    /// Claims `out` for the copy `kind` of `tables` listing `files` (see
    /// [`Manifest::claim`]), refusing the directory being read: copying in place would
    /// lose what `why` says.
    pub fn claim_out(&self, kind: &str, tables: &BTreeMap<Sector, TableFile>, files: impl Iterator<Item = Sector>, why: &str) -> anyhow::Result<std::fs::File> {
        if self.out.exists() {
            anyhow::ensure!(std::fs::canonicalize(&self.db)? != std::fs::canonicalize(&self.out)?, "--out must differ from --db: {why}");
        }
        let manifest = Manifest { kind: kind.to_string(), source: source_hash(tables.iter()), files: files.map(|s| table_path("".as_ref(), s).display().to_string()).collect() };
        Ok(manifest.claim(&self.out)?)
    }
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(super) dirs: Dirs,
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    let dirs = args.dirs;
    let tables = dirs.tables(rules)?;
    let _lock = dirs.claim_out("strip", &tables, tables.keys().copied(), "stripping in place would lose the depths")?;
    let (mut before, mut after) = (0u64, 0u64);
    for t in tables.values() {
        before += t.file_size();
        after += t.copy_to(&dirs.out, true, false)?;
    }
    out!("{} tables: {} bytes with depths, {} bytes results only, in {}", tables.len(), before, after, dirs.out.display());
    Ok(ExitCode::SUCCESS)
}
