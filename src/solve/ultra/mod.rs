//! The ultra-strong solution (Gévay & Danner 2015, §IV): which draw to play for.
//!
//! A strong solution treats every draw alike. Ranking the sectors by how well the side
//! to move does in them ([`values`]) lets each draw be labelled by the sector in which
//! best play keeps it, so a perfect player can prefer draws that leave a fallible
//! opponent more ways to go wrong. `docs/ultra.md` fixes every definition; the
//! independent reference under `tests/reference_family/` follows the same page.

pub mod check;
pub mod classes;
pub mod run;
pub mod values;

pub use values::{SectorCounts, SectorValues, SectorValuesError};
