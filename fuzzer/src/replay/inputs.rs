//! Which files of a directory are inputs, and the text each one stands for.

use std::path::{Path, PathBuf};

use crate::corpus::{EntryDir, EntryFile, StoredEntry};
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::text::{SavedReplayError, replay_saved};

/// `.choices` files, and `.txt` files that have no `.choices` beside them, in name order.
pub fn list_inputs(dir: &Path) -> Result<Vec<PathBuf>, Diagnostic> {
    let mut paths = EntryDir::new(dir)
        .files()
        .map_err(|e| Diagnostic::error(format!("cannot read directory: {e}")).in_file(dir))?;
    paths.retain(|p| match EntryFile::of(p) {
        Some(EntryFile::Choices) => true,
        Some(EntryFile::Text) => !StoredEntry::of_file(p).has(EntryFile::Choices),
        _ => false,
    });
    Ok(paths)
}

/// Why an input file cannot be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// A text file that cannot be read.
    CannotRead(String),
    /// A `.choices` file, and no grammar to replay it with.
    NoGrammar,
    /// A `.choices` file that cannot be read or decoded.
    Choices(String),
    /// Recorded with another grammar than the one given.
    OtherGrammar,
    /// It does not replay within its recorded bounds.
    DoesNotReplay(String),
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::CannotRead(e) => write!(f, "cannot read: {e}"),
            InputError::NoGrammar => write!(f, "no grammar"),
            InputError::Choices(message) | InputError::DoesNotReplay(message) => {
                write!(f, "{message}")
            }
            InputError::OtherGrammar => write!(f, "recorded with a different grammar"),
        }
    }
}

impl std::error::Error for InputError {}

/// The text of a `.txt` file, or the text a `.choices` file replays to (strictly, under its
/// recorded bounds). The error says why the input cannot be run.
pub fn input_text(path: &Path, grammar: Option<&Grammar>) -> Result<String, InputError> {
    if EntryFile::of(path) != Some(EntryFile::Choices) {
        return std::fs::read_to_string(path).map_err(|e| InputError::CannotRead(e.to_string()));
    }
    let grammar = grammar.ok_or(InputError::NoGrammar)?;
    let saved = StoredEntry::of_file(path)
        .read_choices()
        .map_err(|d| InputError::Choices(d.message))?;
    replay_saved(grammar, &saved).map_err(|e| match e {
        SavedReplayError::OtherGrammar => InputError::OtherGrammar,
        SavedReplayError::Bounds(m) | SavedReplayError::Replay(m) => InputError::DoesNotReplay(m),
    })
}
