//! The Python package `morris`: a tablebase reader for researchers who train or test
//! programs in Python, without shelling out to the command line. Values are plain
//! objects that print as the CLI does; errors are typed exceptions; batch probes
//! release the GIL and use every core. Stubs: `morris.pyi`.
//!
//! Python programs that already read chess tables with python-chess's syzygy module
//! find the same shapes here: `get_*` calls that answer None where a table is missing,
//! errors that are also `ValueError` or `KeyError`, and an integer WDL.

use morris_engine::{Position as EnginePosition, ProbeError, Rules, TableError as EngineTableError, Tablebase as EngineTablebase, Value as EngineValue, Wdl as EngineWdl};
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::import_exception;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyString, PyTuple};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::RwLock;

// The exceptions are made at import (see `exception`), as classes of two bases each:
// pyo3's own exception types have one.
import_exception!(morris, MorrisError);
import_exception!(morris, PositionError);
import_exception!(morris, RulesError);
import_exception!(morris, TableMissingError);
import_exception!(morris, TableError);
import_exception!(morris, ClosedError);

/// What the `get_*` calls answer with `default` instead of raising: the tables of the
/// position are not there (or the directory is not), which a caller may expect, unlike
/// a bad position or a damaged table.
fn is_missing(e: &ProbeError) -> bool {
    matches!(e, ProbeError::Table(EngineTableError::Missing { .. }) | ProbeError::MissingTables { .. } | ProbeError::NoDirectory(_))
}

fn probe_err(e: ProbeError) -> PyErr {
    match &e {
        e if is_missing(e) => TableMissingError::new_err(e.to_string()),
        ProbeError::Invalid(_) | ProbeError::GameOver(_) => PositionError::new_err(e.to_string()),
        _ => TableError::new_err(e.to_string()),
    }
}

fn result_word(w: EngineWdl) -> &'static str {
    match w {
        EngineWdl::Win => "win",
        EngineWdl::Draw => "draw",
        EngineWdl::Loss => "loss",
    }
}

/// `morris.Wdl.LOSS`, `DRAW` and `WIN`, made at import.
static WDL: GILOnceCell<[PyObject; 3]> = GILOnceCell::new();

fn wdl_int(py: Python<'_>, w: EngineWdl) -> PyObject {
    let members = WDL.get(py).expect("morris.Wdl is made at import");
    members[match w {
        EngineWdl::Loss => 0,
        EngineWdl::Draw => 1,
        EngineWdl::Win => 2,
    }]
    .clone_ref(py)
}

/// An exact value for the side to move: `result` is "win", "draw" or "loss", `plies`
/// the plies to the end under best play (None for a draw), `wdl` the result as
/// `Wdl` (1, 0, -1).
///
/// Values order from worst to best for the side to move: a loss (the sooner, the
/// worse), a draw, a win (the sooner, the better). So `max()` of moves' values is the
/// best move's, and `sorted(values, reverse=True)` is the order of `moves()`.
#[pyclass(module = "morris", frozen, eq, ord, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value {
    // The engine's order is the one documented above (`Value::goodness`).
    v: EngineValue,
}

impl From<EngineValue> for Value {
    fn from(v: EngineValue) -> Value {
        Value { v }
    }
}

#[pymethods]
impl Value {
    /// "win", "draw" or "loss" for the side to move.
    #[getter]
    fn result(&self) -> &'static str {
        self.v.result_word()
    }

    /// Plies to the end under best play; None for a draw, which has no end.
    #[getter]
    fn plies(&self) -> Option<u16> {
        self.v.plies()
    }

    /// The result as an integer, `Wdl.WIN` (1), `Wdl.DRAW` (0) or `Wdl.LOSS` (-1).
    #[getter]
    fn wdl(&self, py: Python<'_>) -> PyObject {
        wdl_int(py, self.v.into())
    }

    fn __repr__(&self) -> String {
        format!("Value({})", self.__str__())
    }
    fn __str__(&self) -> String {
        // "win in 1": the depth alone, so no unit to agree with it.
        self.v.to_string()
    }
}

