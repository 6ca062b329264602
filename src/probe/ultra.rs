//! Probes of the ultra-strong solution: which draw a drawn position heads for, and
//! moves ordered by it (`docs/ultra.md`). The strong probe is untouched: these read
//! the class files (`.mtc`) beside the tables and the directory's sector values.

use super::{children, ProbeError, Tablebase};
use crate::position::sector::Sector;
use crate::position::value::{MoveInfo, Value};
use crate::position::Position;
use crate::solve::ultra::run::VALUES_FILE;
use crate::solve::ultra::SectorValues;
use crate::table::ClassFile;
use crate::table::TableError;
use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The class of a draw, for the side to move of the position it belongs to: the rank
/// of the sector in which best play keeps the game (higher is better for that side),
/// and the plies until play leaves the current unit under the tie-break.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DrawClass {
    /// The class: a sector rank, from this side's point of view.
    pub class: i16,
    /// Plies until play leaves the unit, where the class is not the unit's own.
    pub depth: Option<u16>,
    /// The rank of this side's unit (what staying in it is worth), which decides
    /// whether a shorter or a longer depth is better.
    pub rank: i16,
}

impl DrawClass {
    /// `Ordering::Greater` when `self` is the better draw for the side it belongs to;
    /// both must be of one position (one `rank`).
    pub fn better(&self, other: &DrawClass) -> Ordering {
        self.class.cmp(&other.class).then_with(|| {
            let (a, b) = (self.depth.unwrap_or(0), other.depth.unwrap_or(0));
            match self.class.cmp(&self.rank) {
                // Leaving pays: the sooner, the better.
                Ordering::Greater => b.cmp(&a),
                // Leaving costs: the later, the better.
                Ordering::Less => a.cmp(&b),
                Ordering::Equal => Ordering::Equal,
            }
        })
    }
}

/// A value of the ultra-strong solution: a strong value whose draws carry their class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UltraValue {
    /// A win in this many plies.
    Win(u16),
    /// A draw, and which.
    Draw(DrawClass),
    /// A loss in this many plies.
    Loss(u16),
}

impl UltraValue {
    /// The strong value.
    pub fn strong(&self) -> Value {
        match *self {
            UltraValue::Win(d) => Value::Win(d),
            UltraValue::Loss(d) => Value::Loss(d),
            UltraValue::Draw(_) => Value::Draw,
        }
    }

    /// Loss < draws by class < win, each as the strong order and [`DrawClass::better`]
    /// order them; the values must be of moves of one position.
    pub fn better(&self, other: &UltraValue) -> Ordering {
        match (self, other) {
            (UltraValue::Draw(a), UltraValue::Draw(b)) => a.better(b),
            _ => self.strong().goodness().cmp(&other.strong().goodness()),
        }
    }
}

impl fmt::Display for UltraValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UltraValue::Draw(c) => write!(f, "draw of class {}", c.class),
            other => write!(f, "{}", other.strong()),
        }
    }
}

/// Why a directory's classes cannot be read: it has none, or its sector values are
/// damaged (an error: the classes are not silently dropped).
pub(super) enum Unreadable {
    Absent(String),
    Invalid(String),
}

/// The directory's sector values and class files, opened on first use.
pub(super) struct Classes {
    values: SectorValues,
    files: Vec<OnceLock<Arc<ClassFile>>>,
}

impl Tablebase {
    /// The sector values the directory's classes were made with (`sector-values.txt`);
    /// an error if the directory has no classes.
    pub fn sector_values(&self) -> Result<&SectorValues, ProbeError> {
        Ok(&self.classes()?.values)
    }

