//! `morris verify`.

use super::progress::Bars;
use morris::probe::Tablebase;
use morris::table::table_path;
use morris::verify::verify_sectors;
use morris::{Sector, Unit};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    db: PathBuf,
    /// Verify the movement tables with s + o <= N that are present (default: all present).
    #[arg(long, default_value_t = 18, value_name = "N")]
    max_stones: u8,
    /// Verify just this table: a movement subspace S-O or a placement sector S-O-SH-OH.
    #[arg(long, value_name = "SECTOR")]
    only: Option<Sector>,
    /// Skip the placement sectors (`S-O-SH-OH` files), verify movement tables only.
    #[arg(long)]
    movement_only: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let tb = Tablebase::open(&args.db)?;
    let subs: Vec<Sector> = match args.only {
        Some(s) => vec![s],
        None => {
            let mut all: Vec<Sector> = Unit::all_in_order()
                .into_iter()
                .flat_map(|u| u.members())
                .filter(|s| s.total() <= args.max_stones && table_path(&args.db, *s).exists())
                .map(Sector::from)
                .collect();
            if !args.movement_only {
                let mut placement: Vec<Sector> = std::fs::read_dir(&args.db)?
                    .filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok())
                    .filter(|s| !s.is_movement())
                    .collect();
                placement.sort_by_key(|x| (x.sh + x.oh, x.s + x.o, x.s, x.o, x.sh));
                all.extend(placement);
            }
            all
        }
    };
    anyhow::ensure!(!subs.is_empty(), "no tables to verify in {}; run `morris solve` first", args.db.display());
    let bars = Bars::new(false);
    let start = Instant::now();
    let outcome = verify_sectors(&tb, &subs, &bars);
    bars.finish();
    let outcome = outcome?;
    for m in &outcome.mismatches {
        out!("MISMATCH {} slot {}: {} stored {}, successors give {}", m.sector, m.slot, m.position, m.stored, m.expected);
    }
    let secs = start.elapsed().as_secs_f64();
    out!(
        "verified {} tables, {} positions in {:.1} s ({:.0} positions/s): {} mismatches",
        subs.len(),
        outcome.checked,
        secs,
        outcome.checked as f64 / secs.max(1e-9),
        outcome.mismatch_count
    );
    Ok(if outcome.mismatch_count > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