/// A legal move: its `name` in the notation of docs/rules.md, the `position` after it, and its
/// `value` for the side that plays it, in every call that returns moves (the value of
/// the position before it, when the move is best).
#[pyclass(module = "morris", frozen)]
#[derive(Clone)]
pub struct Move {
    #[pyo3(get)]
    name: String,
    #[pyo3(get)]
    position: String,
    #[pyo3(get)]
    value: Value,
}

#[pymethods]
impl Move {
    fn __repr__(&self) -> String {
        format!("Move({} -> {}, {})", self.name, self.position, self.value.__str__())
    }
    fn __str__(&self) -> String {
        format!("{}: {}", self.name, self.value.__str__())
    }
}

/// A position of a rule set's game, in the notation of docs/rules.md
/// (`"........................ w 9 9"`).
#[pyclass(module = "morris", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pos: EnginePosition,
    rules: Rules,
}

fn parse_rules(rules: &str) -> PyResult<Rules> {
    rules.parse().map_err(|e: morris_engine::RulesError| RulesError::new_err(e.to_string()))
}

/// The message of a position text that is not one: the same from every call, one
/// position or a batch.
fn position_message(text: &str, e: morris_engine::PositionError) -> String {
    format!("position `{text}`: {e}")
}

fn parse_position(text: &str, rules: &Rules) -> PyResult<EnginePosition> {
    EnginePosition::parse(text, *rules).map_err(|e| PositionError::new_err(position_message(text, e)))
}

/// The TypeError of an argument that is no position: it names what is accepted, where
/// pyo3's own would list its extraction attempts.
fn not_a_position(ob: &Bound<'_, PyAny>) -> PyErr {
    let kind = ob.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
    PyTypeError::new_err(format!("a position is a str such as \"........................ w 9 9\" or a morris.Position, not {kind}"))
}

#[pymethods]
impl Position {
    #[new]
    #[pyo3(signature = (text, rules = "standard"))]
    fn new(text: &Bound<'_, PyAny>, rules: &str) -> PyResult<Position> {
        let text: String = if text.is_instance_of::<PyString>() { text.extract()? } else { return Err(not_a_position(text)) };
        let rules = parse_rules(rules)?;
        Ok(Position { pos: parse_position(&text, &rules)?, rules })
    }

    /// "white" or "black".
    #[getter]
    fn side_to_move(&self) -> &'static str {
        if self.pos.to_move == morris_engine::Color::White {
            "white"
        } else {
            "black"
        }
    }

    /// The names of the legal moves, in the engine's order.
    fn legal_moves(&self) -> Vec<String> {
        self.pos.children().iter().map(|(mv, _)| self.pos.move_name(mv)).collect()
    }

    /// The position after the move named `name` (`"d1"`, `"a7-d7"`, `"d1xa7"`).
    fn play(&self, name: &str) -> PyResult<Position> {
        let want = name.trim().to_ascii_lowercase();
        self.pos
            .children()
            .into_iter()
            .find(|(mv, _)| self.pos.move_name(mv).to_ascii_lowercase() == want)
            .map(|(_, child)| Position { pos: child, rules: self.rules })
            .ok_or_else(|| PositionError::new_err(format!("`{name}` is not a legal move of {}", self.pos)))
    }

    fn __str__(&self) -> String {
        self.pos.to_string()
    }
    fn __repr__(&self) -> String {
        format!("Position('{}')", self.pos)
    }
}

/// A directory of tables of one rule set (`rules`, default "standard"), opened
/// lazily; every probe is one table read, never a search. A table of other rules is
/// refused with `TableError`, naming both rule sets.
///
/// Use it in a `with` block, or call `close()`, to close its files before the object
/// goes: after that every call raises `ClosedError`.
#[pyclass(module = "morris", frozen)]
pub struct Tablebase {
    // None once closed. Each call clones the handle (an Arc) out of the lock, so a
    // batch in flight on other threads keeps its files until it ends.
    tb: RwLock<Option<EngineTablebase>>,
    dir: PathBuf,
    rules: Rules,
}