    fn classes(&self) -> Result<&Classes, ProbeError> {
        let path = self.dir().join(VALUES_FILE);
        let cell = self.0.classes.get_or_init(|| {
            let text = std::fs::read_to_string(&path).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => Unreadable::Absent(format!("no {VALUES_FILE}")),
                _ => Unreadable::Invalid(e.to_string()),
            })?;
            let values = SectorValues::parse(&text).map_err(|e| Unreadable::Invalid(e.to_string()))?;
            let files = (0..self.0.files.len()).map(|_| OnceLock::new()).collect();
            Ok(Classes { values, files })
        });
        cell.as_ref().map_err(|e| match e {
            Unreadable::Absent(why) => ProbeError::NoClasses { dir: self.dir().to_owned(), why: why.clone() },
            Unreadable::Invalid(why) => ProbeError::BadSectorValues { path, why: why.clone() },
        })
    }

    fn class_file(&self, sector: Sector) -> Result<&Arc<ClassFile>, ProbeError> {
        let classes = self.classes()?;
        let cell = &classes.files[super::sector_slot(sector)];
        if let Some(f) = cell.get() {
            return Ok(f);
        }
        let strong = self.table(sector)?;
        let f = Arc::new(ClassFile::open(self.dir(), strong, classes.values.fingerprint())?);
        Ok(cell.get_or_init(|| f))
    }

    /// The class of a drawn position, from its sector's class file; `None` when the
    /// position is not a draw. A sector no classed play reaches is
    /// [`ProbeError::Unclassed`]. A favoured draw's depth, which class files leave out,
    /// is found one ply up: 1 + the least depth among its best moves.
    pub fn probe_class(&self, pos: &Position) -> Result<Option<DrawClass>, ProbeError> {
        let Some(mut c) = self.stored_class(pos)? else { return Ok(None) };
        if c.class > c.rank {
            let Some(sector) = self.sector_of(pos)? else { return Ok(None) };
            let stays_into = sector.cyclic(self.rules().game()).then(|| sector.after_slide());
            let mut fast = u16::MAX;
            for (mv, child, _) in children(pos) {
                let Some(k) = self.stored_class(&child)? else { continue };
                if -k.class != c.class {
                    continue;
                }
                let stays = self.stays(stays_into, &mv, &child);
                fast = fast.min(if stays { k.depth.unwrap_or(0) } else { 0 });
            }
            if fast == u16::MAX {
                return Err(ProbeError::Table(TableError::Corrupt { path: self.dir().to_owned(), detail: format!("no move keeps the class of the draw {pos}") }));
            }
            c.depth = Some(fast + 1);
        }
        Ok(Some(c))
    }

    /// Whether `mv`, to `child`, is a slide without capture into `stays_into` (the
    /// other sector of a cyclic unit, or the same): a move that keeps play in the unit.
    fn stays(&self, stays_into: Option<Sector>, mv: &crate::rules::movegen::Move, child: &Position) -> bool {
        mv.capture == crate::rules::movegen::NONE && mv.from != crate::rules::movegen::NONE && stays_into.is_some_and(|x| self.sector_of(child).ok().flatten() == Some(x))
    }

    /// The class of a drawn position as its class file stores it (favoured draws
    /// without their depth).
    fn stored_class(&self, pos: &Position) -> Result<Option<DrawClass>, ProbeError> {
        let Some(sector) = self.sector_of(pos)? else { return Ok(None) };
        // The classed sectors are closed under moves: only a position asked directly
        // can be in a sector without classes.
        let rank = self.sector_values()?.get(sector).ok_or(ProbeError::Unclassed(sector))? as i16;
        let i = sector.index(self.rules().board()).index(pos.mover(), pos.opponent());
        let strong = self.table(sector)?;
        let bs = strong.header.block_size as u64;
        let mut block = Vec::new();
        strong.read_block((i / bs) as usize, &mut block)?;
        let j = (i % bs) as usize;
        if block.get(j) != Some(&crate::position::value::DRAW) {
            return Ok(None);
        }
        let file = self.class_file(sector)?;
        let entries = file.block((i / bs) as usize, &block)?;
        let at = block[..j].iter().filter(|&&b| b == crate::position::value::DRAW).count();
        let (class, depth) = entries[at];
        Ok(Some(DrawClass { class, depth: (depth != 0).then_some(depth), rank }))
    }

    /// The ultra-strong value of a position.
    pub fn probe_ultra(&self, pos: &Position) -> Result<UltraValue, ProbeError> {
        Ok(match self.probe(pos)? {
            Value::Win(d) => UltraValue::Win(d),
            Value::Loss(d) => UltraValue::Loss(d),
            Value::Draw => UltraValue::Draw(
                self.probe_class(pos)?.ok_or_else(|| ProbeError::Table(TableError::Corrupt { path: self.dir().to_owned(), detail: format!("no class for the draw {pos}") }))?,
            ),
        })
    }

    /// Every legal move with its ultra-strong value for the side that plays it, best
    /// first: the ultra-strong player's choice is the first, and moves of equal value
    /// keep the strong order among them. A position of a sector no classed play
    /// reaches is [`ProbeError::Unclassed`]: its moves have their strong values only.
    pub fn probe_moves_ultra(&self, pos: &Position) -> Result<Vec<MoveInfo<UltraValue>>, ProbeError> {
        let Some(sector) = self.sector_of(pos)? else { return Ok(Vec::new()) };
        let rank = self.sector_values()?.get(sector).ok_or(ProbeError::Unclassed(sector))? as i16;
        let game = self.rules().game();
        let stays_into = sector.cyclic(game).then(|| sector.after_slide());
        let mut out = Vec::new();
        for (mv, child, wins) in children(pos) {
            let value = if wins {
                UltraValue::Win(1)
            } else {
                match self.probe_ultra(&child)? {
                    UltraValue::Win(d) => UltraValue::Loss(d + 1),
                    UltraValue::Loss(d) => UltraValue::Win(d + 1),
                    UltraValue::Draw(c) => {
                        let stays = self.stays(stays_into, &mv, &child);
                        let class = -c.class;
                        let depth = if class == rank {
                            None
                        } else if stays {
                            c.depth.map(|d| d + 1)
                        } else {
                            Some(1)
                        };
                        UltraValue::Draw(DrawClass { class, depth, rank })
                    }
                }
            };
            out.push(MoveInfo { mv, child, value });
        }
        // Stable: equal values keep the move generator's order.
        out.sort_by(|a, b| b.value.better(&a.value));
        Ok(out)
    }

    /// The ultra-strong player's move: the best by [`Tablebase::probe_moves_ultra`].
    pub fn best_move_ultra(&self, pos: &Position) -> Result<Option<MoveInfo<UltraValue>>, ProbeError> {
        Ok(self.probe_moves_ultra(pos)?.into_iter().next())
    }
}

/// Words for a draw's class: the sector it heads for, from the side to move's point
/// of view, and whether that is good for it.
pub fn class_words(values: &SectorValues, class: i16) -> String {
    let lean = match class.signum() {
        1 => "favourable",
        -1 => "unfavourable",
        _ => "even",
    };
    match values.sector_of_rank(class as i32) {
        Some(_) if class == 0 => {
            let mut even: Vec<String> = values.iter().filter(|(x, r)| *r == 0 && x.is_movement()).map(|(x, _)| x.to_string()).collect();
            even.reverse();
            format!("draw, heading for an even sector ({})", even.join(", "))
        }
        Some(x) => format!("draw, heading for {x} ({lean})"),
        None => format!("draw of class {class} ({lean})"),
    }
}
