//! `morris strip`: results-only copies of the tables; and the directory pair that it
//! and `morris compact` copy between.

use morris::table::{TableError, TableFile};
use morris::Sector;
use std::path::PathBuf;
use std::process::ExitCode;

/// A table directory to read and one to write copies into.
#[derive(clap::Args, Debug)]
pub struct Dirs {
    /// Directory holding the full tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub db: PathBuf,
    /// Directory for the copies (created if needed; must differ from --db).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

impl Dirs {
    /// The sectors whose tables are in `db`, in order; fails when there are none.
    pub fn sectors(&self) -> anyhow::Result<Vec<Sector>> {
        anyhow::ensure!(self.db.is_dir(), "no table directory at {}; run `morris solve` first", self.db.display());
        let mut sectors: Vec<Sector> = std::fs::read_dir(&self.db)?
            .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok())
            .collect();
        sectors.sort();
        anyhow::ensure!(!sectors.is_empty(), "no tables in {}", self.db.display());
        Ok(sectors)
    }

    /// Creates `out`, refusing the directory being read: copying in place would lose
    /// what `why` says.
    pub fn create_out(&self, why: &str) -> anyhow::Result<()> {
        std::fs::create_dir_all(&self.out)?;
        anyhow::ensure!(std::fs::canonicalize(&self.db)? != std::fs::canonicalize(&self.out)?, "--out must differ from --db: {why}");
        Ok(())
    }
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    dirs: Dirs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dirs = args.dirs;
    let sectors = dirs.sectors()?;
    dirs.create_out("stripping in place would lose the depths")?;
    let (mut before, mut after) = (0u64, 0u64);
    for sector in &sectors {
        let t = TableFile::open(&morris::table::table_path(&dirs.db, *sector), *sector)?;
        before += t.file_size();
        after += t.strip_depths(&dirs.out).map_err(|e: TableError| anyhow::anyhow!(e))?;
    }
    out!("{} tables: {} bytes with depths, {} bytes results only, in {}", sectors.len(), before, after, dirs.out.display());
    Ok(ExitCode::SUCCESS)
}
