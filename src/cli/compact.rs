//! `morris compact`: a smaller table set that leaves out the tables a one-ply search
//! over the others gives exactly (see `morris::table::compact`).

use morris::rules::Rules;
use morris::table::compact::omissible;
use morris::Sector;
use std::collections::BTreeMap;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(super) dirs: super::strip::Dirs,
    /// Results only: strip the depth planes too, and choose the tables to leave out by
    /// the size of their results rather than of the whole file.
    #[arg(long)]
    wdl: bool,
    /// Print the tables left out, one per line, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    let dirs = &args.dirs;
    let tables = dirs.tables(rules)?;
    // A compact set's left-out tables are derived from its kept ones; leaving out
    // more would leave positions that no one-ply read answers.
    if let Some((s, _)) = tables.iter().find(|(_, t)| t.header.compact) {
        anyhow::bail!("{} is already a compact set ({s}.mtb is marked as part of one); compact the full set it was made from", dirs.db.display());
    }
    let weights: BTreeMap<Sector, u64> = tables.iter().map(|(s, t)| (*s, if args.wdl { t.plane_bytes().0 } else { t.file_size() })).collect();
    let omitted = omissible(&weights, rules.game());
    if args.dry_run {
        for s in &omitted {
            out!("{s}");
        }
        // On standard error, so that standard output stays a list of sectors.
        let after: u64 = tables.iter().filter(|(s, _)| !omitted.contains(s)).map(|(_, t)| t.copy_len(args.wdl)).sum();
        eprintln!("{} tables kept, {} left out: {after} bytes would be written", tables.len() - omitted.len(), omitted.len());
        return Ok(ExitCode::SUCCESS);
    }
    let kept = tables.keys().copied().filter(|s| !omitted.contains(s));
    let kind = if args.wdl { "compact --wdl" } else { "compact" };
    let _lock = dirs.claim_out(kind, &tables, kept, "a compact set in place would lose tables")?;
    let (mut before, mut after) = (0u64, 0u64);
    for (sector, t) in &tables {
        before += weights[sector];
        if !omitted.contains(sector) {
            after += t.copy_to(&dirs.out, args.wdl, true)?;
        }
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
