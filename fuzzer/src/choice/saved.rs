//! The `.choices` file: a choice sequence with the bounds it was recorded under.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::ChoiceSequence;
use crate::bounds::Bounds;
use crate::diagnostic::Diagnostic;

/// Files start with this, so that a truncated or foreign file is recognised as such instead of
/// being decoded into garbage.
const MAGIC: &[u8; 8] = b"BONSAIC\x01";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedChoices {
    /// [`crate::grammar::Grammar::fingerprint`] of the grammar the sequence was made with.
    pub grammar: u64,
    pub bounds: Bounds,
    pub choices: ChoiceSequence,
}

impl SavedChoices {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend(postcard::to_stdvec(self).expect("serializing plain data cannot fail"));
        bytes
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Self, String> {
        let body = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or("not a Bonsai choices file (bad magic number)")?;
        let (saved, rest): (SavedChoices, _) =
            postcard::take_from_bytes(body).map_err(|e| format!("corrupt choices file: {e}"))?;
        if !rest.is_empty() {
            return Err(format!(
                "corrupt choices file: {} trailing bytes",
                rest.len()
            ));
        }
        Ok(saved)
    }

    pub fn read(path: &Path) -> Result<Self, Diagnostic> {
        let bytes = std::fs::read(path)
            .map_err(|e| Diagnostic::error(format!("cannot read choices: {e}")).in_file(path))?;
        Self::from_bytes(&bytes).map_err(|e| Diagnostic::error(e).in_file(path))
    }

    /// Writes through a temporary file and a rename, so that a crash never leaves a
    /// half-written file where a saved input used to be.
    pub fn write(&self, path: &Path) -> Result<(), Diagnostic> {
        crate::fs_util::write_atomic(path, &self.to_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_damage() {
        let saved = SavedChoices {
            grammar: 42,
            bounds: Bounds::new(2, 3, 4).unwrap(),
            choices: ChoiceSequence(vec![0, 1, 300, 7]),
        };
        let bytes = saved.to_bytes();
        assert_eq!(SavedChoices::from_bytes(&bytes).unwrap(), saved);
        assert!(SavedChoices::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(
            SavedChoices::from_bytes(b"hello")
                .unwrap_err()
                .contains("magic")
        );
        let mut extra = bytes.clone();
        extra.push(0);
        assert!(
            SavedChoices::from_bytes(&extra)
                .unwrap_err()
                .contains("trailing")
        );
    }
}
