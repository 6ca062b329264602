"""The Python package against the command line: every table of a small set, values,
results, batches and move lists; typed errors; printing. Needs the `morris` binary
(MORRIS_BIN, default target/release/morris) and the wheel installed."""

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
