//! The Python package `morris`: a tablebase reader for researchers who train or test
//! programs in Python, without shelling out to the command line. Values are plain
//! objects that print as the CLI does; errors are typed exceptions; batch probes
//! release the GIL and use every core. Stubs: `morris.pyi`.

use morris_engine::{Position as EnginePosition, ProbeError, Rules, TableError as EngineTableError, Tablebase as EngineTablebase, Value as EngineValue, Wdl};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use rayon::prelude::*;

create_exception!(morris, MorrisError, PyException, "Every error of the package.");
create_exception!(morris, PositionError, MorrisError, "A malformed or illegal position, or an illegal move.");
create_exception!(morris, RulesError, MorrisError, "An unknown rule set or option.");
create_exception!(morris, TableMissingError, MorrisError, "A table the position needs is not in the directory.");
create_exception!(morris, TableError, MorrisError, "A table is damaged, truncated, of another format or of other rules.");

fn probe_err(e: ProbeError) -> PyErr {
    match &e {
        ProbeError::Table(EngineTableError::Missing { .. }) | ProbeError::MissingTables { .. } | ProbeError::NoDirectory(_) => TableMissingError::new_err(e.to_string()),
        ProbeError::Invalid(_) | ProbeError::GameOver(_) => PositionError::new_err(e.to_string()),
        _ => TableError::new_err(e.to_string()),
    }
}

fn result_word(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    }
}

/// An exact value for the side to move: `result` is "win", "draw" or "loss", `plies`
/// the plies to the end under best play (None for a draw).
#[pyclass(module = "morris", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Value {
    #[pyo3(get)]
    result: &'static str,
    #[pyo3(get)]
    plies: Option<u16>,
}

impl From<EngineValue> for Value {
    fn from(v: EngineValue) -> Value {
        Value { result: v.result_word(), plies: v.plies() }
    }
}

#[pymethods]
impl Value {
    fn __repr__(&self) -> String {
        format!("Value({})", self.__str__())
    }
    fn __str__(&self) -> String {
        match self.plies {
            Some(p) => format!("{} in {p}", self.result),
            None => self.result.to_string(),
        }
    }
}

/// A legal move: its `name` in the notation of docs/rules.md, the `position` after it, and its
/// `value` for the side that plays it.
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

fn parse_position(text: &str, rules: &Rules) -> PyResult<EnginePosition> {
    EnginePosition::parse(text, *rules).map_err(|e| PositionError::new_err(format!("position `{text}`: {e}")))
}

