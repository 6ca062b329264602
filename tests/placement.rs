//! The placement solver against a brute-force minimax: plain recursion over raw
//! positions (no symmetry, no layers), with movement-phase leaves from the independent
//! reference solver or, for larger cases, from the engine's tables.

mod reference;

use morris::rules::Board;
use morris::solve::placement::{self, MovementTables};
use morris::solve::{solve_unit, DeepValues};
use morris::NoProgress;
use morris::{Color, Position, Subspace, Unit, Value};
use std::collections::HashMap;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

fn to_reading(bits: u32) -> u32 {
    Board::Nine.geometry().reading().iter().enumerate().filter(|(_, &p)| bits >> p & 1 != 0).map(|(i, _)| 1u32 << i).sum()
}

/// Plain minimax over raw positions, straight from the rules.
struct Brute<'a> {
    leaf: &'a dyn Fn(u32, u32) -> Value,
    memo: HashMap<(u32, u32, u8, u8, bool), Value>,
}

impl Brute<'_> {
    fn value(&mut self, p: Position) -> Value {
        let white = p.to_move == Color::White;
        let (m, o) = (p.mover(), p.opponent());
        let (mh, oh) = if white { (p.white_hand, p.black_hand) } else { (p.black_hand, p.white_hand) };
        if m.count_ones() + mh as u32 > 2 && mh == 0 && oh == 0 {
            return (self.leaf)(m, o);
        }
        if m.count_ones() + (mh as u32) < 3 {
            return Value::Loss(0);
        }
        let key = (p.white, p.black, p.white_hand, p.black_hand, white);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let mut best: Option<Value> = None;
        for (nm, no) in children(m, o, mh) {
            let (w, b) = if white { (nm, no) } else { (no, nm) };
            let (wh, bh) = if mh > 0 {
                if white {
                    (p.white_hand - 1, p.black_hand)
                } else {
                    (p.white_hand, p.black_hand - 1)
                }
            } else {
                (p.white_hand, p.black_hand)
            };
            let child = Position::unchecked(morris::Rules::STANDARD, w, b, wh, bh, p.to_move.other());
            let v = self.value(child).parent();
            if best.is_none_or(|x| v.goodness() > x.goodness()) {
                best = Some(v);
            }
        }
        let v = best.unwrap_or(Value::Loss(0));
        self.memo.insert(key, v);
        v
    }
}

/// (mover, opponent) after each legal placement or move, with capture.
fn children(m: u32, o: u32, hand: u8) -> Vec<(u32, u32)> {
    let geo = Board::Nine.geometry();
    let adj = |a: usize, b: usize| geo.adj()[a] >> b & 1 == 1;
    let mill = |set: u32, p: usize| geo.mills().iter().any(|&ml| ml >> p & 1 == 1 && set & ml == ml);
    let mut moves: Vec<u32> = vec![];
    let empty: Vec<usize> = (0..24).filter(|&p| (m | o) >> p & 1 == 0).collect();
    let mut targets = vec![];
    if hand > 0 {
        for &t in &empty {
            moves.push(m | 1 << t);
            targets.push(t);
        }
    } else {
        for f in (0..24).filter(|&p| m >> p & 1 == 1) {
            for &t in &empty {
                if m.count_ones() == 3 || adj(f, t) {
                    moves.push(m & !(1 << f) | 1 << t);
                    targets.push(t);
                }
            }
        }
    }
    let mut out = vec![];
    for (after, t) in moves.into_iter().zip(targets) {
        // A mill against an empty board removes nothing and the move stands.
        if mill(after, t) && o != 0 {
            let all = (0..24).filter(|&p| o >> p & 1 == 1).all(|p| mill(o, p));
            for r in (0..24).filter(|&p| o >> p & 1 == 1 && (all || !mill(o, p))) {
                out.push((after, o & !(1 << r)));
            }
        } else {
            out.push((after, o));
        }
    }
    out
}

fn engine_tables(max: u8) -> HashMap<Subspace, Vec<u8>> {
    let mut solved = HashMap::new();
    for unit in Unit::all_in_order().into_iter().filter(|u| u.total() <= max) {
        for s in solve_unit(morris::rules::game::Game::standard(), &unit.sectors(), &solved, &NoProgress, DeepValues::Refuse).expect("the values fit the encoding") {
            solved.insert(s.sector.subspace().unwrap(), s.values);
        }
    }
    solved
}

