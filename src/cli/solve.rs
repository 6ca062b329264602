//! `morris solve`.

use super::progress::Bars;
use morris::solve::generate::{self, Options, Report};
use morris::Rules;
use morris::Subspace;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory for the tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub(super) db: PathBuf,
    /// Solve every movement subspace with s + o <= N (6..=24; twice the rule set's
    /// stones is every one: 18 the standard game's 49, 24 Morabaraba's and Twelve's
    /// 100, 20 Lasker's). With no option at all, the default is 8 plus the small starts
    /// 3-3, 3-4, 4-3 and 4-4 (seconds, and enough for `morris serve` to open a playable
    /// board).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(6..=24))]
    max_stones: Option<u8>,
    /// The whole standard game: all 49 movement subspaces and the 449 placement sectors
    /// of the 9-9 start (same as --max-stones 18 --start 9-9).
    #[arg(long, conflicts_with_all = ["max_stones", "start"])]
    all: bool,
    /// Also solve every placement sector of the game where White places WK and Black BK
    /// stones (3 up to the rule set's stones each; 9-9 is the standard game; a start
    /// beyond the rule set's stones is refused), with the movement subspaces it
    /// needs. Several starts, comma-separated, are solved in one run.
    #[arg(long, value_name = "WK-BK", value_parser = super::draw::parse_stones, value_delimiter = ',')]
    start: Vec<(u8, u8)>,
    /// Solve only the unit holding subspace S-O (plus any missing dependency); refused
    /// when a side has more stones than the rule set gives.
    #[arg(long, value_name = "S-O")]
    only: Option<Subspace>,
    /// Also solve the draw classes (the ultra-strong solution, docs/ultra.md): which
    /// draw each drawn position heads for. Ranks the sectors of the starts from the
    /// tables' counts into DIR/sector-values.txt, then writes a class file (.mtc) beside
    /// each table of the starts; the strong tables are not changed.
    #[arg(long)]
    ultra: bool,
    /// With --ultra: rank the sectors by FILE (lines `S-O-SH-OH RANK`, for example the
    /// published table) instead of by the tables' counts.
    #[arg(long, value_name = "FILE", requires = "ultra")]
    sector_values: Option<PathBuf>,
    /// Solve exactly one unit of `morris plan` (its ID, such as 5-5, 3-4+4-3 or
    /// 4-4-2-1, or the name of any of its sectors) and nothing else: every table it
    /// reads must be in DIR, complete and of the same rules, or it is refused, naming
    /// the file. Several processes may solve different units in one directory at once,
    /// on one machine or over a shared filesystem; a second process on the same unit
    /// waits for the first and keeps its tables (docs/distributed.md).
    #[arg(long, value_name = "ID", conflicts_with_all = ["max_stones", "all", "start", "only", "ultra"])]
    unit: Option<String>,
    /// No progress bars or per-subspace lines; just the final summary.
    #[arg(long, short)]
    quiet: bool,
    /// For scripts: a JSON object on standard output for each table as it is written or
    /// found complete ("seconds" null), then one for the run (its "tables" count, the
    /// time and CPU seconds); progress bars, unless -q, stay on standard error.
    #[arg(long)]
    json: bool,
}

pub fn header() -> String {
    format!(
        "{:>9} {:>13} {:>13} {:>13} {:>13} {:>5} {:>5} {:>9} {:>12} {:>9} {:>9}",
        "sector", "positions", "wins", "draws", "losses", "maxW", "maxL", "time s", "pos/s", "bits/pos", "cpu s"
    )
}

/// A table's line for `--json`: what [`summary_line`] gives, by name.
pub fn json_line(r: &Report) -> serde_json::Value {
    serde_json::json!({
        "sector": r.sector.to_string(),
        "positions": r.stats.positions,
        "wins": r.stats.wins,
        "draws": r.stats.draws,
        "losses": r.stats.losses,
        "max_win": r.stats.max_win,
        "max_loss": r.stats.max_loss,
        "slots": r.slots,
        "seconds": r.seconds,
        "cpu_seconds": r.cpu_seconds,
        "file_bytes": r.file_bytes,
    })
}

/// The run's closing line: as text, or as one JSON object under `--json`.
#[allow(clippy::too_many_arguments)]
fn closing(args: &Args, rules: &Rules, unit: Option<&str>, reports: &[Report], positions: u64, solved: usize, secs: f64, cpu: f64) -> anyhow::Result<()> {
    if args.json {
        let v = serde_json::json!({
            "rules": rules.to_string(),
            "unit": unit,
            "tables": reports.len(),
            "solved": solved,
            "kept": reports.len() - solved,
            "positions": positions,
            "seconds": secs,
            "cpu_seconds": cpu,
            "db": args.db.display().to_string(),
        });
        out!("{v}");
        return Ok(());
    }
    let what = unit.map_or(String::new(), |u| format!("unit {u}: "));
    out!("{what}{} tables ({} solved now, {} kept), {} positions, {:.2} s wall, tables in {}", reports.len(), solved, reports.len() - solved, positions, secs, args.db.display());
    Ok(())
}

pub fn summary_line(r: &Report) -> String {
    let (time, rate) = match r.seconds {
        Some(s) => (format!("{s:.2}"), format!("{:.0}", r.slots as f64 / s.max(1e-9))),
        None => ("kept".to_string(), "-".to_string()),
    };
    // Last, so that readers of the earlier columns read them where they were.
    let cpu = r.cpu_seconds.map_or("-".to_string(), |c| format!("{c:.2}"));
    format!(
        "{:>9} {:>13} {:>13} {:>13} {:>13} {:>5} {:>5} {:>9} {:>12} {:>9.3} {:>9}",
        r.sector.to_string(),
        r.stats.positions,
        r.stats.wins,
        r.stats.draws,
        r.stats.losses,
        r.stats.max_win,
        r.stats.max_loss,
        time,
        rate,
        r.file_bytes as f64 * 8.0 / r.stats.positions.max(1) as f64,
        cpu
    )
}

