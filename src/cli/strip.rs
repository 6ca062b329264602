//! `morris strip`: results-only copies of the tables.

use morris::table::{TableError, TableFile};
use morris::Sector;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the full tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    db: PathBuf,
    /// Directory for the results-only copies (created if needed; must differ from --db).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.db.is_dir(), "no table directory at {}; run `morris solve` first", args.db.display());
    std::fs::create_dir_all(&args.out)?;
    anyhow::ensure!(
        std::fs::canonicalize(&args.db)? != std::fs::canonicalize(&args.out)?,
        "--out must differ from --db: stripping in place would lose the depths"
    );
    let mut sectors: Vec<Sector> = std::fs::read_dir(&args.db)?
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok())
        .collect();
    sectors.sort();
    anyhow::ensure!(!sectors.is_empty(), "no tables in {}", args.db.display());
    let (mut before, mut after) = (0u64, 0u64);
    for sector in &sectors {
        let t = TableFile::open(&morris::table::table_path(&args.db, *sector), *sector)?;
        before += t.file_size();
        after += t.strip_depths(&args.out).map_err(|e: TableError| anyhow::anyhow!(e))?;
    }
    out!("{} tables: {} bytes with depths, {} bytes results only, in {}", sectors.len(), before, after, args.out.display());
    Ok(ExitCode::SUCCESS)
}
