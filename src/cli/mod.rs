//! Command-line interface (binary only: the library stays free of clap and indicatif).

/// `println!` that returns an error instead of panicking (a closed pipe ends the run quietly).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

mod arena;
mod board;
mod compact;
mod draw;
mod plan;
mod plot;
mod probe;
mod progress;
mod serve;
mod solve;
mod stats;
mod strip;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "morris", version, about = "Strong solution of Nine Men's Morris: solve, probe and verify endgame tables")]
pub struct Cli {
    /// Worker threads (default: all cores).
    #[arg(long, global = true, value_name = "N")]
    threads: Option<usize>,
    /// The rule set: NAME[,OPTION=VALUE...], NAME one of standard, lasker, morabaraba,
    /// twelve, six, five, OPTION one of stones, flying, lasker, removal, take,
    /// full-board (docs/rules.md). Every table records the rules that made it, and
    /// tables of other rules are refused. The default directory of a rule set other
    /// than standard is databases/RULESET/.
    #[arg(long, global = true, value_name = "RULESET", default_value = "standard")]
    rules: morris::Rules,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Solve movement subspaces and placement sectors and write their tables.
    #[command(long_about = "Solve movement-phase subspaces s-o (s stones for the side to move, o for the \
opponent) by retrograde analysis, in dependency order, and write one table per subspace (S-O.mtb). \
With --start WK-BK, also solve every placement sector (stones on the board and in hand of each side, \
S-O-SH-OH.mtb) of the game where White places WK and Black BK stones, by backward induction, with \
the movement subspaces that game needs. --all is the whole standard game: all 49 movement subspaces \
and the 449 placement sectors of the 9-9 start. Complete and valid tables already in the directory \
are kept, so an interrupted run resumes. With no scope option, the default is the movement subspaces \
with s+o <= 8 and the small starts 3-3, 3-4, 4-3 and 4-4: seconds, and a board `morris serve` can play on.")]
    Solve(solve::Args),
    /// The graph of solve units, for a workflow engine or a cluster: one `morris solve
    /// --unit ID` a unit.
    #[command(long_about = "Prints the graph of solve units of --all, --start WK-BK or --max-stones N: each unit's ID \
(its sectors joined by +, as `morris solve --unit ID` takes it), its sectors, the units it depends on (which write \
the tables it reads), the files it reads and writes in --db, its index slots, and estimates of its peak memory and \
time from rates measured on a 2-core machine. Units come in an order that solves each after its dependencies. \
--json prints one object for scripts (workflow/Snakefile reads it). Tables already in --db must be of the same \
rules. See docs/distributed.md.")]
    Plan(plan::Args),
    /// Print the figures stored in the tables: positions, W/D/L, deepest values, size.
    Stats(stats::Args),
    /// The value of a position and of every move from it, read from the tables.
    #[command(
        long_about = "The value of a position for the side to move and the value of every legal move, best first, read from the tables. Positions use the notation `BOARD SIDE [WHITE_IN_HAND BLACK_IN_HAND]` (24 characters W, B or . in the order a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1), or point lists: --white d7,g7,g1 --black a4,d5,g4 --turn black. With `-`, positions are read one per line from standard input; a malformed line gives an error line and a non-zero exit at the end. Positions with stones in hand are read from their placement sector's table (from `morris solve --start WK-BK` or `--all`); where that table is missing they are solved by a placement search over the movement tables, which the process keeps in memory for the next ones."
    )]
    Probe(probe::Args),
    /// The value of the empty board (9-9 by default: a draw) and of each first move.
    #[command(
        long_about = "The value for White (who moves first) of the empty board, with its depth, and the value of each first move. Read from the placement tables when they exist (`morris solve --all`, or --start WK-BK), at once; otherwise, or with --search, solved exactly by alpha-beta search over the movement tables (a transposition table over the 16 symmetries, both cores; every rule set but Lasker, whose placement phase has cycles): the standard 9-9 game then takes about 2.5 minutes and 6 GB of memory. --stones WK-BK gives Gévay & Danner's generalised starts, where each side places WK and BK stones; the search needs the movement tables with s + o <= WK + BK."
    )]
    Draw(draw::Args),
    /// Check every stored value against the values of its successors (forward verification).
    Verify(verify::Args),
    /// Copy the tables without their depth planes: results only, a fraction of the size.
    #[command(
        long_about = "Writes a copy of every table of --db into --out without its depth planes: win, draw or loss only, for users who want results and not depths. Probe such a directory with `morris probe --wdl`. Each WLD plane keeps its zstd frame checksum."
    )]
    Strip(strip::Args),
    /// Copy the tables without those a one-ply search over the rest gives exactly.
    #[command(long_about = "Writes into --out a compact set: every table of --db except a set of tables whose \
