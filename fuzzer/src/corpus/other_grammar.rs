//! A choice sequence recorded with another grammar than the one in use. Its choices index
//! that grammar's alternatives, so replaying it under this one gives some other input, or
//! none: seeds skip it, reductions refuse it, `replay` and `generate` warn.

use crate::choice::SavedChoices;

/// The fingerprints that differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtherGrammar {
    /// The fingerprint in the `.choices` file.
    pub recorded: u64,
    /// The fingerprint of the grammar in use.
    pub expected: u64,
}

impl OtherGrammar {
    /// `Err` when `saved` was recorded with a grammar whose fingerprint is not `expected`
    /// (`Grammar::fingerprint`).
    pub fn check(saved: &SavedChoices, expected: u64) -> Result<(), OtherGrammar> {
        if saved.grammar == expected {
            Ok(())
        } else {
            Err(OtherGrammar {
                recorded: saved.grammar,
                expected,
            })
        }
    }
}

impl std::fmt::Display for OtherGrammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "recorded with a different grammar")
    }
}

impl std::error::Error for OtherGrammar {}
