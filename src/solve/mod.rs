//! Solving, in stages: the solver of one unit ([`unit`](mod@unit)), by retrograde analysis of
//! the units with cycles (`retro`) or backward induction over a placement sector
//! ([`placement::induction`]); search over the placement phase ([`placement`]); the
//! draw classes of the ultra-strong solution ([`ultra`]), over the same retrograde
//! engine; the `solve` pipeline that runs them in order and writes the tables
//! ([`generate`]); and the same units as a graph for many machines ([`graph`]), each
//! solved on its own ([`alone`]).

pub mod alone;
pub mod generate;
pub mod graph;
pub mod limits;
pub mod placement;
pub mod progress;
pub(crate) mod retro;
pub mod tables;
pub mod ultra;
pub mod unit;

pub use limits::Limits;
pub use progress::{NoProgress, Progress};
pub use tables::SectorTables;
pub use unit::{solve_unit, DeepValues, SolvedSector};
