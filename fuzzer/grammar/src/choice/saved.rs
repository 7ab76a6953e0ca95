//! The `.choices` file: a choice sequence with the bounds it was recorded under.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{ChoiceSequence, OwnWords};
use crate::bounds::Bounds;
use crate::diagnostic::Diagnostic;

/// Files start with this, so that a truncated or foreign file is recognised as such instead of
/// being decoded into garbage. The last byte is the version: 1 holds no own words, 2 does. A
/// file without words is still written as version 1, so every file that earlier releases
/// could read, they still can.
const MAGIC: &[u8; 8] = b"BONSAIC\x01";
const MAGIC_WITH_WORDS: &[u8; 8] = b"BONSAIC\x02";

/// Why bytes are not a `.choices` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChoicesFileError {
    /// The file does not start with Bonsai's magic number: another kind of file.
    NotAChoicesFile,
    /// It starts like one but does not decode (truncated, overwritten).
    Corrupt(String),
    /// It decodes, with bytes left over after the sequence.
    TrailingBytes(usize),
}

impl std::fmt::Display for ChoicesFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChoicesFileError::NotAChoicesFile => {
                write!(f, "not a Bonsai choices file (bad magic number)")
            }
            ChoicesFileError::Corrupt(why) => write!(f, "corrupt choices file: {why}"),
            ChoicesFileError::TrailingBytes(n) => {
                write!(f, "corrupt choices file: {n} trailing bytes")
            }
        }
    }
}

impl std::error::Error for ChoicesFileError {}

/// A sequence recorded with another grammar than the one in use. Its choices index that
/// grammar's alternatives, so replaying it under this one gives some other input, or none:
/// seeds skip it, reductions refuse it, `replay` and `generate` warn. Every such decision goes
/// through [`SavedChoices::check_grammar`], so that all of them agree on what "another
/// grammar" is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtherGrammar {
    /// The fingerprint in the file.
    pub recorded: u64,
    /// The fingerprint of the grammar in use.
    pub expected: u64,
}

impl std::fmt::Display for OtherGrammar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "recorded with a different grammar")
    }
}

impl std::error::Error for OtherGrammar {}

/// The contents of a `.choices` file: enough to replay an input exactly, and to refuse doing so
/// under a different grammar.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedChoices {
    /// [`crate::grammar::Grammar::fingerprint`] of the grammar the sequence was made with.
    pub grammar: u64,
    /// The bounds the sequence was recorded under; replay uses them, not the caller's.
    pub bounds: Bounds,
    /// The normalized decisions.
    pub choices: ChoiceSequence,
    /// Words the text says instead of some pool values (an imported seed's own names).
    pub words: OwnWords,
}

/// Version 1 of the file body: no words.
#[derive(Serialize, Deserialize)]
struct Body<'a> {
    grammar: u64,
    bounds: Bounds,
    choices: std::borrow::Cow<'a, ChoiceSequence>,
}

impl SavedChoices {
    /// `Err` when the sequence was recorded with a grammar whose fingerprint
    /// ([`crate::grammar::Grammar::fingerprint`]) is not `expected`.
    pub fn check_grammar(&self, expected: u64) -> Result<(), OtherGrammar> {
        if self.grammar == expected {
            Ok(())
        } else {
            Err(OtherGrammar {
                recorded: self.grammar,
                expected,
            })
        }
    }

    /// The file's bytes: the magic number, then the postcard encoding. Infallible.
    pub fn to_bytes(&self) -> Vec<u8> {
        let encoded = if self.words.is_empty() {
            let body = Body {
                grammar: self.grammar,
                bounds: self.bounds,
                choices: std::borrow::Cow::Borrowed(&self.choices),
            };
            (MAGIC, postcard::to_stdvec(&body))
        } else {
            (MAGIC_WITH_WORDS, postcard::to_stdvec(self))
        };
        let mut bytes = encoded.0.to_vec();
        bytes.extend(encoded.1.expect("serializing plain data cannot fail"));
        bytes
    }

