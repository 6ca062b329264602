//! The fast engine agrees with the plain family reference (tests/reference_family,
//! written from the rules alone (now docs/rules.md) by a separate author: raw positions, no
//! symmetry, forward value iteration) on every raw position of small movement
//! subspaces, value and depth alike, under every named rule set of the 24-point boards
//! and each rule option.
//!
//! `cargo test --release --test family_match -- --include-ignored` adds the larger
//! subspaces (3-4 and 4-3 under every rule set, 4-4 under some).

mod reference_family;

use morris::solve::generate::{self, Options};
use morris::solve::{solve_unit, DeepValues, SectorTables};
use morris::NoProgress;
use morris::{Rules, Sector, Subspace, Unit, Value};
use reference_family::{RefRules, RefValue, Solver};
use std::collections::HashMap;
use std::path::PathBuf;

/// The engine's tables of every subspace with `s + o <= max_total` under `rules`.
fn engine(rules: &Rules, max_total: u8) -> HashMap<Subspace, Vec<u8>> {
    let game = rules.game();
    let mut solved = HashMap::new();
    for unit in Unit::all_in_order_up_to(rules.stones()).into_iter().filter(|u| u.total() <= max_total) {
        for s in solve_unit(game, &unit.sectors(), &solved, &NoProgress, DeepValues::Refuse).unwrap() {
            solved.insert(s.sector.subspace().unwrap(), s.values);
        }
    }
    solved
}

/// Reading-order bits (the notation's order, the reference's) to the engine's points.
fn to_engine(rules: &Rules, mask: u32) -> u32 {
    let geo = rules.board().geometry();
    (0..geo.points()).filter(|i| mask >> i & 1 != 0).map(|i| 1u32 << geo.reading()[i]).sum()
}

fn compare(rule_set: &str, pairs: &[(u8, u8)]) {
    let rules: Rules = rule_set.parse().unwrap();
    let max_total = pairs.iter().map(|&(s, o)| s + o).max().unwrap();
    let tables = engine(&rules, max_total);
    let mut reference = Solver::new(&RefRules::parse(rule_set).unwrap());
    let (mut draws, mut checked) = (0u64, 0u64);
    for &(s, o) in pairs {
        let sub = Subspace::new(s, o).unwrap();
        let idx = morris::position::index::SubspaceIndex::new(rules.board(), sub.s, sub.o);
        let values = &tables[&sub];
        let sol = reference.solve_movement(s as u32, o as u32);
        let mut n = 0u64;
        for (p, rv) in sol.iter() {
            let (m, op) = (to_engine(&rules, p.mover), to_engine(&rules, p.opp));
            let got = Value::decode(values[idx.index(m, op) as usize]);
            let want = match rv {
                RefValue::Win(d) => Value::Win(d as u16),
                RefValue::Loss(d) => Value::Loss(d as u16),
                RefValue::Draw => Value::Draw,
            };
            assert_eq!(got, want, "{rule_set} {sub}: mover {:06x} opponent {:06x} (reading-order bits)", p.mover, p.opp);
            draws += (want == Value::Draw) as u64;
            n += 1;
        }
        assert!(n > 0, "{rule_set} {sub}: the reference gave no positions");
        checked += n;
        eprintln!("{rule_set} {sub}: {n} raw positions agree");
    }
    eprintln!("{rule_set}: {checked} raw positions, {draws} draws");
}

#[test]
fn standard_3_3() {
    compare("standard", &[(3, 3)]);
}

#[test]
fn morabaraba_3_3() {
    compare("morabaraba", &[(3, 3)]);
}

#[test]
fn twelve_3_3() {
    compare("twelve", &[(3, 3)]);
}

#[test]
fn lasker_3_3() {
    compare("lasker", &[(3, 3)]);
}

#[test]
fn removal_strict_3_3() {
    compare("standard,removal=strict", &[(3, 3)]);
}

