//! `morris probe`.

use super::board::diagram;
use super::progress::Bars;
use morris::probe::ultra::{class_words, DrawClass, UltraValue};
use morris::NoProgress;
use morris::Rules;
use morris::{Color, Position, SearchOptions, Searcher, Tablebase, Value, Wdl};
use serde_json::json;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the tables.
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub(super) db: PathBuf,
    /// `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]` (quote it), or `-` to read one position per line from standard input.
    #[arg(value_name = "POSITION")]
    position: Option<String>,
    /// White's stones as a point list, e.g. d7,g7,g1 (instead of POSITION).
    #[arg(long, value_name = "POINTS", requires = "turn", conflicts_with = "position")]
    white: Option<String>,
    /// Black's stones as a point list, e.g. a4,d5,g4.
    #[arg(long, value_name = "POINTS", requires = "turn", conflicts_with = "position")]
    black: Option<String>,
    /// Side to move with --white/--black.
    #[arg(long, value_enum, value_name = "SIDE")]
    turn: Option<Side>,
    /// Print JSON: one object, or one line per input line with `-`.
    #[arg(long)]
    json: bool,
    /// With `-`: also list every move's value.
    #[arg(long)]
    moves: bool,
    /// Results only (win, draw or loss, no depths): reads only the WLD planes, so it
    /// works on tables stripped by `morris strip`. No search: the tables must exist.
    #[arg(long)]
    wdl: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Side {
    White,
    Black,
}

fn value_json(v: Value) -> (serde_json::Value, serde_json::Value) {
    (json!(v.result_word()), v.plies().map_or(serde_json::Value::Null, |p| json!(p)))
}