/// A position given as text or as a `Position`.
enum AnyPosition {
    Object(Position),
    Text(String),
}

impl<'py> FromPyObject<'py> for AnyPosition {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(p) = ob.downcast::<Position>() {
            Ok(AnyPosition::Object(p.get().clone()))
        } else if ob.is_instance_of::<PyString>() {
            Ok(AnyPosition::Text(ob.extract()?))
        } else {
            Err(not_a_position(ob))
        }
    }
}

/// Why one position of a batch has no answer, kept apart from PyErr until the GIL is
/// held again where it is cheap to make.
enum Failure {
    Py(PyErr),
    Text(String),
    Probe(ProbeError),
}

impl Failure {
    fn into_err(self) -> PyErr {
        match self {
            Failure::Py(e) => e,
            Failure::Text(t) => PositionError::new_err(t),
            Failure::Probe(e) => probe_err(e),
        }
    }
}

/// A batch's item before the parallel part: texts are parsed there, without the GIL.
enum Input {
    Pos(EnginePosition),
    Text(String),
}

impl Tablebase {
    /// The open handle, or ClosedError.
    fn tb(&self) -> PyResult<EngineTablebase> {
        self.tb.read().unwrap_or_else(|e| e.into_inner()).clone().ok_or_else(|| ClosedError::new_err(format!("{} is closed", self.describe())))
    }

    fn describe(&self) -> String {
        format!("Tablebase('{}', rules='{}')", self.dir.display(), self.rules)
    }

    fn checked(&self, p: AnyPosition) -> PyResult<EnginePosition> {
        match p {
            AnyPosition::Object(p) if p.rules == self.rules => Ok(p.pos),
            AnyPosition::Object(p) => Err(PositionError::new_err(format!("a position of `{}`, the tablebase holds `{}`", p.rules, self.rules))),
            AnyPosition::Text(t) => parse_position(&t, &self.rules),
        }
    }

    /// The argument `position` of every call, text or `Position`, under the tables'
    /// rules.
    fn position(&self, p: &Bound<'_, PyAny>) -> PyResult<EnginePosition> {
        self.checked(p.extract()?)
    }

    /// `probe` applied to every position in parallel, without the GIL. With `errors`
    /// "raise" the first failure in the list's order is raised (the same one every
    /// run, though all are probed); with "return" it stands in its place, as the
    /// exception the one-position call raises.
    fn batch<T: Send>(
        &self,
        py: Python<'_>,
        positions: &Bound<'_, PyAny>,
        errors: &str,
        probe: impl Fn(&EngineTablebase, &EnginePosition) -> Result<T, ProbeError> + Sync,
        convert: impl Fn(Python<'_>, T) -> PyResult<PyObject>,
    ) -> PyResult<Vec<PyObject>> {
        let keep = match errors {
            "raise" => false,
            "return" => true,
            other => return Err(PyValueError::new_err(format!("errors is \"raise\" or \"return\", not {other:?}"))),
        };
        let tb = self.tb()?;
        // A str is iterable, and each of its characters would be a bad position.
        if positions.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err("positions is a list (or any iterable) of positions, not one str: probe() takes one"));
        }
        let mut inputs = Vec::new();
        for item in positions.try_iter()? {
            let item = item?;
            inputs.push(match item.extract::<AnyPosition>() {
                Ok(AnyPosition::Text(t)) => Ok(Input::Text(t)),
                Ok(p) => self.checked(p).map(Input::Pos).map_err(Failure::Py),
                Err(e) => Err(Failure::Py(e)),
            });
        }
        let rules = self.rules;
        let results: Vec<Result<T, Failure>> = py.allow_threads(|| {
            inputs
                .into_par_iter()
                .map(|input| {
                    let pos = match input? {
                        Input::Pos(p) => p,
                        Input::Text(t) => EnginePosition::parse(&t, rules).map_err(|e| Failure::Text(position_message(&t, e)))?,
                    };
                    probe(&tb, &pos).map_err(Failure::Probe)
                })
                .collect()
        });
        results
            .into_iter()
            .map(|r| match r {
                Ok(v) => convert(py, v),
                Err(f) if keep => Ok(f.into_err().into_value(py).into_any()),
                Err(f) => Err(f.into_err()),
            })
            .collect()
    }

    /// `probe` of one position, or `default` where its tables are missing.
    fn or_default<T>(py: Python<'_>, found: Result<T, ProbeError>, default: Option<PyObject>, convert: impl FnOnce(T) -> PyResult<PyObject>) -> PyResult<PyObject> {
        match found {
            Ok(v) => convert(v),
            Err(e) if is_missing(&e) => Ok(default.unwrap_or_else(|| py.None())),
            Err(e) => Err(probe_err(e)),
        }
    }
}

