//! The match harness: seeded games repeat exactly on any number of threads, perfect
//! players never lose, and the results add up.

use morris::arena::{play_match, wilson, MatchOptions, Outcome, PlayerKind};
use morris::rules::Rules;
use morris::solve::generate::{self, Options};
use morris::NoProgress;
use morris::Tablebase;

fn tables(start: (u8, u8)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::STANDARD;
    generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![start], rules }, &NoProgress).unwrap();
    morris::solve::ultra::run::run_dir(dir.path(), &rules, &[start], None, &NoProgress, &mut |_| {}).unwrap();
    dir
}

fn opts(white: &str, black: &str, games: u64, seed: u64) -> MatchOptions {
    MatchOptions { white: white.parse().unwrap(), black: black.parse().unwrap(), games, seed, start: (4, 4), quiet_plies: 100, max_plies: 1000 }
}

#[test]
fn players_parse_and_refuse_nonsense() {
    assert_eq!("alphabeta:nodes=100_000".parse::<PlayerKind>(), Ok(PlayerKind::AlphaBeta { nodes: 100_000 }));
    assert_eq!("ultra".parse::<PlayerKind>(), Ok(PlayerKind::Ultra));
    for bad in ["alphabeta", "alphabeta:nodes=0", "alphabeta:nodes=x", "perfect", ""] {
        assert!(bad.parse::<PlayerKind>().is_err(), "{bad}");
    }
    // Wilson: 0 of 10 still leaves room above 0; 50 of 100 is centred.
    let (lo, hi) = wilson(0, 10);
    assert!(lo == 0.0 && hi > 0.25 && hi < 0.35, "{hi}");
    let (lo, hi) = wilson(50, 100);
    assert!((lo + hi - 1.0).abs() < 1e-9 && (0.39..0.41).contains(&lo), "{lo} {hi}");
}

#[test]
fn seeded_matches_repeat_on_any_number_of_threads_and_perfect_players_never_lose() {
    let dir = tables((4, 4));
    let tb = Tablebase::open(dir.path()).unwrap();
    let run = |o: &MatchOptions, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| play_match(&tb, o, &|_, _| {}).unwrap())
    };
    let o = opts("ultra", "alphabeta:nodes=500", 24, 7);
    let one: Vec<_> = run(&o, 1).into_iter().map(|g| (g.outcome, g.plies)).collect();
    let two: Vec<_> = run(&o, 2).into_iter().map(|g| (g.outcome, g.plies)).collect();
    assert_eq!(one, two, "the same games on 1 and 2 threads");
    let other: Vec<_> = run(&opts("ultra", "alphabeta:nodes=500", 24, 8), 2).into_iter().map(|g| (g.outcome, g.plies)).collect();
    assert_ne!(one, other, "another seed, other games");
    // The 4-4 start is a draw: a perfect player never loses, as White or as Black,
    // against the engine or a random player, and beats the random player often (4-4 is
    // mostly draws, so a random player often holds out for the 100 quiet plies).
    for (w, b, perfect_white) in [("strong", "alphabeta:nodes=500", true), ("alphabeta:nodes=500", "ultra", false), ("ultra", "random", true), ("random", "strong", false)] {
        let games = run(&opts(w, b, 20, 3), 2);
        let lost = if perfect_white { Outcome::BlackWins } else { Outcome::WhiteWins };
        assert!(games.iter().all(|g| g.outcome != lost), "{w} v {b}: {games:?}");
        if w == "random" || b == "random" {
            let won = if perfect_white { Outcome::WhiteWins } else { Outcome::BlackWins };
            assert!(games.iter().filter(|g| g.outcome == won).count() >= 5, "{w} v {b}: {games:?}");
        }
    }
    // Two perfect players draw the drawn start every time.
    assert!(run(&opts("strong", "ultra", 10, 1), 2).iter().all(|g| g.outcome == Outcome::Draw));
}
