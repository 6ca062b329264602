//! `morris stats`.

use morris::table::{table_path, Checked, TableError, TableFile};
use morris::Rules;
use morris::Sector;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub(super) db: PathBuf,
    /// One JSON object per table and line, for scripts (`subspace` is `S-O` for a
    /// movement subspace, `S-O-SH-OH` for a placement sector).
    #[arg(long)]
    json: bool,
    /// Also decode every table in full and check every block's checksum and the
    /// content checksum against the values (slower: reads all the data).
    #[arg(long)]
    check: bool,
    /// Also draw every table into FILE, an SVG: a bar of its win, draw and loss shares
    /// (from the header) and a histogram of its depths (decoded from the table, so this
    /// reads all the data). The figures are printed as usual, then one line naming FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "json")]
    plot: Option<PathBuf>,
    /// Also count the drawn positions by draw class (`solve --ultra`), each with the
    /// sector it heads for and its share of all draws, and the class files' size.
    #[arg(long)]
    classes: bool,
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    if !args.db.is_dir() {
        anyhow::bail!("no table directory at {}; run `morris solve` first", args.db.display());
    }
    let mut sectors: Vec<Sector> =
        std::fs::read_dir(&args.db)?.filter_map(|e| e.ok()).filter_map(|e| e.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok()).collect();
    sectors.sort_by_key(|x| (!x.is_movement(), x.sh + x.oh, x.s + x.o, x.s, x.o, x.sh));
    // Created first, so an unwritable plot file fails before any work.
    let plot = args.plot.as_deref().map(super::plot::Plot::create).transpose()?;
    let mut plotted = Vec::new();
    let mut found = 0;
    // Tables checked in full, and results-only tables checked plane by plane.
    let mut checks = (0usize, 0usize);
    // Positions, WLD bytes, file bytes: movement tables, then placement tables.
    let mut totals = [(0u64, 0u64, 0u64); 2];
    if !args.json {
        out!("{:>9} {:>13} {:>13} {:>13} {:>13} {:>5} {:>5} {:>12} {:>9} {:>9}", "sector", "positions", "wins", "draws", "losses", "maxW", "maxL", "bytes", "bits/pos", "WLD bits");
    }
    for sub in sectors {
        let t = match TableFile::open(&table_path(&args.db, sub), sub, rules) {
            Ok(t) => t,
            Err(TableError::Missing { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        found += 1;
        // Every plane against its hash; for a full table also the content checksum.
        let checked = if args.check { Some(t.check()?) } else { None };
        match checked {
            Some(Checked::Full) => checks.0 += 1,
            Some(Checked::ResultsOnly) => checks.1 += 1,
            None => {}
        }
        let s = t.header.stats;
        let bits = t.file_size() as f64 * 8.0 / s.positions.max(1) as f64;
        let (wld_bytes, depth_bytes) = t.plane_bytes();
        let wld_bits = wld_bytes as f64 * 8.0 / s.positions.max(1) as f64;
        let total = &mut totals[!sub.is_movement() as usize];
        total.0 += s.positions;
        total.1 += wld_bytes;
        total.2 += t.file_size();
        if args.json {
            let obj = serde_json::json!({
                "subspace": sub.to_string(), "positions": s.positions, "wins": s.wins, "losses": s.losses,
                "draws": s.draws, "max_win": s.max_win, "max_loss": s.max_loss,
                "slots": t.header.entries, "checksum": format!("{:016x}", t.header.content_hash), "file_bytes": t.file_size(), "bits_per_position": bits,
                "wld_bytes": wld_bytes, "depth_bytes": depth_bytes, "wld_bits_per_position": wld_bits,
                "rules": t.header.rules.to_string(), "results_only": t.header.results_only, "compact": t.header.compact,
                "checked": checked.map(|c| if c == Checked::Full { "full" } else { "results-only" }),
            });
            out!("{obj}");
        } else {
            out!(
                "{:>9} {:>13} {:>13} {:>13} {:>13} {:>5} {:>5} {:>12} {:>9.3} {:>9.3}",
                sub.to_string(),
                s.positions,
                s.wins,
                s.draws,
                s.losses,
                s.max_win,
                s.max_loss,
                t.file_size(),
                bits,
                wld_bits
            );
        }
        if plot.is_some() {
            plotted.push(t);
        }
    }
    if found == 0 {
        anyhow::bail!("no tables in {}; run `morris solve` first", args.db.display());
    }
    if !args.json {
        let all = (totals[0].0 + totals[1].0, totals[0].1 + totals[1].1, totals[0].2 + totals[1].2);
        for (name, t) in [("movement", totals[0]), ("placement", totals[1]), ("total", all)] {
            let per = |b: u64| b as f64 * 8.0 / t.0.max(1) as f64;
            out!("{name}: {} positions, {} bytes ({} in WLD planes): {:.3} bits per position (WLD plane alone {:.3})", t.0, t.2, t.1, per(t.2), per(t.1));
        }
    }
    if args.check && !args.json {
        out!(
            "checked: {} tables in full (every plane and the content checksum), {} results-only tables (every WLD plane; their content checksums need the depths they lack)",
            checks.0,
            checks.1
        );
    }
    if let Some(plot) = plot {
        let line = plot.finish(&args.db, &plotted)?;
        out!("{line}");
    }
    if args.classes {
        let (hist, bytes) = morris::solve::ultra::run::class_histogram(&args.db, rules)?;
        let values = morris::solve::ultra::SectorValues::parse(&std::fs::read_to_string(args.db.join(morris::solve::ultra::run::VALUES_FILE))?)?;
        let draws: u64 = hist.values().sum();
        let strong: u64 = std::fs::read_dir(&args.db)?
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".mtb")))
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum();
        let mut rows: Vec<(i16, u64)> = hist.into_iter().collect();
        rows.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
        let name = |c: i16| match values.sector_of_rank(c as i32) {
            Some(_) if c == 0 => "k-k".to_string(),
            Some(x) => x.to_string(),
            None => "?".to_string(),
        };
        if args.json {
            let list: Vec<serde_json::Value> =
                rows.iter().map(|&(c, n)| serde_json::json!({ "class": c, "sector": name(c), "draws": n, "share": n as f64 / draws.max(1) as f64 })).collect();
            out!("{}", serde_json::json!({ "classes": list, "draws": draws, "class_file_bytes": bytes, "table_bytes": strong }));
        } else {
            out!("draw classes: {draws} drawn positions; class files {bytes} bytes ({:.2} % of the tables' {strong})", 100.0 * bytes as f64 / strong.max(1) as f64);
            out!("{:>6} {:>9} {:>14} {:>8}", "class", "sector", "draws", "share");
            for (c, n) in rows {
                out!("{c:>6} {:>9} {n:>14} {:>7.2}%", name(c), 100.0 * n as f64 / draws.max(1) as f64);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
