//! Why a recorded sequence does not fit the current bounds.

use std::fmt;

/// Which bound a recorded decision exceeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// m: a pool value index at or past the number of values m allows.
    Idents,
    /// n: a repetition's item count above what n allows.
    Items,
    /// d: a choice that would nest a rule deeper than d allows.
    Depth,
}

/// The first recorded decision that strict replay could not take under the current bounds; the
/// sequence belongs to a larger bounded space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    /// Which bound the decision exceeds.
    pub bound: Bound,
    /// Index of the offending choice in the recorded sequence.
    pub position: usize,
    /// The recorded value, reduced modulo the decision's range.
    pub value: u32,
    /// The rule or pool where the decision was taken.
    pub context: String,
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.bound {
            Bound::Idents => "pool value index beyond the bound m",
            Bound::Items => "item count beyond the bound n",
            Bound::Depth => "choice that nests deeper than the bound d",
        };
        write!(
            f,
            "out of bounds: choice #{} (value {}) in '{}' is a {what}",
            self.position, self.value, self.context
        )
    }
}

impl std::error::Error for OutOfBounds {}