#[test]
fn removal_lenient_3_3() {
    compare("standard,removal=lenient", &[(3, 3)]);
}

#[test]
fn take_each_3_3() {
    compare("standard,take=each", &[(3, 3)]);
}

#[test]
fn flying_none_3_3() {
    compare("standard,flying=none", &[(3, 3)]);
}

#[test]
fn morabaraba_take_each_strict_3_3() {
    compare("morabaraba,take=each,removal=strict", &[(3, 3)]);
}

/// Published (docs/rules.md): Morabaraba's 3-3 movement subspace has no draws at all. Counted by the
/// engine over the orbits of its own table, independently of the reference.
#[test]
fn morabaraba_3_3_has_no_draws() {
    let rules: Rules = "morabaraba".parse().unwrap();
    let tables = engine(&rules, 6);
    let sub = Subspace::new(3, 3).unwrap();
    let stats = morris::Stats::of(&morris::position::index::SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o), &tables[&sub]);
    assert_eq!(stats.positions, 169_626, "the orbit count of 3-3");
    assert_eq!(stats.draws, 0, "{stats:?}");
    assert!(stats.wins > 0 && stats.losses > 0);
    // The standard 3-3 has 269 drawn orbits (Gasser): the diagonals remove them all.
    let standard = engine(&Rules::STANDARD, 6);
    assert_eq!(morris::Stats::of(&morris::position::index::SubspaceIndex::new(morris::rules::Board::Nine, sub.s, sub.o), &standard[&sub]).draws, 269);
}

#[test]
#[ignore = "minutes: the reference solves 12 million raw positions per rule set"]
fn every_rule_set_3_4_and_4_3() {
    for rule_set in [
        "standard",
        "morabaraba",
        "twelve",
        "standard,removal=strict",
        "standard,removal=lenient",
        "standard,take=each",
        "standard,flying=none",
        "morabaraba,take=each,removal=strict",
    ] {
        compare(rule_set, &[(3, 4), (4, 3)]);
    }
}

/// The engine's tables of every sector of the `wk`-`bk` start under `rules` (and the
/// movement subspaces it reaches), solved in memory through the pipeline's plan.
fn engine_start(rules: &Rules, wk: u8, bk: u8) -> HashMap<Sector, Vec<u8>> {
    let game = rules.game();
    let opts = Options { dir: PathBuf::new(), max_stones: 0, only: None, starts: vec![(wk, bk)], rules: *rules };
    let mut movement: HashMap<Subspace, Vec<u8>> = HashMap::new();
    for unit in generate::plan(&opts) {
        for s in solve_unit(game, &unit.sectors(), &movement, &NoProgress, DeepValues::Refuse).unwrap() {
            movement.insert(s.sector.subspace().unwrap(), s.values);
        }
    }
    let mut all: HashMap<Sector, Vec<u8>> = movement.into_iter().map(|(s, v)| (s.into(), v)).collect();
    for unit in generate::plan_units(&opts).unwrap() {
        for s in solve_unit(game, &unit, &all, &NoProgress, DeepValues::Refuse).unwrap() {
            all.insert(s.sector, s.values);
        }
    }
    all
}

/// The engine's value of the empty board of the `wk`-`bk` start, for White.
fn start_value(rules: &Rules, tables: &HashMap<Sector, Vec<u8>>, wk: u8, bk: u8) -> Value {
    let start = Sector::start(wk, bk).unwrap();
    Value::decode(tables[&start][start.index(rules.board()).index(0, 0) as usize])
}

fn from_ref(rv: RefValue) -> Value {
    match rv {
        RefValue::Win(d) => Value::Win(d as u16),
        RefValue::Loss(d) => Value::Loss(d as u16),
        RefValue::Draw => Value::Draw,
    }
}