/// The value of a 3-3 movement position from the reference solver's table.
fn reference_leaf(t33: &reference::RefTable, m: u32, o: u32) -> Value {
    if m.count_ones() < 3 {
        return Value::Loss(0);
    }
    match t33.get(to_reading(m), to_reading(o)) {
        reference::RefValue::Win(d) => Value::Win(d),
        reference::RefValue::Loss(d) => Value::Loss(d),
        reference::RefValue::Draw => Value::Draw,
    }
}

#[test]
fn three_three_start_matches_brute_force_with_reference_leaves() {
    let mut rs = reference::RefSolver::new();
    let t33 = rs.solve(3, 3);
    let leaf = |m: u32, o: u32| reference_leaf(t33, m, o);
    let mut brute = Brute { leaf: &leaf, memo: HashMap::new() };
    let root = Position::unchecked(morris::Rules::STANDARD, 0, 0, 3, 3, Color::White);
    let tables = MovementTables::from_map(morris::rules::game::Game::standard(), engine_tables(6));
    let sol = placement::solve(&root, &tables, &NoProgress);
    assert_eq!(brute.value(root), Value::Win(23));
    assert_eq!(sol.value, Value::Win(23));
    for m in &sol.moves {
        assert_eq!(brute.value(m.child).parent(), m.value, "first move {}", m.mv);
    }
}

/// `wb` white and `bb` black stones on distinct random points.
fn random_stones(rnd: &mut impl FnMut(u64) -> u64, wb: u32, bb: u32) -> (u32, u32) {
    let mut pts: Vec<u32> = (0..24).collect();
    for i in (1..24).rev() {
        pts.swap(i, rnd(i as u64 + 1) as usize);
    }
    let white: u32 = pts[..wb as usize].iter().map(|&p| 1 << p).sum();
    let black: u32 = pts[wb as usize..(wb + bb) as usize].iter().map(|&p| 1 << p).sum();
    (white, black)
}

#[test]
fn late_placement_positions_match_brute_force() {
    let tables = MovementTables::from_map(morris::rules::game::Game::standard(), engine_tables(8));
    let leaf = |m: u32, o: u32| -> Value { tables.value(m, o) };
    let mut rng = Rng(0x1234_5678_9abc_def1u64);
    let mut rnd = |n: u64| rng.below(n);
    let mut checked = 0;
    // Positions with up to 2 stones left in hand, including ones where one side
    // already moves while the other still places.
    while checked < 60 {
        let (wb, bb) = (rnd(4) as u32 + 1, rnd(4) as u32 + 1);
        let (wh, bh) = (rnd(3) as u8, rnd(3) as u8);
        if wh + bh == 0 || wb + wh as u32 > 4 || bb + bh as u32 > 4 {
            continue;
        }
        let (white, black) = random_stones(&mut rnd, wb, bb);
        let to_move = if rnd(2) == 0 { Color::White } else { Color::Black };
        let root = Position::unchecked(morris::Rules::STANDARD, white, black, wh, bh, to_move);
        let sol = placement::solve(&root, &tables, &NoProgress);
        let mut brute = Brute { leaf: &leaf, memo: HashMap::new() };
        assert_eq!(sol.value, brute.value(root), "{root}");
        for m in &sol.moves {
            assert_eq!(brute.value(m.child).parent(), m.value, "{root}: {}", m.mv);
        }
        if let Some(best) = sol.moves.first() {
            assert_eq!(best.value, sol.value, "{root}: the best move keeps the value");
        }
        checked += 1;
    }
}

