//! The work lists of a propagation: the slots whose value was set, by member and by
//! depth, so that no level scans a whole table.

use std::sync::Mutex;

/// Slots decided, grouped by depth: the work list of each level. The lists grow with
/// the deepest value, which some rule sets take past 255 plies.
pub(crate) struct Frontier {
    /// `lists[member][depth]`
    lists: Vec<Mutex<Vec<Vec<u32>>>>,
}

impl Frontier {
    pub(crate) fn new(members: usize) -> Frontier {
        Frontier { lists: (0..members).map(|_| Mutex::new(vec![Vec::new(); 257])).collect() }
    }

    /// Moves a thread's buffer of `(depth, slot)` of one member into the shared lists:
    /// one lock per buffer, not per slot.
    pub(crate) fn flush(&self, member: usize, buf: &mut Vec<(u16, u32)>) {
        if buf.is_empty() {
            return;
        }
        buf.sort_unstable_by_key(|&(d, _)| d);
        let mut lists = self.lists[member].lock().unwrap();
        for run in buf.chunk_by(|a, b| a.0 == b.0) {
            let d = run[0].0 as usize;
            if lists.len() <= d {
                lists.resize(d + 1, Vec::new());
            }
            lists[d].extend(run.iter().map(|&(_, slot)| slot));
        }
        buf.clear();
    }

    /// Empties and returns the list of `member` at `depth`.
    pub(crate) fn take(&self, member: usize, depth: u16) -> Vec<u32> {
        self.lists[member].lock().unwrap().get_mut(depth as usize).map(std::mem::take).unwrap_or_default()
    }

    /// Whether any list at `depth` or deeper holds a slot.
    pub(crate) fn any_from(&self, depth: u16) -> bool {
        self.lists.iter().any(|l| l.lock().unwrap().iter().skip(depth as usize).any(|v| !v.is_empty()))
    }
}