/// Every position the `wk`-`bk` start reaches, placement and movement alike: the
/// engine's tables equal the reference, value and depth.
fn compare_start(rule_set: &str, wk: u8, bk: u8) {
    let rules: Rules = rule_set.parse().unwrap();
    let tables = engine_start(&rules, wk, bk);
    let sol = reference_family::solve_start(&RefRules::parse(rule_set).unwrap(), wk as u32, bk as u32);
    let (mut n, mut placement) = (0u64, 0u64);
    for (p, rv) in sol.iter() {
        let sector = Sector { s: p.mover.count_ones() as u8, o: p.opp.count_ones() as u8, sh: p.mover_hand as u8, oh: p.opp_hand as u8 };
        let values = tables.get(&sector).unwrap_or_else(|| panic!("{rule_set} {wk}-{bk}: the engine has no table {sector}"));
        let got = Value::decode(values[sector.index(rules.board()).index(to_engine(&rules, p.mover), to_engine(&rules, p.opp)) as usize]);
        assert_eq!(got, from_ref(rv), "{rule_set} {wk}-{bk}: sector {sector}, mover {:06x} opponent {:06x} (reading-order bits)", p.mover, p.opp);
        n += 1;
        placement += !sector.is_movement() as u64;
    }
    assert!(placement > 0, "{rule_set} {wk}-{bk}: no placement position compared");
    assert_eq!(Some(start_value(&rules, &tables, wk, bk)), sol.start_value().map(from_ref));
    eprintln!("{rule_set} {wk}-{bk}: {n} reached raw positions agree ({placement} placement), start {}", start_value(&rules, &tables, wk, bk));
}

#[test]
fn start_3_3_morabaraba() {
    compare_start("morabaraba", 3, 3);
}

#[test]
fn start_3_3_twelve() {
    compare_start("twelve", 3, 3);
}

#[test]
fn start_3_3_removal_strict() {
    compare_start("standard,removal=strict", 3, 3);
}

#[test]
fn start_3_3_removal_lenient() {
    compare_start("standard,removal=lenient", 3, 3);
}

#[test]
fn start_3_3_take_each() {
    compare_start("standard,take=each", 3, 3);
}

#[test]
fn start_3_3_flying_none() {
    compare_start("standard,flying=none", 3, 3);
}

/// The whole of Six Men's Morris (6-6 on the 16-point board, nobody flies): every
/// position reached from the empty board equals the reference, value and depth.
#[test]
fn start_6_6_six() {
    compare_start("six", 6, 6);
}

/// The whole of Five Men's Morris.
#[test]
fn start_5_5_five() {
    compare_start("five", 5, 5);
}

#[test]
fn start_3_3_standard() {
    compare_start("standard", 3, 3);
}

/// Gévay & Danner, Table IV (docs/rules.md): the Morabaraba starts with wk, bk <= 5,
/// solved by the engine alone.
#[test]
fn morabaraba_table_iv() {
    let rules: Rules = "morabaraba".parse().unwrap();
    let published = [
        ((3, 3), Value::Win(9)),
        ((3, 4), Value::Draw),
        ((3, 5), Value::Loss(12)),
        ((4, 3), Value::Win(9)),
        ((4, 4), Value::Draw),
        ((4, 5), Value::Draw),
        ((5, 3), Value::Win(9)),
        ((5, 4), Value::Draw),
        ((5, 5), Value::Draw),
    ];
    for ((wk, bk), want) in published {
        let tables = engine_start(&rules, wk, bk);
        assert_eq!(start_value(&rules, &tables, wk, bk), want, "Morabaraba {wk}-{bk}");
    }
}

