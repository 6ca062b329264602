//! What a unit reads of the units solved before it: the tables its moves leave into.

use crate::position::sector::Sector;
use crate::position::subspace::Subspace;
use crate::position::value::Deep;
use std::collections::HashMap;

/// Solved tables, one value byte per slot, by sector.
pub trait SectorTables: Sync {
    /// The table of `sector`; the caller guarantees it was solved, and it may panic
    /// if not.
    fn values(&self, sector: Sector) -> &[u8];
    /// The exact depths of `sector`'s deep values ([`DEEP_WIN`](crate::position::value::DEEP_WIN),
    /// [`DEEP_LOSS`](crate::position::value::DEEP_LOSS)); none by default.
    fn deep(&self, _sector: Sector) -> Option<&Deep> {
        None
    }
}

impl SectorTables for HashMap<Sector, Vec<u8>> {
    fn values(&self, sector: Sector) -> &[u8] {
        self.get(&sector).unwrap_or_else(|| panic!("table {sector} is not in memory"))
    }
}

/// Movement tables by subspace, as the tests and benches build them unit by unit.
impl SectorTables for HashMap<Subspace, Vec<u8>> {
    fn values(&self, sector: Sector) -> &[u8] {
        let sub = sector.subspace().unwrap_or_else(|| panic!("{sector} is not a movement subspace"));
        self.get(&sub).unwrap_or_else(|| panic!("table {sub} is not in memory"))
    }
}