    /// Decodes a `.choices` file, rejecting a missing magic number, a body that does not decode and
    /// trailing bytes, so a damaged file never replays as some other input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ChoicesFileError> {
        let corrupt = |e: postcard::Error| ChoicesFileError::Corrupt(e.to_string());
        let (saved, rest) = if let Some(body) = bytes.strip_prefix(MAGIC.as_slice()) {
            let (body, rest): (Body, _) = postcard::take_from_bytes(body).map_err(corrupt)?;
            let saved = SavedChoices {
                grammar: body.grammar,
                bounds: body.bounds,
                choices: body.choices.into_owned(),
                words: OwnWords::default(),
            };
            (saved, rest)
        } else if let Some(body) = bytes.strip_prefix(MAGIC_WITH_WORDS.as_slice()) {
            postcard::take_from_bytes::<SavedChoices>(body).map_err(corrupt)?
        } else {
            return Err(ChoicesFileError::NotAChoicesFile);
        };
        if !rest.is_empty() {
            return Err(ChoicesFileError::TrailingBytes(rest.len()));
        }
        Ok(saved)
    }

    /// [`SavedChoices::from_bytes`] on the file at `path`, with the path in any error.
    pub fn read(path: &Path) -> Result<Self, Diagnostic> {
        let bytes = std::fs::read(path)
            .map_err(|e| Diagnostic::error(format!("cannot read choices: {e}")).in_file(path))?;
        Self::from_bytes(&bytes).map_err(|e| Diagnostic::error(e.to_string()).in_file(path))
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
    fn only_the_recording_grammars_fingerprint_passes_the_check() {
        let saved = SavedChoices {
            grammar: 7,
            bounds: Bounds::new(1, 1, 1).unwrap(),
            choices: ChoiceSequence::default(),
            words: OwnWords::default(),
        };
        assert_eq!(saved.check_grammar(7), Ok(()));
        let other = saved.check_grammar(8).unwrap_err();
        assert_eq!((other.recorded, other.expected), (7, 8));
        assert_eq!(other.to_string(), "recorded with a different grammar");
    }

    #[test]
    fn round_trips_and_rejects_damage() {
        let saved = SavedChoices {
            grammar: 42,
            bounds: Bounds::new(2, 3, 4).unwrap(),
            choices: ChoiceSequence(vec![0, 1, 300, 7]),
            words: OwnWords::default(),
        };
        let bytes = saved.to_bytes();
        assert_eq!(bytes[..8], *MAGIC);
        assert_eq!(SavedChoices::from_bytes(&bytes).unwrap(), saved);
        assert!(matches!(
            SavedChoices::from_bytes(&bytes[..bytes.len() - 1]),
            Err(ChoicesFileError::Corrupt(_))
        ));
        assert_eq!(
            SavedChoices::from_bytes(b"hello"),
            Err(ChoicesFileError::NotAChoicesFile)
        );
        let mut extra = bytes.clone();
        extra.push(0);
        assert_eq!(
            SavedChoices::from_bytes(&extra),
            Err(ChoicesFileError::TrailingBytes(1))
        );
    }

    #[test]
    fn words_round_trip_in_version_two_and_damage_is_still_caught() {
        let saved = SavedChoices {
            grammar: 7,
            bounds: Bounds::new(3, 1, 2).unwrap(),
            choices: ChoiceSequence(vec![2, 0]),
            words: OwnWords::new(vec![crate::choice::OwnWord {
                pool: crate::grammar::PoolId(0),
                value: 2,
                word: "total".into(),
            }]),
        };
        let bytes = saved.to_bytes();
        assert_eq!(bytes[..8], *MAGIC_WITH_WORDS);
        assert_eq!(SavedChoices::from_bytes(&bytes).unwrap(), saved);
        assert!(matches!(
            SavedChoices::from_bytes(&bytes[..bytes.len() - 2]),
            Err(ChoicesFileError::Corrupt(_))
        ));
    }
}
