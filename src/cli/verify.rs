//! `morris verify`.

use super::progress::Bars;
use morris::probe::Tablebase;
use morris::table::table_path;
use morris::verify::journal::{Journal, Record};
use morris::verify::{needs, results_only, verify_sectors_each, Outcome};
use morris::Rules;
use morris::{Grade, Sector, TableError, Unit, Value, Wdl};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub(super) db: PathBuf,
    /// Verify the movement tables with s + o <= N that are present (default: all present).
    #[arg(long, value_name = "N")]
    max_stones: Option<u8>,
    /// Verify just this table: a movement subspace S-O or a placement sector S-O-SH-OH.
    #[arg(long, value_name = "SECTOR")]
    only: Option<Sector>,
    /// Skip the placement sectors (`S-O-SH-OH` files), verify movement tables only.
    #[arg(long)]
    movement_only: bool,
    /// The whole standard game: all 49 movement subspaces and the 449 placement sectors
    /// of the 9-9 start, each of which must be present (same as --start 9-9 with every
    /// movement table).
    #[arg(long, conflicts_with_all = ["only", "start", "max_stones"])]
    all: bool,
    /// Verify every sector of the game where White places WK and Black BK stones, and
    /// the movement tables it reaches, all of which must be present. Comma-separated
    /// starts are verified in one run.
    #[arg(long, value_name = "WK-BK", value_parser = super::draw::parse_stones, value_delimiter = ',', conflicts_with = "only")]
    start: Vec<(u8, u8)>,
    /// Record each table that verifies in FILE, and skip the tables FILE records as
    /// verified with the same contents, theirs and their successors': a long run that
    /// is cut short resumes where it stopped. Skipped tables' blocks are not read again
    /// (`morris stats --check` reads them).
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// Print one JSON object (tables, positions, seconds, mismatches with examples,
    /// what the journal held), for scripts, instead of the report's lines.
    #[arg(long)]
    json: bool,
}

