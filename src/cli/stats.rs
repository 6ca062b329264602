//! `morris stats`.

use morris::table::{table_path, TableError, TableFile};
use morris::Subspace;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    db: PathBuf,
    /// One JSON object per subspace and line, for scripts.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !args.db.is_dir() {
        anyhow::bail!("no table directory at {}; run `morris solve` first", args.db.display());
    }
    let mut found = 0;
    let mut totals = (0u64, 0u64, 0u64);
    if !args.json {
        out!("{:>5} {:>13} {:>13} {:>13} {:>13} {:>5} {:>5} {:>12} {:>9} {:>9}", "sub", "positions", "wins", "draws", "losses", "maxW", "maxL", "bytes", "bits/pos", "WLD bits");
    }
    for sub in Subspace::all() {
        let t = match TableFile::open(&table_path(&args.db, sub), sub) {
            Ok(t) => t,
            Err(TableError::Missing { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        found += 1;
        let s = t.header.stats;
        let bits = t.file_size() as f64 * 8.0 / s.positions.max(1) as f64;
        let (wld_bytes, depth_bytes) = t.plane_bytes();
        let wld_bits = wld_bytes as f64 * 8.0 / s.positions.max(1) as f64;
        totals.0 += s.positions;
        totals.1 += wld_bytes;
        totals.2 += t.file_size();
        if args.json {
            let obj = serde_json::json!({
                "subspace": sub.to_string(), "positions": s.positions, "wins": s.wins, "losses": s.losses,
                "draws": s.draws, "max_win": s.max_win, "max_loss": s.max_loss,
                "slots": t.header.entries, "checksum": format!("{:016x}", t.header.content_hash), "file_bytes": t.file_size(), "bits_per_position": bits,
                "wld_bytes": wld_bytes, "depth_bytes": depth_bytes, "wld_bits_per_position": wld_bits,
            });
            out!("{obj}");
        } else {
            out!("{:>5} {:>13} {:>13} {:>13} {:>13} {:>5} {:>5} {:>12} {:>9.3} {:>9.3}", sub.to_string(), s.positions, s.wins, s.draws, s.losses, s.max_win, s.max_loss, t.file_size(), bits, wld_bits);
        }
    }
    if found == 0 {
        anyhow::bail!("no tables in {}; run `morris solve` first", args.db.display());
    }
    if !args.json {
        let per = |b: u64| b as f64 * 8.0 / totals.0.max(1) as f64;
        out!("total: {} positions in {} tables, {} bytes: {:.3} bits per position (WLD plane alone {:.3})", totals.0, found, totals.2, per(totals.2), per(totals.1));
    }
    Ok(ExitCode::SUCCESS)
}
