//! `morris compact`: a smaller table set that leaves out the tables a one-ply search
//! over the others gives exactly (see `morris::compact`).

use morris::compact::omissible;
use morris::table::{table_path, TableFile};
use morris::Sector;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the full tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    db: PathBuf,
    /// Directory for the compact set (created if needed; must differ from --db).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Results only: strip the depth planes too, and choose the tables to leave out by
    /// the size of their results rather than of the whole file.
    #[arg(long)]
    wdl: bool,
    /// Print the tables left out, one per line, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.db.is_dir(), "no table directory at {}; run `morris solve` first", args.db.display());
    let mut tables = BTreeMap::new();
    for e in std::fs::read_dir(&args.db)? {
        let e = e?;
        let Some(sector) = e.file_name().to_str().and_then(|n| n.strip_suffix(".mtb")).and_then(|n| n.parse::<Sector>().ok()) else {
            continue;
        };
        tables.insert(sector, TableFile::open(&table_path(&args.db, sector), sector)?);
    }
    anyhow::ensure!(!tables.is_empty(), "no tables in {}", args.db.display());
    let weights: BTreeMap<Sector, u64> =
        tables.iter().map(|(s, t)| (*s, if args.wdl { t.plane_bytes().0 } else { t.file_size() })).collect();
    let omitted = omissible(&weights);
    if args.dry_run {
        for s in &omitted {
            out!("{s}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::create_dir_all(&args.out)?;
    anyhow::ensure!(
        std::fs::canonicalize(&args.db)? != std::fs::canonicalize(&args.out)?,
        "--out must differ from --db: a compact set in place would lose tables"
    );
    let (mut before, mut after) = (0u64, 0u64);
    for (sector, t) in &tables {
        before += if args.wdl { t.plane_bytes().0 } else { t.file_size() };
        let stale = table_path(&args.out, *sector);
        if omitted.contains(sector) {
            // A table left over from an earlier copy would be read instead: remove it.
            if stale.exists() {
                std::fs::remove_file(&stale)?;
            }
            continue;
        }
        after += if args.wdl { t.strip_depths(&args.out)? } else { t.copy_to(&args.out)? };
    }
    out!(
        "{} tables kept, {} left out (read through one ply): {} bytes{} before, {} bytes in {}",
        tables.len() - omitted.len(),
        omitted.len(),
        before,
        if args.wdl { " of results" } else { "" },
        after,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