/// The sectors of the given starts (all movement subspaces too with `all`), movement
/// first, each placement sector after the sectors its moves lead into.
fn sectors_of_starts(rules: &Rules, starts: &[(u8, u8)], all: bool) -> anyhow::Result<Vec<Sector>> {
    let game = rules.game();
    let mut set = std::collections::BTreeSet::new();
    for &(wk, bk) in starts {
        let root = Sector::start(wk, bk).ok_or_else(|| anyhow::anyhow!("no start {wk}-{bk}"))?;
        set.extend(Sector::reachable(root, game));
    }
    let mut out: Vec<Sector> = Unit::all_in_order_up_to(rules.stones()).into_iter().flat_map(|u| u.members()).map(Sector::from).filter(|s| all || set.contains(s)).collect();
    out.extend(Sector::solve_units(&set, game).map_err(|e| anyhow::anyhow!(e))?.into_iter().flatten());
    Ok(out)
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    let tb = Tablebase::with_rules(&args.db, *rules, morris::probe::CACHE_BLOCKS)?;
    // A compact set leaves tables out on purpose: those are not missing.
    let compact = std::fs::read_dir(&args.db)?
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".mtb")?.parse::<Sector>().ok())
        .any(|s| tb.table(s).is_ok_and(|t| t.header.compact));
    let starts = if args.all { vec![(rules.stones(), rules.stones())] } else { args.start.clone() };
    let subs: Vec<Sector> = match args.only {
        Some(s) => vec![s],
        None if !starts.is_empty() => {
            let mut subs = sectors_of_starts(rules, &starts, args.all)?;
            if compact {
                subs.retain(|s| table_path(&args.db, *s).exists());
            }
            let missing: Vec<String> = subs.iter().filter(|s| !table_path(&args.db, **s).exists()).map(|s| s.to_string()).collect();
            anyhow::ensure!(
                missing.is_empty(),
                "{} of the {} tables to verify are missing from {}: {}{}; solve them with `morris solve --db {} {}`",
                missing.len(),
                subs.len(),
                args.db.display(),
                missing.iter().take(12).cloned().collect::<Vec<_>>().join(", "),
                if missing.len() > 12 { ", ..." } else { "" },
                args.db.display(),
                if args.all { "--all".to_string() } else { format!("--max-stones 18 --start {}", starts.iter().map(|(w, b)| format!("{w}-{b}")).collect::<Vec<_>>().join(",")) }
            );
            subs.into_iter().filter(|s| !args.movement_only || s.is_movement()).collect()
        }
        None => {
            let mut all: Vec<Sector> = Unit::all_in_order_up_to(rules.stones())
                .into_iter()
                .flat_map(|u| u.members())
                .filter(|s| args.max_stones.is_none_or(|n| s.total() <= n) && table_path(&args.db, *s).exists())
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
    // A table whose successors' tables are not all here (a compact set leaves some
    // out) can only have its blocks checked, not its values against its successors.
    let (subs, blocks_only): (Vec<Sector>, Vec<Sector>) = subs.into_iter().partition(|s| needs(*s, rules.game()).iter().all(|n| table_path(&args.db, *n).exists()));
    for s in &blocks_only {
        tb.table(*s)?.check()?;
    }
    // A table without depths (`morris strip`) can only have its results checked, and
    // then every table is checked by results.
    let results_only = results_only(&tb, &subs)?;
    let mut journal = args.journal.as_deref().map(Journal::open).transpose()?;
    // The tables to check, with their identities, and what the journal says of those
    // it skips.
    let (mut todo, mut skipped): (Vec<(Sector, u64)>, Vec<Record>) = (Vec::new(), Vec::new());
    for &s in &subs {
        match &journal {
            Some(j) => {
                let id = Journal::identity(&tb, s)?;
                match j.verified(s, id) {
                    Some(r) => skipped.push(r),
                    None => todo.push((s, id)),
                }
            }
            None => todo.push((s, 0)),
        }
    }
    let before = skipped.len();
    let before_positions: u64 = skipped.iter().map(|r| r.positions).sum();
    // An empty sum of floats is -0.0, which would print as "-0.0 s"; adding 0.0 makes it 0.0.
    let before_secs: f64 = skipped.iter().map(|r| r.seconds).sum::<f64>() + 0.0;
    let before_cpu: f64 = skipped.iter().map(|r| r.cpu_seconds).sum::<f64>() + 0.0;
    let ids: std::collections::HashMap<Sector, u64> = todo.iter().copied().collect();
    let todo: Vec<Sector> = todo.into_iter().map(|(s, _)| s).collect();
    let bars = Bars::new(false);
    let start = Instant::now();
    let (checked, mismatch_count, examples) = if results_only {
        mismatches(verify_sectors_each::<Wdl>(&tb, &todo, &bars, &mut record(&mut journal, &ids)), &bars, args.json)?
    } else {
        mismatches(verify_sectors_each::<Value>(&tb, &todo, &bars, &mut record(&mut journal, &ids)), &bars, args.json)?
    };
    let secs = start.elapsed().as_secs_f64();
    let mut report = serde_json::json!({
        "rules": rules.to_string(),
        "tables": todo.len(),
        "positions": checked,
        "seconds": secs,
        "mismatches": mismatch_count,
        "examples": examples,
        "results_only": results_only,
        "blocks_only": blocks_only.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        "journal": journal.as_ref().map(|j| serde_json::json!({
            "path": j.path().display().to_string(),
            "tables_before": before,
            "positions_before": before_positions,
            "seconds_before": before_secs,
            "cpu_seconds_before": before_cpu,
        })),
        "classes": null,
    });
    if !args.json {
        out!("verified {} tables, {} positions in {:.1} s ({:.0} positions/s): {} mismatches", todo.len(), checked, secs, checked as f64 / secs.max(1e-9), mismatch_count);
    }
    if let Some(j) = journal.as_ref().filter(|_| !args.json && before > 0) {
        out!(
            "{} more tables, {} positions, verified before with the same contents in {:.1} s ({:.1} CPU seconds), as {} records",
            before,
            before_positions,
            before_secs,
            before_cpu,
            j.path().display()
        );
    }
    if results_only && !args.json {
        out!("results only: win, draw and loss were checked against the successors; these tables hold no depths to check");
    }
    if !blocks_only.is_empty() && !args.json {
        out!(
            "{} more tables had their blocks checked but not their values, as a table their moves lead into is not here (a compact set leaves it out): {}{}",
            blocks_only.len(),
            blocks_only.iter().take(12).map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
            if blocks_only.len() > 12 { ", ..." } else { "" }
        );
    }
    // Draw classes, where the directory has them (`solve --ultra`).
    let mut class_mismatches = 0;
    if args.db.join(morris::solve::ultra::run::VALUES_FILE).exists() && args.only.is_none() && !args.movement_only {
        let bars = Bars::new(false);
        let start = Instant::now();
        let classes = morris::solve::ultra::check::verify_dir(&args.db, rules, &bars);
        bars.finish();
        let classes = classes?;
        let secs = start.elapsed().as_secs_f64();
        if args.json {
            let examples: Vec<serde_json::Value> = classes
                .examples
                .iter()
                .map(|m| serde_json::json!({"sector": m.sector.to_string(), "slot": m.slot, "stored": {"class": m.stored.0, "depth": m.stored.1}, "expected": {"class": m.expected.0, "depth": m.expected.1}}))
                .collect();
            report["classes"] = serde_json::json!({"positions": classes.checked, "seconds": secs, "mismatches": classes.mismatches, "examples": examples});
        } else {
            for m in &classes.examples {
                out!(
                    "CLASS MISMATCH {} slot {}: stored class {} depth {}, one ply up gives class {} depth {}",
                    m.sector,
                    m.slot,
                    m.stored.0,
                    m.stored.1,
                    m.expected.0,
                    m.expected.1
                );
            }
            out!("verified the draw classes of {} drawn positions in {:.1} s: {} mismatches", classes.checked, secs, classes.mismatches);
        }
        class_mismatches = classes.mismatches;
    }
    if args.json {
        out!("{report}");
    }
    Ok(if mismatch_count > 0 || class_mismatches > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What records each table that verified with no mismatch in the journal, if there is one.
fn record<'a, V: Grade>(journal: &'a mut Option<Journal>, ids: &'a std::collections::HashMap<Sector, u64>) -> impl FnMut(Sector, &Outcome<V>) -> Result<(), TableError> + 'a {
    // Each table's time runs from the end of the one before: its tables' reading too.
    let (mut last, mut last_cpu) = (Instant::now(), morris::cpu::process_seconds());
    move |s, outcome| {
        let (now, now_cpu) = (Instant::now(), morris::cpu::process_seconds());
        let seconds = now.duration_since(std::mem::replace(&mut last, now)).as_secs_f64();
        let cpu_seconds = now_cpu - std::mem::replace(&mut last_cpu, now_cpu);
        match journal {
            Some(j) if outcome.mismatch_count == 0 => j.record(s, ids[&s], Record { positions: outcome.checked, seconds, cpu_seconds }),
            _ => Ok(()),
        }
    }
}

/// Prints the disagreements a check found, once its progress bars are gone (or, for
/// `json`, returns them as objects); returns the positions checked and the
/// disagreements counted.
fn mismatches<V: Grade>(outcome: Result<Outcome<V>, TableError>, bars: &Bars, json: bool) -> anyhow::Result<(u64, u64, Vec<serde_json::Value>)> {
    bars.finish();
    let outcome = outcome?;
    let mut examples = Vec::new();
    for m in &outcome.mismatches {
        if json {
            examples.push(
                serde_json::json!({"sector": m.sector.to_string(), "slot": m.slot, "position": m.position, "stored": m.stored.to_string(), "expected": m.expected.to_string()}),
            );
        } else {
            out!("MISMATCH {} slot {}: {} stored {}, successors give {}", m.sector, m.slot, m.position, m.stored, m.expected);
        }
    }
    Ok((outcome.checked, outcome.mismatch_count, examples))
}