positions' values a probe derives exactly from the tables kept, by reading every move's child (one ply). No \
two left-out tables are joined by a move, and a subspace s-s, which leads into itself, is always kept. The \
set left out is the heaviest such set found (by file size, or by size of the results with --wdl, which also \
strips the depth planes as `morris strip` does). Probes of a left-out table cost one read per move; \
`morris verify` needs the full set.")]
    Compact(compact::Args),
    /// Serve the tables over HTTP: a JSON API and a web board to analyse positions.
    #[command(long_about = "Serves the tables of --db over HTTP on --addr (loopback by default). The web board at / \
plays moves by clicking and shows every move's value; the JSON API is GET /api/probe?position=P (the value \
and every move's, best first), GET /api/mainline?position=P (the line of best moves to the end), GET /api/info \
and GET /health. Positions use the notation of `morris probe`. A placement position whose sector table is \
missing is searched over the movement tables, one search at a time, only from at most --max-search-hand \
stones in hand, and a request gets a 503 after --timeout seconds.")]
    Serve(serve::Args),
    /// Play games between two players and count the results (a perfect player against a
    /// fallible engine, say).
    #[command(long_about = "Plays --games games from the empty board between --white and --black and prints wins, draws, \
losses with 95 % confidence intervals, the average game length and the time. Players: `strong` (the perfect \
player of the tables, uniformly random among the moves of equal value, all draws alike), `ultra` (the same with \
draws ranked by their class: `morris solve --ultra`), `alphabeta:nodes=N` (a heuristic alpha-beta engine with \
iterative deepening to N nodes a move and random tie-breaks) and `random`. A game is drawn after --quiet-plies \
plies without a placement or capture (default 100, the 50-move rule of game servers), on the third repetition \
of a position, or at --max-plies. The match is seeded (--seed) and plays one game a thread: the same seed gives \
the same games on any number of threads.")]
    Match(arena::Args),
}

impl Command {
    /// The table directory the command reads (`--db`).
    fn db(&mut self) -> &mut std::path::PathBuf {
        match self {
            Command::Solve(a) => &mut a.db,
            Command::Plan(a) => &mut a.db,
            Command::Stats(a) => &mut a.db,
            Command::Probe(a) => &mut a.db,
            Command::Draw(a) => &mut a.db,
            Command::Verify(a) => &mut a.db,
            Command::Strip(a) => &mut a.dirs.db,
            Command::Compact(a) => &mut a.dirs.db,
            Command::Serve(a) => &mut a.db,
            Command::Match(a) => &mut a.db,
        }
    }
}

/// The default table directory of `rules`: `databases/` for the standard rules,
/// `databases/RULESET/` for others, so that no directory mixes rule sets.
pub fn default_db(rules: &morris::Rules) -> std::path::PathBuf {
    let base = std::path::PathBuf::from("databases");
    if *rules == morris::Rules::STANDARD {
        base
    } else {
        base.join(rules.to_string())
    }
}

/// The rule set of this run, for the advice on errors ([`advice`]), which names
/// commands under these rules.
static RULES: std::sync::OnceLock<morris::Rules> = std::sync::OnceLock::new();

/// The `morris solve` command that writes the table of `sector` under `rules`: the
/// movement subspaces' `--max-stones`, else `--all` when the rules' own game reaches
/// the sector, else the smallest start that does. Computed only when an error is
/// reported, so walking the sector graph costs nothing on any other path.
pub fn solve_hint(rules: &morris::Rules, sector: morris::Sector) -> String {
    use morris::Sector;
    let flag = if *rules == morris::Rules::STANDARD { String::new() } else { format!("--rules {rules} ") };
    let game = rules.game();
    match sector.subspace() {
        Some(sub) => format!("morris solve {flag}--max-stones {}", sub.total()),
        None if Sector::start(rules.stones(), rules.stones()).is_some_and(|st| Sector::reachable(st, game).contains(&sector)) => format!("morris solve {flag}--all"),
        None => {
            let starts = (3..=rules.stones()).flat_map(|w| (3..=rules.stones()).map(move |b| (w, b)));
            match starts.filter(|&(w, b)| Sector::start(w, b).is_some_and(|st| Sector::reachable(st, game).contains(&sector))).min_by_key(|&(w, b)| (w + b, w)) {
                Some((w, b)) => format!("morris solve {flag}--start {w}-{b}"),
                None => format!("morris solve {flag}--start WK-BK (no start reaches this sector)"),
            }
        }
    }
}