/// Move generation, placement and movement alike, equals the reference's on random
/// positions of every rule set the engine solves (each option, double mills under
/// `take=each` included): the same set of children, and the same blocked positions.
#[test]
fn children_equal_the_references_on_random_positions() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: u32| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as u32
    };
    for rule_set in [
        "standard",
        "morabaraba",
        "twelve",
        "standard,removal=strict",
        "standard,removal=lenient",
        "standard,take=each",
        "standard,flying=none",
        "morabaraba,take=each",
        "morabaraba,take=each,removal=strict",
        "twelve,removal=lenient,take=each",
        "lasker",
        "lasker,take=each,removal=strict",
        "six",
        "five",
        "six,take=each,removal=lenient",
        "six,flying=3,lasker=yes",
    ] {
        let rules: Rules = rule_set.parse().unwrap();
        let game = rules.game();
        let reference = RefRules::parse(rule_set).unwrap();
        let stones = rules.stones() as u32;
        let points = rules.board().points() as u32;
        // Doubles after a move and after a placement, counted apart.
        let (mut compared, mut doubles) = (0, [0, 0]);
        while compared < 20_000 {
            // Stones left to each side, then how many of them are still in hand.
            let (ms, os) = (3 + next(stones - 2), 3 + next(stones - 2));
            let (mh, oh) = if next(2) == 0 { (0, 0) } else { (next(ms + 1), next(os + 1)) };
            let (mut mover, mut opp) = (0u32, 0u32);
            while mover.count_ones() < ms - mh {
                mover |= 1 << next(points);
            }
            while opp.count_ones() < os - oh {
                let p = 1 << next(points);
                if mover & p == 0 {
                    opp |= p;
                }
            }
            let raw = reference_family::RawPos { mover, opp, mover_hand: mh, opp_hand: oh };
            if reference_family::terminal_value(&reference, &raw).is_some() {
                continue;
            }
            let mut want: Vec<(u32, u32, u32, u32)> =
                reference_family::children(&reference, &raw).into_iter().map(|c| (to_engine(&rules, c.mover), to_engine(&rules, c.opp), c.mover_hand, c.opp_hand)).collect();
            let (em, eo) = (to_engine(&rules, mover), to_engine(&rules, opp));
            let mut got: Vec<(u32, u32, u32, u32)> =
                morris::solve::placement::children(game, em, eo, mh as u8, oh as u8).into_iter().map(|(cm, co, cmh, coh)| (cm, co, cmh as u32, coh as u32)).collect();
            want.sort();
            want.dedup();
            got.sort();
            got.dedup();
            assert_eq!(got, want, "{rule_set}: mover {mover:06x} opponent {opp:06x} hands {mh} {oh} (reading-order bits)");
            doubles[(mh > 0) as usize] += got.iter().filter(|c| c.0.count_ones() + 2 == os - oh).count();
            compared += 1;
        }
        eprintln!("{rule_set}: {compared} positions, children after two removals: {} by a move, {} by a placement", doubles[0], doubles[1]);
        if rules.take() == morris::rules::Take::Each {
            // A slide closes two mills only into a corner of the diagonal board.
            let by_move = rules.board() == morris::rules::Board::NineDiagonal;
            assert!(doubles[1] > 0 && (doubles[0] > 0) == by_move, "{rule_set}: double mills {doubles:?}, so take=each was not tested");
        }
    }
}

/// Lasker: a side with stones in hand may move instead of placing, so sectors with
/// stones in hand pair into cyclic units, solved by the retrograde solver.
#[test]
fn start_3_3_lasker() {
    compare_start("lasker", 3, 3);
}

/// Gévay & Danner, Table III (docs/rules.md): the Lasker starts with wk, bk <= 5,
/// solved by the engine alone.
#[test]
fn lasker_table_iii() {
    let rules: Rules = "lasker".parse().unwrap();
    let published = [
        ((3, 3), Value::Win(23)),
        ((3, 4), Value::Draw),
        ((3, 5), Value::Draw),
        ((4, 3), Value::Draw),
        ((4, 4), Value::Draw),
        ((4, 5), Value::Draw),
        ((5, 3), Value::Win(9)),
        ((5, 4), Value::Draw),
        ((5, 5), Value::Draw),
    ];
    for ((wk, bk), want) in published {
        let tables = engine_start(&rules, wk, bk);
        assert_eq!(start_value(&rules, &tables, wk, bk), want, "Lasker {wk}-{bk}");
    }
}