/// The search (alpha-beta, transposition table, parallel) against plain backward
/// induction over every reachable position: same value and same value for every move,
/// depths included, from empty boards and from random mid-placement positions. Each
/// root is searched with a fresh table and with one table shared by all roots (keys do
/// not depend on the root or on colour, so what one search stores must hold for all).
#[test]
fn search_matches_layered_backward_induction() {
    use morris::solve::placement::{layered, search};
    let tables = MovementTables::from_map(morris::rules::game::Game::standard(), engine_tables(8));
    let shared = search::Tt::new(1 << 24);
    let check = |root: Position| {
        let b = layered::solve(&root, &tables, &NoProgress);
        let moves = |s: &placement::Solution| {
            let mut m: Vec<_> = s.moves.iter().map(|m| (m.mv.to_string(), m.child.to_string(), m.value)).collect();
            m.sort_by(|x, y| x.0.cmp(&y.0));
            m
        };
        for a in [placement::solve(&root, &tables, &NoProgress), search::solve_with_tt(&root, &tables, &shared, &NoProgress)] {
            assert_eq!(a.value, b.value, "{root}");
            assert_eq!(moves(&a), moves(&b), "{root}");
        }
    };
    for (wk, bk) in [(3, 3), (3, 4), (4, 3), (4, 4), (5, 3), (3, 5)] {
        check(Position::unchecked(morris::Rules::STANDARD, 0, 0, wk, bk, Color::White));
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15u64);
    let mut rnd = |n: u64| rng.below(n);
    let mut checked = 0;
    while checked < 40 {
        let (wb, bb) = (rnd(4) as u32, rnd(4) as u32);
        let (wh, bh) = (rnd(4) as u8, rnd(4) as u8);
        if wh + bh == 0 || wb + wh as u32 > 4 || bb + bh as u32 > 4 || wb + wh as u32 + bb + bh as u32 > 8 {
            continue;
        }
        let (white, black) = random_stones(&mut rnd, wb, bb);
        let to_move = if rnd(2) == 0 { Color::White } else { Color::Black };
        check(Position::unchecked(morris::Rules::STANDARD, white, black, wh, bh, to_move));
        checked += 1;
    }
}

/// Every placement sector of the 3-3 start, solved by the pipeline into files, against
/// this file's brute-force minimax over raw positions (leaves from the independent
/// reference solver): every raw position of every sector has the stored value, and the
/// W/D/L counts in each header equal orbit counts made here with the reference's own
/// symmetries.
#[test]
fn three_three_start_sectors_match_brute_force_counts() {
    use morris::solve::generate::{self, Options};
    use morris::table::{table_path, TableFile};
    use morris::Sector;
    use std::collections::HashSet;
    let dir = tempfile::tempdir().unwrap();
    let reports = generate::run(&Options { dir: dir.path().to_owned(), max_stones: 0, only: None, starts: vec![(3, 3)], rules: morris::Rules::STANDARD }, &NoProgress).unwrap();
    let sectors: Vec<Sector> = reports.iter().map(|r| r.sector).filter(|s| !s.is_movement()).collect();
    assert_eq!(sectors.len(), 6, "{sectors:?}");
    let mut rs = reference::RefSolver::new();
    let t33 = rs.solve(3, 3);
    let leaf = |m: u32, o: u32| reference_leaf(t33, m, o);
    let mut brute = Brute { leaf: &leaf, memo: HashMap::new() };
    let syms = reference::symmetries();
    let sets = |k: u32| (0u32..1 << 24).filter(move |x| x.count_ones() == k);
    for sector in sectors {
        let file = TableFile::open(&table_path(dir.path(), sector), sector, &morris::rules::Rules::STANDARD).unwrap();
        let values = file.read_all().unwrap();
        let index = sector.index(Board::Nine);
        let mut orbits: [HashSet<(u32, u32)>; 3] = Default::default();
        let mut raw = 0u64;
        for m in sets(sector.s as u32) {
            for o in sets(sector.o as u32).filter(|o| o & m == 0) {
                let pos = Position::unchecked(morris::Rules::STANDARD, m, o, sector.sh, sector.oh, Color::White);
                let v = brute.value(pos);
                assert_eq!(Value::decode(values[index.index(m, o) as usize]), v, "{sector}: {pos}");
                let (rm, ro) = (to_reading(m), to_reading(o));
                let canon = syms.iter().map(|p| (reference::apply_perm(p, rm), reference::apply_perm(p, ro))).min().unwrap();
                let class = match v {
                    Value::Win(_) => 0,
                    Value::Draw => 1,
                    Value::Loss(_) => 2,
                };
                orbits[class].insert(canon);
                raw += 1;
            }
        }
        let st = file.header.stats;
        let counted = (orbits[0].len() as u64, orbits[1].len() as u64, orbits[2].len() as u64);
        assert_eq!((st.wins, st.draws, st.losses), counted, "{sector} ({raw} raw positions)");
        assert_eq!(st.positions, counted.0 + counted.1 + counted.2, "{sector}");
    }
}
