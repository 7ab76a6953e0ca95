//! The v coordinate of a lattice node: which inputs a fuzzer keeps.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Restricted fuzzers keep only valid inputs; unrestricted ones keep any input with new
/// coverage (Zest's criteria). Restricted comes first: an unrestricted node can use as seeds
/// everything the restricted node with the same bounds kept, but not the other way round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Restriction {
    Restricted,
    Unrestricted,
}

impl Restriction {
    pub fn letter(self) -> char {
        match self {
            Restriction::Restricted => 'r',
            Restriction::Unrestricted => 'u',
        }
    }

    pub fn from_letter(c: char) -> Option<Self> {
        match c {
            'r' => Some(Restriction::Restricted),
            'u' => Some(Restriction::Unrestricted),
            _ => None,
        }
    }
}

impl fmt::Display for Restriction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}