/// Fewer malloc arenas for a solve: glibc gives each thread that allocates an arena of
/// its own, and what the solver's threads free there is not given back, which cost the
/// propagation's buffers 8 to 11 % more peak memory (`solve --max-stones 11`: 650 to
/// 672 MB against 604 to 615 MB; with two arenas 606 MB, the time unchanged). The hot
/// loops allocate seldom (their buffers are kept), so threads sharing arenas do not
/// wait on each other. The library leaves the process's allocator alone: this is the
/// command line's choice.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of glibc's allocator; any value is valid.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    limit_malloc_arenas();
    if let Some(id) = &args.unit {
        return run_unit(&args, id, rules);
    }
    let default_scope = !args.all && args.max_stones.is_none() && args.start.is_empty() && args.only.is_none();
    let default_scope_starts = vec![(3, 3), (3, 4), (4, 3), (4, 4)];
    let starts = match (args.all, default_scope) {
        (true, _) => vec![(rules.stones(), rules.stones())],
        (false, true) => default_scope_starts,
        (false, false) => args.start.clone(),
    };
    let max_stones = match (args.all, args.max_stones) {
        (true, _) => 2 * rules.stones(),
        (false, Some(n)) => n,
        (false, None) if !starts.is_empty() && !default_scope => 0,
        (false, None) => 8,
    };
    if args.ultra && starts.is_empty() {
        anyhow::bail!("--ultra classes the draws of a start: give --start WK-BK or --all");
    }
    let given = match &args.sector_values {
        Some(f) => {
            let text = std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("cannot read the sector values {}: {e}", f.display()))?;
            Some(morris::solve::ultra::SectorValues::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?)
        }
        None => None,
    };
    let opts = Options { dir: args.db.clone(), max_stones, only: args.only, starts: starts.clone(), rules: *rules };
    generate::within_rules(&opts)?;
    let mut bars = Bars::new(args.quiet);
    bars.json = args.json;
    if !args.quiet && !args.json {
        bars.println(&header());
    }
    let (start, cpu_start) = (Instant::now(), morris::cpu::process_seconds());
    let reports = generate::run(&opts, &bars);
    bars.finish();
    let reports = reports?;
    let classes = if args.ultra {
        let t = Instant::now();
        let bars = Bars::new(args.quiet);
        let quiet = args.quiet;
        let json = args.json;
        let mut line = |r: &morris::solve::ultra::run::ClassReport| {
            if json {
                let v = serde_json::json!({ "classes": r.sector.to_string(), "draws": r.draws, "file_bytes": r.file_bytes, "seconds": r.seconds });
                bars.print_out(&v.to_string());
            } else if !quiet {
                let time = r.seconds.map_or("kept".to_string(), |s| format!("{s:.2} s"));
                bars.println(&format!("{:>9} classes: {:>13} draws, {:>11} bytes, {time}", r.sector.to_string(), r.draws, r.file_bytes));
            }
        };
        let result = morris::solve::ultra::run::run_dir(&args.db, rules, &starts, given, &bars, &mut line);
        bars.finish();
        let (_, class_reports) = result?;
        Some((class_reports, t.elapsed().as_secs_f64()))
    } else {
        None
    };
    let (positions, solved) = report_tables(args.quiet && !args.json, &reports)?;
    let secs = start.elapsed().as_secs_f64();
    closing(&args, rules, None, &reports, positions, solved, secs, morris::cpu::process_seconds() - cpu_start)?;
    if let Some((cr, secs)) = classes.filter(|_| !args.json) {
        let bytes: u64 = cr.iter().map(|r| r.file_bytes).sum();
        let strong: u64 = reports.iter().map(|r| r.file_bytes).sum();
        out!(
            "draw classes: {} class files ({} solved now), {} bytes ({:.1} % of the tables' {} bytes), {:.2} s wall, sector values in {}",
            cr.len(),
            cr.iter().filter(|r| r.seconds.is_some()).count(),
            bytes,
            100.0 * bytes as f64 / strong.max(1) as f64,
            strong,
            secs,
            args.db.join(morris::solve::ultra::run::VALUES_FILE).display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the table of `reports` if the bars did not (`--quiet`), and returns the
/// positions and the tables solved now, for the summary line.
fn report_tables(quiet: bool, reports: &[morris::solve::generate::Report]) -> anyhow::Result<(u64, usize)> {
    if quiet {
        out!("{}", header());
        for r in reports {
            out!("{}", summary_line(r));
        }
    }
    let positions = reports.iter().map(|r| r.stats.positions).sum();
    Ok((positions, reports.iter().filter(|r| r.seconds.is_some()).count()))
}

/// `morris solve --unit ID`.
fn run_unit(args: &Args, id: &str, rules: &Rules) -> anyhow::Result<ExitCode> {
    let id = morris::solve::graph::UnitId::parse(id, rules)?;
    let mut bars = Bars::new(args.quiet);
    bars.json = args.json;
    if !args.quiet && !args.json {
        bars.println(&header());
    }
    let (start, cpu_start) = (Instant::now(), morris::cpu::process_seconds());
    let reports = morris::solve::alone::solve_alone(&args.db, rules, &id, &bars);
    bars.finish();
    let reports = reports?;
    let (positions, solved) = report_tables(args.quiet && !args.json, &reports)?;
    closing(args, rules, Some(&id.to_string()), &reports, positions, solved, start.elapsed().as_secs_f64(), morris::cpu::process_seconds() - cpu_start)?;
    Ok(ExitCode::SUCCESS)
}