/// The draw classes of a position's moves, best first by the ultra-strong order, when
/// the directory has classes; `None` when it has none, none for the position's sector
/// (no classed play reaches it), or the position is searched.
fn ultra_moves(tb: &Tablebase, pos: &Position) -> anyhow::Result<Option<Vec<morris::MoveInfo<UltraValue>>>> {
    match tb.probe_moves_ultra(pos) {
        Ok(m) => Ok(Some(m)),
        Err(morris::ProbeError::NoClasses { .. } | morris::ProbeError::Unclassed(_)) => Ok(None),
        // A placement position without its tables is searched: no classes there.
        Err(morris::ProbeError::Table(morris::TableError::Missing { .. })) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// `class`: the class, the sector it heads for, the depth and the words.
fn class_json(tb: &Tablebase, c: &DrawClass) -> serde_json::Value {
    let values = tb.sector_values().ok();
    json!({
        "class": c.class,
        "sector": values.and_then(|v| v.sector_of_rank(c.class as i32)).map(|x| x.to_string()),
        "depth": c.depth,
        "words": values.map(|v| class_words(v, c.class)),
    })
}

fn probe_json(searcher: &Searcher, tb: &Tablebase, pos: &Position, with_moves: bool) -> anyhow::Result<serde_json::Value> {
    let start = Instant::now();
    let (v, moves) = if with_moves { searcher.evaluate(pos, &NoProgress)? } else { (searcher.value(pos, &NoProgress)?, vec![]) };
    let (result, plies) = value_json(v);
    let mut obj = json!({ "position": pos.to_string(), "result": result, "plies": plies });
    let ultra = if v == Value::Draw || with_moves { ultra_moves(tb, pos)? } else { None };
    if v == Value::Draw && ultra.is_some() {
        if let Some(c) = tb.probe_class(pos)? {
            obj["class"] = class_json(tb, &c);
        }
    }
    if with_moves {
        let moves: Vec<serde_json::Value> = match ultra {
            // Ordered as the ultra-strong player ranks them.
            Some(list) => list
                .into_iter()
                .map(|m| {
                    let (r, p) = value_json(m.value.strong());
                    let mut o = json!({ "move": pos.move_name(&m.mv), "result": r, "plies": p, "position": m.child.to_string() });
                    if let UltraValue::Draw(c) = m.value {
                        o["class"] = class_json(tb, &c);
                    }
                    o
                })
                .collect(),
            None => moves
                .into_iter()
                .map(|m| {
                    let (r, p) = value_json(m.value);
                    json!({ "move": pos.move_name(&m.mv), "result": r, "plies": p, "position": m.child.to_string() })
                })
                .collect(),
        };
        obj["moves"] = json!(moves);
    }
    obj["seconds"] = json!(start.elapsed().as_secs_f64());
    Ok(obj)
}

/// The `--wdl` answer: the position's result and, with `moves`, every move's.
fn wdl_json(tb: &Tablebase, pos: &Position, moves: bool) -> anyhow::Result<serde_json::Value> {
    let start = Instant::now();
    let mut obj = json!({ "position": pos.to_string(), "result": tb.probe_wdl(pos)?.to_string(), "plies": null });
    if moves {
        let list: Vec<serde_json::Value> = tb
            .probe_moves_wdl(pos)?
            .into_iter()
            .map(|m: morris::MoveInfo<Wdl>| json!({ "move": pos.move_name(&m.mv), "result": m.value.to_string(), "plies": null, "position": m.child.to_string() }))
            .collect();
        obj["moves"] = json!(list);
    }
    obj["seconds"] = json!(start.elapsed().as_secs_f64());
    Ok(obj)
}

fn in_words(pos: &Position, v: Value) -> String {
    let side = pos.to_move.name();
    match v {
        Value::Win(d) => format!("{side} to move wins in {}", super::plies(d)),
        Value::Loss(0) => format!("{side} to move has lost (no legal move or fewer than 3 stones)"),
        Value::Loss(d) => format!("{side} to move loses in {}", super::plies(d)),
        Value::Draw => format!("{side} to move: draw"),
    }
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    let tb = Tablebase::with_rules(&args.db, *rules, morris::probe::CACHE_BLOCKS)?;
    // The command line searches where a placement table is missing, on purpose.
    let searcher = Searcher::new(&tb, SearchOptions::default());
    if args.position.as_deref() == Some("-") {
        return run_lines(&tb, &searcher, &args);
    }
    let parsed = match (&args.position, &args.white, &args.black) {
        (Some(text), _, _) => Position::parse(text, *rules).map_err(anyhow::Error::from),
        (None, w, b) if w.is_some() || b.is_some() => {
            let turn = match args.turn.expect("clap requires --turn") {
                Side::White => Color::White,
                Side::Black => Color::Black,
            };
            Position::from_lists(*rules, w.as_deref().unwrap_or(""), b.as_deref().unwrap_or(""), turn, 0, 0).map_err(anyhow::Error::from)
        }
        _ => anyhow::bail!("give a POSITION (e.g. '.WW....B.B....B........W b'), `-` for standard input, or --white/--black/--turn"),
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        // Scripts get a JSON object for errors too, and the exit status says which.
        let result = parsed.and_then(|pos| if args.wdl { wdl_json(&tb, &pos, true) } else { probe_json(&searcher, &tb, &pos, true) });
        return match result {
            Ok(j) => {
                writeln!(out, "{j}")?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                let input = args.position.clone().unwrap_or_default();
                writeln!(out, "{}", json!({ "position": input, "error": super::message(&e) }))?;
                Ok(ExitCode::from(2))
            }
        };
    }
    let pos = parsed?;
    if args.wdl {
        let j = wdl_json(&tb, &pos, true)?;
        if args.json {
            writeln!(out, "{j}")?;
        } else {
            write!(out, "{}", diagram(&pos, rules))?;
            writeln!(out, "{pos}")?;
            writeln!(out, "{} to move: {} (results only).", pos.to_move.name(), j["result"].as_str().unwrap_or("?"))?;
            writeln!(out, "\n{:<12} result for {}", "move", pos.to_move.name())?;
            for m in j["moves"].as_array().into_iter().flatten() {
                writeln!(out, "{:<12} {}", m["move"].as_str().unwrap_or(""), m["result"].as_str().unwrap_or(""))?;
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    // A placement position near the start is a long search: show its progress.
    let bars = Bars::new(pos.is_movement());
    let (v, moves) = searcher.evaluate(&pos, &bars)?;
    bars.finish();
    write!(out, "{}", diagram(&pos, rules))?;
    writeln!(out, "{pos}")?;
    let ultra = ultra_moves(&tb, &pos)?;
    let class = match (&ultra, v) {
        (Some(_), Value::Draw) => tb.probe_class(&pos)?,
        _ => None,
    };
    match (class, tb.sector_values().ok()) {
        (Some(c), Some(values)) => writeln!(out, "{} to move: {}.", pos.to_move.name(), class_words(values, c.class))?,
        _ => writeln!(out, "{}.", in_words(&pos, v))?,
    }
    if !moves.is_empty() {
        writeln!(out, "\n{:<12} value for {}", "move", pos.to_move.name())?;
        match (ultra, tb.sector_values().ok()) {
            (Some(list), Some(values)) => {
                for m in list {
                    let words = match m.value {
                        UltraValue::Draw(c) => class_words(values, c.class),
                        other => other.strong().to_string(),
                    };
                    writeln!(out, "{:<12} {words}", pos.move_name(&m.mv))?;
                }
            }
            _ => {
                for m in moves {
                    writeln!(out, "{:<12} {}", pos.move_name(&m.mv), m.value)?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_lines(tb: &Tablebase, searcher: &Searcher, args: &Args) -> anyhow::Result<ExitCode> {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // Bad lines (exit 1) and failed reads of a table (exit 2: missing, corrupt).
    let (mut failed, mut table_errors) = (0u64, 0u64);
    for line in stdin.split(b'\n') {
        let line = line?;
        // A line that is not UTF-8 is a bad line like any other: report it, go on.
        let Ok(line) = String::from_utf8(line) else {
            failed += 1;
            if args.json {
                writeln!(out, "{}", json!({ "position": null, "error": "the line is not valid UTF-8" }))?;
            } else {
                writeln!(out, "error: the line is not valid UTF-8")?;
            }
            out.flush()?;
            continue;
        };
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let result = Position::parse(text, *tb.rules()).map_err(anyhow::Error::from).and_then(|pos| {
            if args.wdl {
                wdl_json(tb, &pos, args.moves).map(|j| if args.json { j.to_string() } else { format!("{pos}: {}", j["result"].as_str().unwrap_or("?")) })
            } else if args.json {
                probe_json(searcher, tb, &pos, args.moves).map(|j| j.to_string())
            } else {
                searcher.value(&pos, &NoProgress).map(|v| format!("{pos}: {v}")).map_err(Into::into)
            }
        });
        // One line out per line in, flushed, so that a program can converse with us.
        match result {
            Ok(s) => writeln!(out, "{s}")?,
            Err(e) => {
                failed += 1;
                if is_table_error(&e) {
                    table_errors += 1;
                }
                if args.json {
                    writeln!(out, "{}", json!({ "position": text, "error": super::message(&e) }))?;
                } else {
                    writeln!(out, "{text}: error: {}", super::message(&e))?;
                }
            }
        }
        out.flush()?;
    }
    out.flush()?;
    Ok(match (failed, table_errors) {
        (_, t) if t > 0 => ExitCode::from(2),
        (f, _) if f > 0 => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}

/// Whether a line failed on a table (missing, damaged, unreadable) rather than on its
/// input: the exit status tells scripts which.
fn is_table_error(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<morris::TableError>().is_some()
            || matches!(c.downcast_ref::<morris::ProbeError>(), Some(morris::ProbeError::Table(_) | morris::ProbeError::MissingTables { .. }))
    })
}
