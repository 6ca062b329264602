//! `morris match`.

use super::progress::Bars;
use morris::arena::{play_match, wilson, MatchOptions, Outcome, PlayerKind};
use morris::Progress;
use morris::{Rules, Tablebase};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Directory holding the tables of the start (with `solve --ultra` for `ultra`).
    #[arg(long, default_value = "databases", value_name = "DIR")]
    pub(super) db: PathBuf,
    /// White's player: strong, ultra, random or alphabeta:nodes=N.
    #[arg(long, value_name = "PLAYER")]
    white: PlayerKind,
    /// Black's player: strong, ultra, random or alphabeta:nodes=N.
    #[arg(long, value_name = "PLAYER")]
    black: PlayerKind,
    /// Games to play.
    #[arg(long, default_value_t = 100, value_name = "N")]
    games: u64,
    /// Seed of the match: the same seed plays the same games.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Stones each side places (default: the rule set's own, 9-9 in the standard game).
    #[arg(long, value_name = "WK-BK", value_parser = super::draw::parse_stones)]
    start: Option<(u8, u8)>,
    /// A game is drawn after this many plies in a row without a placement or capture
    /// (100: the 50-move rule of public game servers).
    #[arg(long, default_value_t = 100, value_name = "PLIES")]
    quiet_plies: u32,
    /// A game is drawn after this many plies in any case.
    #[arg(long, default_value_t = 1000, value_name = "PLIES")]
    max_plies: u32,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

pub fn run(args: Args, rules: &Rules) -> anyhow::Result<ExitCode> {
    let tb = Tablebase::with_rules(&args.db, *rules, morris::probe::CACHE_BLOCKS)?;
    let start = args.start.unwrap_or((rules.stones(), rules.stones()));
    let opts = MatchOptions { white: args.white, black: args.black, games: args.games, seed: args.seed, start, quiet_plies: args.quiet_plies, max_plies: args.max_plies };
    let bars = Bars::new(args.quiet || args.json);
    bars.begin(&format!("{} v {}", opts.white, opts.black), opts.games);
    let t = Instant::now();
    let games = play_match(&tb, &opts, &|_, _| bars.advance(1));
    bars.finish();
    let games = games?;
    let secs = t.elapsed().as_secs_f64();
    let count = |o: Outcome| games.iter().filter(|g| g.outcome == o).count() as u64;
    let (w, d, b) = (count(Outcome::WhiteWins), count(Outcome::Draw), count(Outcome::BlackWins));
    let n = games.len() as u64;
    let plies = games.iter().map(|g| g.plies as f64).sum::<f64>() / n.max(1) as f64;
    let (wl, wh) = wilson(w, n);
    let (bl, bh) = wilson(b, n);
    if args.json {
        out!(
            "{}",
            json!({
                "rules": rules.to_string(), "start": format!("{}-{}", start.0, start.1),
                "white": opts.white.to_string(), "black": opts.black.to_string(), "games": n, "seed": opts.seed,
                "white_wins": w, "draws": d, "black_wins": b,
                "white_win_rate": w as f64 / n.max(1) as f64, "white_win_ci95": [wl, wh],
                "black_win_rate": b as f64 / n.max(1) as f64, "black_win_ci95": [bl, bh],
                "average_plies": plies, "quiet_plies": opts.quiet_plies, "seconds": secs,
            })
        );
    } else {
        out!("{} (White) against {} (Black), {} games from {}-{} under `{rules}`, seed {}:", opts.white, opts.black, n, start.0, start.1, opts.seed);
        out!(
            "  White wins {w} ({:.1} %, 95 % CI {:.1}-{:.1} %), draws {d}, Black wins {b} ({:.1} %, 95 % CI {:.1}-{:.1} %)",
            100.0 * w as f64 / n.max(1) as f64,
            100.0 * wl,
            100.0 * wh,
            100.0 * b as f64 / n.max(1) as f64,
            100.0 * bl,
            100.0 * bh
        );
        out!("  average length {plies:.1} plies; {secs:.1} s");
    }
    Ok(ExitCode::SUCCESS)
}
