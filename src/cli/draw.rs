//! `morris draw`: the value of the empty board with WK and BK stones to place.

use super::progress::Bars;
use morris::solve::placement::{search, Solution};
use morris::Rules;
use morris::{Color, Position, ProbeError, SearchOptions, Searcher, Subspace, TableError, Tablebase, Value};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the movement tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub(super) db: PathBuf,
    /// Stones each side places, White's first (Gévay & Danner's generalised starts);
    /// by default the rule set's own start (9-9 in the standard game, 6-6 in Six Men's Morris).
    #[arg(long, value_name = "WK-BK", value_parser = parse_stones)]
    stones: Option<(u8, u8)>,
    /// Transposition table size in MiB (default: by the number of stones, at most 1024).
    #[arg(long, value_name = "MIB", value_parser = parse_tt_mib)]
    tt_mib: Option<usize>,
    /// Print a JSON object as the last line.
    #[arg(long)]
    json: bool,
    /// Solve by alpha-beta search over the movement tables even when the placement
    /// tables (from `morris solve --start WK-BK` or `--all`) are there to read.
    #[arg(long)]
    search: bool,
}

/// A transposition table size in MiB: at least 1, and no more than the machine's memory.
fn parse_tt_mib(s: &str) -> Result<usize, String> {
    let mib: usize = s.parse().map_err(|_| format!("invalid size '{s}': expected a whole number of MiB, e.g. 1024"))?;
    let total = total_memory_mib();
    if mib == 0 {
        return Err("the transposition table needs at least 1 MiB".into());
    }
    if mib.checked_mul(1 << 20).is_none() || total.is_some_and(|t| mib > t) {
        return Err(format!("{mib} MiB is more than this machine's memory ({} MiB)", total.map_or("?".into(), |t| t.to_string())));
    }
    Ok(mib)
}

/// Total memory of the machine, from /proc (Linux), in MiB.
fn total_memory_mib() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: usize = info.lines().find(|l| l.starts_with("MemTotal:"))?.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

pub fn parse_stones(s: &str) -> Result<(u8, u8), String> {
    let sub: Subspace = s.parse().map_err(|_| format!("invalid stone counts '{s}': expected WK-BK with 3 <= WK, BK <= 9, e.g. 9-9"))?;
    Ok((sub.s, sub.o))
}

/// Peak resident memory of this process, from /proc (Linux), in MiB.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn value_json(v: Value) -> (serde_json::Value, serde_json::Value) {
    (json!(v.result_word()), v.plies().map_or(serde_json::Value::Null, |p| json!(p)))
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    let (wk, bk) = args.stones.unwrap_or((rules.stones(), rules.stones()));
    let tb = Tablebase::with_rules(&args.db, *rules, morris::probe::CACHE_BLOCKS)?;
    let root = Position::new(*rules, 0, 0, wk, bk, Color::White)?;
    let start = Instant::now();
    let from_tables = if args.search {
        None
    } else {
        match tb.probe(&root) {
            Ok(value) => Some(Solution { value, moves: tb.probe_moves(&root)?, nodes: 0 }),
            Err(ProbeError::Table(TableError::Missing { .. })) => None,
            Err(e) => return Err(e.into()),
        }
    };
    let used_tables = from_tables.is_some();
    let method = if used_tables { "read from the placement tables" } else { "alpha-beta search over the movement tables" };
    let solution = match from_tables {
        Some(s) => s,
        None => {
            let bars = Bars::new(args.json);
            let tt_bytes = args.tt_mib.map_or_else(|| search::table_bytes_for(&root), |m| m << 20);
            let searcher = Searcher::new(&tb, SearchOptions { tt_bytes, ..SearchOptions::default() });
            let solution = searcher.solve(&root, &bars);
            bars.finish();
            solution?
        }
    };
    let secs = start.elapsed().as_secs_f64();
    // Draw classes, where the tables were read and the directory has them.
    let ultra = if used_tables {
        match tb.probe_moves_ultra(&root) {
            Ok(m) => Some((tb.probe_class(&root)?, m)),
            Err(ProbeError::NoClasses { .. } | ProbeError::Unclassed(_)) => None,
            Err(e) => return Err(e.into()),
        }
    } else {
        None
    };
    let values = tb.sector_values().ok();
    let class_words = |c: i16| values.map(|v| morris::probe::ultra::class_words(v, c));
    let words = match (solution.value, &ultra) {
        (Value::Win(d), _) => format!("White wins in {}", super::plies(d)),
        (Value::Loss(d), _) => format!("White loses in {}", super::plies(d)),
        (Value::Draw, Some((Some(c), _))) => format!("a {}", class_words(c.class).unwrap_or_default()),
        (Value::Draw, _) => "a draw".to_string(),
    };
    // The moves in the ultra-strong order where there are classes, each draw with its words.
    let listed: Vec<(morris::Move, Value, Option<i16>)> = match &ultra {
        Some((_, list)) => list
            .iter()
            .map(|m| {
                (
                    m.mv,
                    m.value.strong(),
                    match m.value {
                        morris::probe::ultra::UltraValue::Draw(c) => Some(c.class),
                        _ => None,
                    },
                )
            })
            .collect(),
        None => solution.moves.iter().map(|m| (m.mv, m.value, None)).collect(),
    };
    if args.json {
        let moves: Vec<serde_json::Value> = listed
            .iter()
            .map(|&(mv, v, c)| {
                let (r, p) = value_json(v);
                let mut o = json!({ "move": root.move_name(&mv), "result": r, "plies": p });
                if let Some(c) = c {
                    o["class"] = json!({ "class": c, "words": class_words(c) });
                }
                o
            })
            .collect();
        let (r, p) = value_json(solution.value);
        let mut obj = json!({ "stones": format!("{wk}-{bk}"), "result": r, "plies": p, "moves": moves, "seconds": secs, "nodes": solution.nodes, "method": if used_tables { "tables" } else { "search" } });
        if let Some((Some(c), _)) = &ultra {
            obj["class"] = json!({ "class": c.class, "words": class_words(c.class) });
        }
        out!("{obj}");
    } else {
        out!("{wk} stones for White, {bk} for Black, empty board, White to move: {words}.");
        out!("\nfirst move   value for White");
        for &(mv, v, c) in &listed {
            match c.and_then(class_words) {
                Some(w) => out!("{:<12} {w}", root.move_name(&mv)),
                None => out!("{:<12} {v}", root.move_name(&mv)),
            }
        }
        out!("\n{method}: {} placement nodes searched in {:.3} s, peak memory {} MiB", solution.nodes, secs, peak_rss_mib().map_or("?".into(), |m| format!("{m:.0}")));
    }
    Ok(ExitCode::SUCCESS)
}