/// `full-board`: on the 24-point board only 12-12 fills it, and every 12-12 board is
/// full. The 12-12 unit, solved over stand-in capture tables (it has no move, so they
/// are never read): every position is a draw under `full-board=draw` and a loss in 0
/// under `full-board=loss`.
#[test]
fn full_board_rule_in_the_12_12_unit() {
    struct Draws(HashMap<Subspace, Vec<u8>>);
    impl SectorTables for Draws {
        fn values(&self, sector: Sector) -> &[u8] {
            &self.0[&sector.subspace().unwrap()]
        }
    }
    let capture = Subspace::new(11, 12).unwrap();
    let slots = morris::position::index::SubspaceIndex::new(morris::rules::Board::Nine, capture.s, capture.o).len() as usize;
    let draws = Draws(HashMap::from([(capture, vec![Value::Draw.encode().unwrap(); slots])]));
    let unit = Subspace::new(12, 12).unwrap().unit();
    for (rule_set, full_value) in [("morabaraba", Value::Draw), ("morabaraba,full-board=loss", Value::Loss(0))] {
        let rules: Rules = rule_set.parse().unwrap();
        let solved = solve_unit(rules.game(), &unit.sectors(), &draws, &NoProgress, DeepValues::Refuse).unwrap();
        let idx = morris::Sector::from(unit.members()[0]).index(morris::rules::Board::Nine);
        let (mut full, mut checked) = (0, 0);
        for (i, m, o) in idx.walk(0, idx.len()) {
            if idx.is_hole(i) {
                continue;
            }
            checked += 1;
            if m | o == 0xFF_FFFF {
                full += 1;
                assert_eq!(Value::decode(solved[0].values[i as usize]), full_value, "{rule_set}: a full board");
            }
        }
        assert_eq!(full, checked, "12-12 is the full boards only");
        assert!(full > 0);
    }
}

/// Under `take=each` only a double mill takes two stones, and on the boards without
/// diagonals (`nine`, `six`) no movement move closes two: a slide leaves a point on
/// every mill line through its destination but one (each edge lies on a mill line,
/// which the moving stone has just left), and three flying stones make one mill at
/// most. So the movement phase of `standard,take=each` is the standard one, value and
/// depth. Checked here on the boards' geometry, and on every movement table with
/// `s + o <= 8` byte for byte. On `nine-diagonal` a slide along a diagonal can close two
/// mills, and the movement phases differ.
#[test]
fn take_each_changes_no_movement_table_without_diagonals() {
    for board in [morris::rules::Board::Nine, morris::rules::Board::Six, morris::rules::Board::NineDiagonal] {
        let geo = board.geometry();
        let most = geo
            .edges()
            .iter()
            .flat_map(|&(p, q)| [(p, q), (q, p)])
            .map(|(from, to)| geo.mills().iter().filter(|&&m| m >> to & 1 != 0 && m >> from & 1 == 0).count())
            .max()
            .unwrap();
        let diagonal = board == morris::rules::Board::NineDiagonal;
        assert_eq!(most, if diagonal { 2 } else { 1 }, "{board:?}: mills a slide can close at once");
    }
    let standard = engine(&Rules::STANDARD, 8);
    let take_each = engine(&"standard,take=each".parse().unwrap(), 8);
    assert_eq!(standard.len(), take_each.len());
    for (sub, values) in &standard {
        assert!(take_each[sub] == *values, "{sub}: standard,take=each differs from standard");
    }
    // And the check can fail: on the diagonal board the two differ, from s + o = 9 on
    // (two mills need 5 stones, and taking 2 of 3 wins as surely as taking 1).
    let morabaraba = engine(&"morabaraba".parse().unwrap(), 9);
    let each = engine(&"morabaraba,take=each".parse().unwrap(), 9);
    assert!(morabaraba.iter().any(|(sub, v)| each[sub] != *v), "morabaraba,take=each equals morabaraba");
}