#[pymethods]
impl Position {
    #[new]
    #[pyo3(signature = (text, rules = "standard"))]
    fn new(text: &str, rules: &str) -> PyResult<Position> {
        let rules = parse_rules(rules)?;
        Ok(Position { pos: parse_position(text, &rules)?, rules })
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
#[pyclass(module = "morris", frozen)]
pub struct Tablebase {
    tb: EngineTablebase,
}

/// A position given as text or as a `Position`.
#[derive(FromPyObject)]
enum AnyPosition {
    Object(Position),
    Text(String),
}

impl Tablebase {
    /// `probe` applied to every position text in parallel, without the GIL.
    fn batch<T: Send>(&self, py: Python<'_>, positions: &[String], probe: impl Fn(&EnginePosition) -> Result<T, ProbeError> + Sync) -> PyResult<Vec<T>> {
        let rules = *self.tb.rules();
        py.allow_threads(|| {
            positions
                .par_iter()
                .map(|t| {
                    let pos = EnginePosition::parse(t, rules).map_err(|e| Err(format!("position `{t}`: {e}")))?;
                    probe(&pos).map_err(Ok)
                })
                .collect::<Result<Vec<_>, Result<ProbeError, String>>>()
        })
        .map_err(|e| match e {
            Ok(probe) => probe_err(probe),
            Err(text) => PositionError::new_err(text),
        })
    }

    fn position(&self, p: AnyPosition) -> PyResult<EnginePosition> {
        match p {
            AnyPosition::Object(p) if p.rules == *self.tb.rules() => Ok(p.pos),
            AnyPosition::Object(p) => Err(PositionError::new_err(format!("a position of `{}`, the tablebase holds `{}`", p.rules, self.tb.rules()))),
            AnyPosition::Text(t) => parse_position(&t, self.tb.rules()),
        }
    }

    fn moves_of(&self, pos: &EnginePosition) -> PyResult<Vec<Move>> {
        Ok(self.tb.probe_moves(pos).map_err(probe_err)?.into_iter().map(|m| Move { name: pos.move_name(&m.mv), position: m.child.to_string(), value: m.value.into() }).collect())
    }
}

#[pymethods]
impl Tablebase {
    #[new]
    #[pyo3(signature = (path, rules = "standard"))]
    fn new(path: std::path::PathBuf, rules: &str) -> PyResult<Tablebase> {
        let rules = parse_rules(rules)?;
        let tb = EngineTablebase::with_rules(&path, rules, morris_engine::CACHE_BLOCKS).map_err(probe_err)?;
        Ok(Tablebase { tb })
    }

    /// The rule set, as a canonical string.
    #[getter]
    fn rules(&self) -> String {
        self.tb.rules().to_string()
    }

    /// The exact value of a position (text or `Position`) for the side to move.
    fn probe(&self, py: Python<'_>, position: AnyPosition) -> PyResult<Value> {
        let pos = self.position(position)?;
        py.allow_threads(|| self.tb.probe(&pos)).map(Value::from).map_err(probe_err)
    }

    /// "win", "draw" or "loss" for the side to move, reading only the results.
    fn probe_wdl(&self, position: AnyPosition) -> PyResult<&'static str> {
        let pos = self.position(position)?;
        self.tb.probe_wdl(&pos).map(result_word).map_err(probe_err)
    }

    /// `probe_wdl` of many positions (texts), on every core with the GIL released;
    /// the first error is raised.
    fn probe_wdl_batch(&self, py: Python<'_>, positions: Vec<String>) -> PyResult<Vec<&'static str>> {
        self.batch(py, &positions, |pos| self.tb.probe_wdl(pos).map(result_word))
    }

    /// `probe` of many positions (texts), on every core with the GIL released.
    fn probe_batch(&self, py: Python<'_>, positions: Vec<String>) -> PyResult<Vec<Value>> {
        self.batch(py, &positions, |pos| self.tb.probe(pos).map(Value::from))
    }

    /// Every legal move with its value for the side that plays it, best first.
    fn moves(&self, position: AnyPosition) -> PyResult<Vec<Move>> {
        let pos = self.position(position)?;
        self.moves_of(&pos)
    }

    /// The best move (fastest win, longest loss, or a drawing move), or None when the
    /// game is over.
    fn best_move(&self, position: AnyPosition) -> PyResult<Option<Move>> {
        let pos = self.position(position)?;
        Ok(self.tb.best_move_strong(&pos).map_err(probe_err)?.map(|m| Move { name: pos.move_name(&m.mv), position: m.child.to_string(), value: m.value.into() }))
    }

    /// The line of best moves to the end: a win or loss in N plies has N moves, a draw
    /// none. Each move's `value` is that of the position after it, for its side to move.
    fn mainline(&self, position: AnyPosition) -> PyResult<Vec<Move>> {
        let mut pos = self.position(position)?;
        let line = self.tb.mainline(&pos).map_err(probe_err)?;
        let mut out = Vec::with_capacity(line.len());
        for step in line {
            out.push(Move { name: pos.move_name(&step.mv), position: step.position.to_string(), value: step.value.into() });
            pos = step.position;
        }
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!("Tablebase('{}', rules='{}')", self.tb.dir().display(), self.tb.rules())
    }
}

#[pymodule]
fn morris(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Tablebase>()?;
    m.add_class::<Position>()?;
    m.add_class::<Value>()?;
    m.add_class::<Move>()?;
    m.add("MorrisError", py.get_type::<MorrisError>())?;
    m.add("PositionError", py.get_type::<PositionError>())?;
    m.add("RulesError", py.get_type::<RulesError>())?;
    m.add("TableMissingError", py.get_type::<TableMissingError>())?;
    m.add("TableError", py.get_type::<TableError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
