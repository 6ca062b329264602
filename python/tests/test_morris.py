"""The Python package against the command line: every table of a small set, values,
results, batches and move lists; typed errors; printing. Then the API's promises: one
meaning of a move's value, ordered values, closing, batches that return their errors,
the python-chess shapes (get_*, ValueError/KeyError, integer WDL), and the module's
examples, run. Needs the `morris` binary (MORRIS_BIN, default target/release/morris)
and the wheel installed."""

import doctest
import json
import os
import pathlib
import random
import subprocess

import pytest

import morris

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("MORRIS_BIN", str(ROOT / "target" / "release" / "morris"))
READING = "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1".split()


@pytest.fixture(scope="session")
def db(tmp_path_factory):
    d = tmp_path_factory.mktemp("db")
    subprocess.run([BIN, "solve", "--db", str(d), "-q"], check=True, capture_output=True)
    return d


def cli(db, positions, moves=False):
    args = [BIN, "probe", "--db", str(db), "--json", "-"] + (["--moves"] if moves else [])
    out = subprocess.run(args, input="\n".join(positions) + "\n", capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def sector_positions(name, rng, n):
    """n random positions of sector S-O or S-O-SH-OH, the side to move White or Black."""
    parts = [int(x) for x in name.split("-")]
    s, o, sh, oh = (parts + [0, 0])[:4]
    out = []
    for _ in range(n):
        points = rng.sample(range(24), s + o)
        board = ["."] * 24
        white_moves = rng.random() < 0.5
        mover, other = ("W", "B") if white_moves else ("B", "W")
        for k, p in enumerate(points):
            board[p] = mover if k < s else other
        wh, bh = (sh, oh) if white_moves else (oh, sh)
        side = "w" if white_moves else "b"
        tail = f" {wh} {bh}" if sh or oh else ""
        out.append(f"{''.join(board)} {side}{tail}")
    return out


def word(j):
    return j["result"] if j["plies"] is None else f'{j["result"]} in {j["plies"]}'


def test_every_table_agrees_with_the_cli(db):
    tables = sorted(p.stem for p in db.glob("*.mtb"))
    assert len(tables) >= 40, tables
    rng = random.Random(17)
    positions = [p for t in tables for p in sector_positions(t, rng, 40)]
    want = cli(db, positions)
    tb = morris.Tablebase(db)
    values = tb.probe_batch([p for p, j in zip(positions, want) if "error" not in j])
    results = tb.probe_wdl_batch([p for p, j in zip(positions, want) if "error" not in j])
    ok = 0
    for p, j in zip(positions, want):
        if "error" in j:
            with pytest.raises(morris.MorrisError):
                tb.probe(p)
            continue
        v = tb.probe(p)
        assert str(v) == word(j), p
        assert (v.result, v.plies) == (j["result"], j["plies"]), p
        assert tb.probe_wdl(p) == j["result"], p
        assert str(values[ok]) == word(j) and results[ok] == j["result"], p
        assert tb.probe(morris.Position(p)) == v
        ok += 1
    assert ok > 1000, ok


def test_moves_best_move_and_mainline_agree_with_the_cli(db):
    tb = morris.Tablebase(db)
    rng = random.Random(5)
    pos = morris.Position("........................ w 4 4")
    seen = 0
    for _ in range(60):
        want = cli(db, [str(pos)], moves=True)[0]
        got = tb.moves(pos)
        assert [(m.name, m.position, str(m.value)) for m in got] == [(m["move"], m["position"], word(m)) for m in want["moves"]]
        assert sorted(pos.legal_moves()) == sorted(m.name for m in got)
        best = tb.best_move(pos)
        if not got:
            assert best is None
            break
        assert best.value == got[0].value
        line = tb.mainline(pos)
        assert len(line) == (tb.probe(pos).plies or 0)
        seen += 1
        pos = pos.play(rng.choice(got).name)
    assert seen > 10


def test_errors_are_typed(db, tmp_path):
    tb = morris.Tablebase(db)
    with pytest.raises(morris.PositionError, match="WWW"):
        tb.probe("WWW w")
    with pytest.raises(morris.PositionError):
        tb.probe_wdl_batch(["........................ w 4 4", "nonsense"])
    with pytest.raises(morris.TableMissingError):
        tb.probe("WWWWWWWWW..........BBBBB w")
    with pytest.raises(morris.RulesError, match="flying"):
        morris.Tablebase(db, rules="standard,flying=sometimes")
    with pytest.raises(morris.TableError, match="lasker"):
        morris.Tablebase(db, rules="lasker").probe("........................ w 4 4")
    with pytest.raises(morris.TableMissingError):
        morris.Tablebase(tmp_path / "nothing")
    with pytest.raises(morris.PositionError, match="not a legal move"):
        morris.Position("........................ w 4 4").play("a7-d7")
    with pytest.raises(morris.PositionError):
        tb.probe(morris.Position("................ w 4 4", rules="six"))
    assert issubclass(morris.TableMissingError, morris.MorrisError)


def test_values_print_well(db):
    tb = morris.Tablebase(db)
    for p in ["........................ w 3 3", "........................ w 4 4"]:
        v, want = tb.probe(p), word(cli(db, [p])[0])
        assert str(v) == want and repr(v) == f"Value({want})"
    assert repr(morris.Position("........................ w 4 4")) == "Position('........................ w 4 4')"
    assert morris.Position("........................ b 4 4").side_to_move == "black"
    assert "rules='standard'" in repr(tb) and tb.rules == "standard"


START = "........................ w 4 4"
MISSING = "WWWWWWWWW..........BBBBB w"  # 9-5: not in the small set
WIN_IN_1 = "WW.......B.B.....B.....W w"  # g1-g7 closes a mill and leaves Black two stones


def walk(tb, start, seed, plies=40):
    """The positions of a random game from start, as texts."""
    rng = random.Random(seed)
    out, pos = [], morris.Position(start)
    for _ in range(plies):
        out.append(str(pos))
        moves = pos.legal_moves()
        if not moves:
            break
        pos = pos.play(rng.choice(moves))
    return out


def test_a_non_position_is_a_clear_type_error(db):
    tb = morris.Tablebase(db)
    for name in ["probe", "probe_wdl", "moves", "best_move", "mainline", "probe_wdl_int", "get", "get_wdl", "get_wdl_int"]:
        with pytest.raises(TypeError, match=r"a position is a str .* or a morris\.Position, not int") as e:
            getattr(tb, name)(42)
        assert "AnyPosition" not in str(e.value) and "extract" not in str(e.value), str(e.value)
    with pytest.raises(TypeError, match=r"not bytes"):
        tb.probe(START.encode())
    with pytest.raises(TypeError, match=r"a position is a str"):
        morris.Position(42)


def test_a_move_value_is_for_the_side_that_plays_it_in_every_call(db):
    tb = morris.Tablebase(db)
    lines = 0
    for p in walk(tb, START, 3) + walk(tb, "........................ w 3 3", 8) + [WIN_IN_1]:
        if not tb.moves(p):
            continue
        by_name = {m.name: m.value for m in tb.moves(p)}
        assert tb.moves(p)[0].value == tb.probe(p), p
        assert tb.best_move(p).value == tb.probe(p), p
        line = tb.mainline(p)
        before = p
        for m in line:
            assert m.value == tb.probe(before), (p, m)
            assert m.value == {x.name: x.value for x in tb.moves(before)}[m.name], (p, m)
            before = m.position
        if line:
            assert line[0].value == by_name[line[0].name] == tb.probe(p)
            lines += 1
    assert lines > 5
    assert [str(m) for m in tb.mainline(WIN_IN_1)] == ["g1-g7xa4: win in 1"]


def test_a_tablebase_closes_and_is_a_context_manager(db):
    with morris.Tablebase(db) as tb:
        assert tb.probe(START) == morris.Tablebase(db).probe(START)
    assert "closed" in repr(tb)
    for call in [tb.probe, tb.probe_wdl, tb.probe_wdl_int, tb.moves, tb.best_move, tb.mainline, tb.get, tb.get_wdl, tb.get_wdl_int]:
        with pytest.raises(morris.ClosedError, match="closed"):
            call(START)
    for call in [tb.probe_batch, tb.probe_wdl_batch]:
        with pytest.raises(morris.ClosedError, match="closed"):
            call([START])
    assert issubclass(morris.ClosedError, morris.MorrisError) and issubclass(morris.ClosedError, ValueError)
    tb.close()  # again: nothing to do
    assert tb.rules == "standard"
    other = morris.Tablebase(db)
    other.close()
    with pytest.raises(morris.ClosedError):
        other.probe(START)
    with pytest.raises(KeyError):
        with morris.Tablebase(db) as tb:
            tb.probe(MISSING)
    with pytest.raises(morris.ClosedError):
        tb.probe(START)


def test_batches_take_positions_and_can_return_the_errors(db):
    tb = morris.Tablebase(db)
    items = [START, morris.Position(START), "nonsense", MISSING, 42, morris.Position("................ w 4 4", rules="six"), WIN_IN_1]
    for batch, one in [(tb.probe_batch, tb.probe), (tb.probe_wdl_batch, tb.probe_wdl)]:
        got = batch(items, errors="return")
        assert len(got) == len(items)
        for item, g in zip(items, got):
            try:
                want = one(item)
            except Exception as e:
                assert type(g) is type(e) and str(g) == str(e), (item, g, e)
            else:
                assert g == want, (item, g)
        assert got[0] == got[1] and got[6] != got[0]
        assert isinstance(got[2], morris.PositionError) and "nonsense" in str(got[2])
        assert isinstance(got[3], morris.TableMissingError)
        assert isinstance(got[4], TypeError)
        assert isinstance(got[5], morris.PositionError)
        # Raising: the first bad position in the list's order, every time.
        for _ in range(20):
            with pytest.raises(morris.TableMissingError):
                batch([START] * 50 + [MISSING] + ["nonsense"] * 50)
        with pytest.raises(morris.PositionError, match="nonsense"):
            batch(items)
        assert batch(p for p in [START, morris.Position(WIN_IN_1)]) == [one(START), one(WIN_IN_1)]
        assert batch([]) == [] and batch([], errors="return") == []
        with pytest.raises(ValueError, match="errors"):
            batch(items, errors="ignore")
        with pytest.raises(TypeError, match="one str"):
            batch(START)


def value_key(v):
    return {"win": (2, -(v.plies or 0)), "draw": (1, 0), "loss": (0, v.plies or 0)}[v.result]


def test_values_order_from_worst_to_best_for_the_side_to_move(db):
    tb = morris.Tablebase(db)
    values = set()
    for p in walk(tb, START, 11) + walk(tb, "........................ w 3 3", 12) + [WIN_IN_1]:
        ms = tb.moves(p)
        assert [m.value for m in ms] == sorted((m.value for m in ms), reverse=True), p
        if ms:
            assert max(m.value for m in ms) == tb.best_move(p).value
        values |= {m.value for m in ms}
    assert {v.result for v in values} == {"win", "draw", "loss"}, values
    values = sorted(values)
    assert values == sorted(values, key=value_key)
    for a in values:
        for b in values:
            assert (a < b) == (value_key(a) < value_key(b)) and (a <= b) == (value_key(a) <= value_key(b)), (a, b)
            assert (a > b) == (value_key(a) > value_key(b)) and (a == b) == (value_key(a) == value_key(b)), (a, b)
    win1 = tb.moves(WIN_IN_1)[0].value
    assert str(win1) == "win in 1" and win1 == max(values)
    with pytest.raises(TypeError):
        win1 < 1


def test_the_module_and_its_calls_are_documented():
    assert morris.__doc__ and "Tablebase" in morris.__doc__ and ">>>" in morris.__doc__
    for name in ["probe", "probe_wdl", "probe_wdl_int", "get", "get_wdl", "get_wdl_int", "probe_batch", "probe_wdl_batch", "moves", "best_move", "mainline", "close"]:
        assert getattr(morris.Tablebase, name).__doc__, name
    for cls in [morris.Tablebase, morris.Position, morris.Value, morris.Move, morris.Wdl, morris.MorrisError, morris.ClosedError]:
        assert cls.__doc__, cls


def test_get_calls_answer_none_where_a_table_is_missing(db):
    tb = morris.Tablebase(db)
    for get in [tb.get, tb.get_wdl, tb.get_wdl_int]:
        assert get(MISSING) is None
        assert get(MISSING, default="none") == "none"
        with pytest.raises(morris.PositionError):
            get("nonsense")
    for p in walk(tb, START, 4, plies=10):
        assert tb.get(p) == tb.probe(p) and tb.get_wdl(p) == tb.probe_wdl(p) and tb.get_wdl_int(p) == tb.probe_wdl_int(p)


def test_errors_are_also_the_builtin_kinds(db):
    tb = morris.Tablebase(db)
    assert issubclass(morris.PositionError, ValueError) and issubclass(morris.RulesError, ValueError)
    assert issubclass(morris.TableMissingError, KeyError)
    for e in [morris.PositionError, morris.RulesError, morris.TableMissingError, morris.TableError, morris.ClosedError]:
        assert issubclass(e, morris.MorrisError) and e.__module__ == "morris", e
    with pytest.raises(KeyError) as missing:
        tb.probe(MISSING)
    assert str(missing.value).startswith("no table") or "9-5" in str(missing.value), str(missing.value)
    assert not str(missing.value).startswith("'"), "printed without KeyError's quotes"
    with pytest.raises(ValueError):
        tb.probe("nonsense")
    with pytest.raises(ValueError):
        morris.Tablebase(db, rules="nonsense")


def test_integer_wdl(db):
    tb = morris.Tablebase(db)
    assert (morris.Wdl.WIN, morris.Wdl.DRAW, morris.Wdl.LOSS) == (1, 0, -1)
    seen = set()
    for p in walk(tb, START, 6) + walk(tb, "........................ w 3 3", 7):
        if not tb.moves(p):
            continue
        w = tb.probe_wdl_int(p)
        assert isinstance(w, int) and isinstance(w, morris.Wdl)
        assert w == {"win": 1, "draw": 0, "loss": -1}[tb.probe_wdl(p)] == tb.probe(p).wdl, p
        seen.add(w)
    assert seen == {-1, 0, 1}


def test_hands_are_bounded_by_the_rules_in_use(db):
    tb = morris.Tablebase(db)
    for text in ["........................ w 13 9", "........................ w 10 9", "WWW..................... w 7 0"]:
        with pytest.raises(morris.PositionError, match=r"at most 9\b") as e:
            morris.Position(text)
        assert "12" not in str(e.value), str(e.value)
        with pytest.raises(morris.PositionError, match=r"at most 9\b"):
            tb.probe(text)
    with pytest.raises(morris.PositionError, match=r"at most 12\b"):
        morris.Position("........................ w 13 9", rules="morabaraba")
    assert str(morris.Position("........................ w 12 12", rules="morabaraba")) == "........................ w 12 12"


def test_one_ply_is_singular(db):
    tb = morris.Tablebase(db)
    shown = [str(tb.probe(WIN_IN_1)), repr(tb.probe(WIN_IN_1))] + [f"{m} {m!r}" for m in tb.moves(WIN_IN_1)]
    assert not any("1 plies" in s for s in shown), shown


def test_the_module_docstring_examples_run(db, tmp_path, monkeypatch):
    (tmp_path / "databases").symlink_to(db)
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(morris.__doc__, {}, "morris", None, 0)
    assert len(test.examples) >= 2
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    result = runner.run(test)
    assert result.failed == 0 and result.attempted == len(test.examples)