pub fn run() -> anyhow::Result<ExitCode> {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches)?;
    // `--db` left at its default follows the rule set.
    let db_defaulted =
        matches.subcommand().is_some_and(|(_, m)| m.try_get_raw("db").is_ok_and(|v| v.is_some()) && m.value_source("db") == Some(clap::parser::ValueSource::DefaultValue));
    if db_defaulted {
        *cli.command.db() = default_db(&cli.rules);
    }
    let rules = cli.rules;
    let _ = RULES.set(rules);
    if let Some(n) = cli.threads {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let most = (16 * cores).max(64);
        anyhow::ensure!((1..=most).contains(&n), "--threads must be between 1 and {most} (this machine has {cores} cores)");
        rayon::ThreadPoolBuilder::new().num_threads(n).build_global()?;
    }
    match cli.command {
        Command::Solve(args) => solve::run(args, &rules),
        Command::Plan(args) => plan::run(args, &rules),
        Command::Stats(args) => stats::run(args, &rules),
        Command::Probe(args) => probe::run(args, &rules),
        Command::Verify(args) => verify::run(args, &rules),
        Command::Draw(args) => draw::run(args, &rules),
        Command::Strip(args) => strip::run(args, &rules),
        Command::Compact(args) => compact::run(args, &rules),
        Command::Serve(args) => serve::run(args, &rules),
        Command::Match(args) => arena::run(args, &rules),
    }
}

/// What the user can do about an error, in the command line's terms: the library's
/// errors say what went wrong, and the command line says which command mends it.
pub fn advice(err: &anyhow::Error) -> Option<String> {
    use morris::probe::ProbeError;
    use morris::table::TableError;
    err.chain().find_map(|cause| {
        if let Some(ProbeError::MissingTables { subspaces }) = cause.downcast_ref::<ProbeError>() {
            let max = subspaces.iter().map(|s| s.total()).max().unwrap_or(6);
            return Some(format!("generate them with `morris solve --max-stones {max}` (and the same --db)"));
        }
        if let Some(ProbeError::NoDirectory(_)) = cause.downcast_ref::<ProbeError>() {
            return Some("run `morris solve` first, or give the directory with --db".to_string());
        }
        let bad_values = matches!(cause.downcast_ref::<ProbeError>(), Some(ProbeError::BadSectorValues { .. }))
            || matches!(cause.downcast_ref::<morris::solve::ultra::run::UltraError>(), Some(morris::solve::ultra::run::UltraError::ValuesFile { .. }));
        if bad_values {
            return Some(
                "solve the classes again with `morris solve --start WK-BK --ultra` (the same --db), which writes the file anew, or remove it to read the tables without classes"
                    .to_string(),
            );
        }
        let table = cause.downcast_ref::<TableError>().or_else(|| match cause.downcast_ref::<ProbeError>() {
            Some(ProbeError::Table(t)) => Some(t),
            _ => None,
        })?;
        Some(match table {
            TableError::Missing { path, sector } if path.extension().is_some_and(|e| e == "mtc") => {
                let rules = RULES.get().copied().unwrap_or(morris::Rules::STANDARD);
                let flag = if rules == morris::Rules::STANDARD { String::new() } else { format!("--rules {rules} ") };
                format!("generate the draw classes with `morris solve {flag}--start WK-BK --ultra` for a start whose game reaches {sector}")
            }
            TableError::Dependency { writer, .. } => {
                let rules = RULES.get().copied().unwrap_or(morris::Rules::STANDARD);
                let flag = if rules == morris::Rules::STANDARD { String::new() } else { format!("--rules {rules} ") };
                format!("solve the unit that writes it first: `morris solve {flag}--unit {writer}` (the same --db)")
            }
            TableError::Missing { sector, .. } => format!("generate it with `{}`", solve_hint(RULES.get().unwrap_or(&morris::Rules::STANDARD), *sector)),
            TableError::ResultsOnly { .. } => "probe it with `--wdl`, or use the full tables".to_string(),
            TableError::WrongRules { found, .. } => format!("use a directory of tables made under these rules, or read this one with `--rules {found}`"),
            TableError::Version { path, .. } | TableError::Corrupt { path, .. } | TableError::Truncated { path, .. } if path.extension().is_some_and(|e| e == "mtc") => {
                let rules = RULES.get().copied().unwrap_or(morris::Rules::STANDARD);
                let flag = if rules == morris::Rules::STANDARD { String::new() } else { format!("--rules {rules} ") };
                format!("classify again with `morris solve {flag}--start WK-BK --ultra` (the same --db): it writes class files that are damaged or of another version anew")
            }
            TableError::Version { .. } | TableError::Corrupt { .. } | TableError::Truncated { .. } => {
                "solve it again: `morris solve` replaces damaged tables and keeps the good ones".to_string()
            }
            _ => return None,
        })
    })
}

/// A depth in words: "1 ply", "23 plies".
pub fn plies(n: u16) -> String {
    if n == 1 {
        "1 ply".to_string()
    } else {
        format!("{n} plies")
    }
}

/// The error message with the advice, on one line: for JSON answers. Each cause is
/// added only when the text so far does not already say it (an error whose message
/// includes its source's would otherwise repeat it).
pub fn message(err: &anyhow::Error) -> String {
    let mut said = err.to_string();
    for cause in err.chain().skip(1) {
        let text = cause.to_string();
        if !said.contains(&text) {
            said = format!("{said}: {text}");
        }
    }
    match advice(err) {
        Some(a) => format!("{said}; {a}"),
        None => said,
    }
}

pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
