//! `morris compact`: a smaller table set that leaves out the tables a one-ply search
//! over the others gives exactly (see `morris::compact`).

use morris::compact::omissible;
use morris::table::{table_path, TableFile};
use morris::Sector;
use std::collections::BTreeMap;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    dirs: super::strip::Dirs,
    /// Results only: strip the depth planes too, and choose the tables to leave out by
    /// the size of their results rather than of the whole file.
    #[arg(long)]
    wdl: bool,
    /// Print the tables left out, one per line, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dirs = &args.dirs;
    let mut tables = BTreeMap::new();
    for sector in dirs.sectors()? {
        tables.insert(sector, TableFile::open(&table_path(&dirs.db, sector), sector)?);
    }
    let weights: BTreeMap<Sector, u64> =
        tables.iter().map(|(s, t)| (*s, if args.wdl { t.plane_bytes().0 } else { t.file_size() })).collect();
    let omitted = omissible(&weights);
    if args.dry_run {
        for s in &omitted {
            out!("{s}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    dirs.create_out("a compact set in place would lose tables")?;
    let (mut before, mut after) = (0u64, 0u64);
    for (sector, t) in &tables {
        before += if args.wdl { t.plane_bytes().0 } else { t.file_size() };
        let stale = table_path(&dirs.out, *sector);
        if omitted.contains(sector) {
            // A table left over from an earlier copy would be read instead: remove it.
            if stale.exists() {
                std::fs::remove_file(&stale)?;
            }
            continue;
        }
        after += if args.wdl { t.strip_depths(&dirs.out)? } else { t.copy_to(&dirs.out)? };
    }
    out!(
        "{} tables kept, {} left out (read through one ply): {} bytes{} before, {} bytes in {}",
        tables.len() - omitted.len(),
        omitted.len(),
        before,
        if args.wdl { " of results" } else { "" },
        after,
        dirs.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