fn move_of(pos: &EnginePosition, mv: &morris_engine::Move, child: &EnginePosition, value: EngineValue) -> Move {
    Move { name: pos.move_name(mv), position: child.to_string(), value: value.into() }
}

fn value_object(py: Python<'_>, v: EngineValue) -> PyResult<PyObject> {
    Ok(Py::new(py, Value::from(v))?.into_any())
}

fn word_object(py: Python<'_>, w: EngineWdl) -> PyResult<PyObject> {
    Ok(PyString::new(py, result_word(w)).into_any().unbind())
}

#[pymethods]
impl Tablebase {
    #[new]
    #[pyo3(signature = (path, rules = "standard"))]
    fn new(path: PathBuf, rules: &str) -> PyResult<Tablebase> {
        let rules = parse_rules(rules)?;
        let tb = EngineTablebase::with_rules(&path, rules, morris_engine::CACHE_BLOCKS).map_err(probe_err)?;
        Ok(Tablebase { tb: RwLock::new(Some(tb)), dir: path, rules })
    }

    /// The rule set, as a canonical string.
    #[getter]
    fn rules(&self) -> String {
        self.rules.to_string()
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.tb.read().unwrap_or_else(|e| e.into_inner()).is_none()
    }

    /// Closes the tables' files; calls after it raise ClosedError. Closing again does
    /// nothing.
    fn close(&self) {
        *self.tb.write().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Closes, and lets any exception through.
    fn __exit__(&self, _exc_type: PyObject, _exc: PyObject, _traceback: PyObject) -> bool {
        self.close();
        false
    }

    /// The exact value of a position (text or `Position`) for the side to move.
    fn probe(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Value> {
        let (tb, pos) = (self.tb()?, self.position(position)?);
        py.allow_threads(|| tb.probe(&pos)).map(Value::from).map_err(probe_err)
    }

    /// "win", "draw" or "loss" for the side to move, reading only the results.
    fn probe_wdl(&self, position: &Bound<'_, PyAny>) -> PyResult<&'static str> {
        let (tb, pos) = (self.tb()?, self.position(position)?);
        tb.probe_wdl(&pos).map(result_word).map_err(probe_err)
    }

    /// `probe_wdl` as an integer: `Wdl.WIN` (1), `Wdl.DRAW` (0) or `Wdl.LOSS` (-1).
    fn probe_wdl_int(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let (tb, pos) = (self.tb()?, self.position(position)?);
        tb.probe_wdl(&pos).map(|w| wdl_int(py, w)).map_err(probe_err)
    }

    /// `probe`, or `default` (None) where the position's tables are not in the
    /// directory. A bad position still raises.
    #[pyo3(signature = (position, default = None))]
    fn get(&self, py: Python<'_>, position: &Bound<'_, PyAny>, default: Option<PyObject>) -> PyResult<PyObject> {
        let (tb, pos) = (self.tb()?, self.position(position)?);
        let found = py.allow_threads(|| tb.probe(&pos));
        Self::or_default(py, found, default, |v| value_object(py, v))
    }

    /// `probe_wdl`, or `default` (None) where the position's tables are not in the
    /// directory.
    #[pyo3(signature = (position, default = None))]
    fn get_wdl(&self, py: Python<'_>, position: &Bound<'_, PyAny>, default: Option<PyObject>) -> PyResult<PyObject> {
        let (tb, pos) = (self.tb()?, self.position(position)?);
        Self::or_default(py, tb.probe_wdl(&pos), default, |w| word_object(py, w))
    }

    /// `probe_wdl_int`, or `default` (None) where the position's tables are not in
    /// the directory.
    #[pyo3(signature = (position, default = None))]
    fn get_wdl_int(&self, py: Python<'_>, position: &Bound<'_, PyAny>, default: Option<PyObject>) -> PyResult<PyObject> {
        let (tb, pos) = (self.tb()?, self.position(position)?);
        Self::or_default(py, tb.probe_wdl(&pos), default, |w| Ok(wdl_int(py, w)))
    }

    /// `probe_wdl` of many positions (texts or `Position`s), on every core with the
    /// GIL released. `errors="raise"` raises the first failure in the list's order;
    /// `errors="return"` puts the exception in its place and goes on.
    #[pyo3(signature = (positions, errors = "raise"))]
    fn probe_wdl_batch(&self, py: Python<'_>, positions: &Bound<'_, PyAny>, errors: &str) -> PyResult<Vec<PyObject>> {
        self.batch(py, positions, errors, |tb, pos| tb.probe_wdl(pos), word_object)
    }

    /// `probe` of many positions (texts or `Position`s), on every core with the GIL
    /// released. `errors` as in `probe_wdl_batch`.
    #[pyo3(signature = (positions, errors = "raise"))]
    fn probe_batch(&self, py: Python<'_>, positions: &Bound<'_, PyAny>, errors: &str) -> PyResult<Vec<PyObject>> {
        self.batch(py, positions, errors, |tb, pos| tb.probe(pos), value_object)
    }

    /// Every legal move with its value for the side that plays it, best first.
    fn moves(&self, position: &Bound<'_, PyAny>) -> PyResult<Vec<Move>> {
        let (tb, pos) = (self.tb()?, self.position(position)?);
        Ok(tb.probe_moves(&pos).map_err(probe_err)?.into_iter().map(|m| move_of(&pos, &m.mv, &m.child, m.value)).collect())
    }

    /// The best move (fastest win, longest loss, or a drawing move), or None when the
    /// game is over. Its value is the position's.
    fn best_move(&self, position: &Bound<'_, PyAny>) -> PyResult<Option<Move>> {
        let (tb, pos) = (self.tb()?, self.position(position)?);
        Ok(tb.best_move_strong(&pos).map_err(probe_err)?.map(|m| move_of(&pos, &m.mv, &m.child, m.value)))
    }

    /// The line of best moves to the end: a win or loss in N plies has N moves, a draw
    /// none. Each move's `value` is for the side that plays it, as in `moves()`: the
    /// value of the position before it.
    fn mainline(&self, position: &Bound<'_, PyAny>) -> PyResult<Vec<Move>> {
        let (tb, mut pos) = (self.tb()?, self.position(position)?);
        let line = tb.mainline(&pos).map_err(probe_err)?;
        let mut out = Vec::with_capacity(line.len());
        for step in line {
            // The engine gives the value after the move, for the side to move then:
            // one ply up is the mover's.
            out.push(move_of(&pos, &step.mv, &step.position, step.value.parent()));
            pos = step.position;
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        if self.closed() {
            format!("<closed {}>", self.describe())
        } else {
            self.describe()
        }
    }
}

/// Makes the exception class `name` in the module, of `bases`. `plain_str` prints a
/// KeyError's message without the quotes KeyError puts around its key.
fn exception<'py>(m: &Bound<'py, PyModule>, name: &str, bases: &[&Bound<'py, PyAny>], doc: &str, plain_str: bool) -> PyResult<Bound<'py, PyAny>> {
    let py = m.py();
    let dict = PyDict::new(py);
    dict.set_item("__doc__", doc)?;
    dict.set_item("__module__", "morris")?;
    if plain_str {
        dict.set_item("__str__", py.get_type::<PyException>().getattr("__str__")?)?;
    }
    let class = py.import("builtins")?.getattr("type")?.call1((name, PyTuple::new(py, bases)?, dict))?;
    m.add(name, &class)?;
    Ok(class)
}

/// Exact values of Nine Men's Morris positions and its variants (Lasker, Morabaraba,
/// Six Men's Morris and others), read from the tables that `morris solve` writes.
/// Every probe is one table read, never a search.
///
/// A position is a str in the notation of docs/rules.md, "BOARD SIDE [WHITE_IN_HAND
/// BLACK_IN_HAND]", or a `Position`. Values are for the side to move, and a move's
/// value is for the side that plays it, in every call. Values order from worst to best
/// for that side, so the best of some moves is `max(m.value for m in moves)`.
///
/// >>> import morris
/// >>> with morris.Tablebase("databases") as tb:
/// ...     tb.probe("WW.......B.B.....B.....W w")
/// ...     tb.probe_wdl_int("WW.......B.B.....B.....W w")
/// ...     tb.best_move("WW.......B.B.....B.....W w")
/// ...     print(tb.get("WWWWWWWWW..........BBBBB w"))
/// ...     tb.probe_batch(["........................ w 4 4", "........................ w 10 9"], errors="return")
/// Value(win in 1)
/// <Wdl.WIN: 1>
/// Move(g1-g7xa4 -> WWW........B.....B...... b, win in 1)
/// None
/// [Value(draw), PositionError('position `........................ w 10 9`: White has 10 stones on the board and in hand; at most 9')]
///
/// Errors are `MorrisError`s: `PositionError` and `RulesError` are also `ValueError`s,
/// `TableMissingError` (a table, or the directory, is not there) is also a `KeyError`
/// as in python-chess's syzygy module, `TableError` is a damaged table or one of other
/// rules, and `ClosedError` a call after `close()`.
#[pymodule]
fn morris(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Tablebase>()?;
    m.add_class::<Position>()?;
    m.add_class::<Value>()?;
    m.add_class::<Move>()?;
    let base = exception(m, "MorrisError", &[py.get_type::<PyException>().as_any()], "Every error of the package.", false)?;
    let value_error = py.get_type::<PyValueError>().into_any();
    let key_error = py.get_type::<pyo3::exceptions::PyKeyError>().into_any();
    exception(m, "PositionError", &[&base, &value_error], "A malformed or illegal position, or an illegal move; also a ValueError.", false)?;
    exception(m, "RulesError", &[&base, &value_error], "An unknown rule set or option; also a ValueError.", false)?;
    exception(
        m,
        "TableMissingError",
        &[&base, &key_error],
        "A table the position needs, or the directory, is not there; also a KeyError, as python-chess's MissingTableError.",
        true,
    )?;
    exception(m, "TableError", &[&base], "A table is damaged, truncated, of another format or of other rules.", false)?;
    exception(m, "ClosedError", &[&base, &value_error], "A call on a Tablebase after close(); also a ValueError, as for a closed file.", false)?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("module", "morris")?;
    let wdl = py.import("enum")?.getattr("IntEnum")?.call(("Wdl", vec![("LOSS", -1), ("DRAW", 0), ("WIN", 1)]), Some(&kwargs))?;
    wdl.setattr("__doc__", "A result as an integer for the side to move, as python-chess's WDL: WIN 1, DRAW 0, LOSS -1.")?;
    let _ = WDL.set(py, [wdl.getattr("LOSS")?.unbind(), wdl.getattr("DRAW")?.unbind(), wdl.getattr("WIN")?.unbind()]);
    m.add("Wdl", wdl)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
