//! Which files of a directory are inputs, and the text each one stands for.

use std::path::{Path, PathBuf};

use crate::choice::SavedChoices;
use crate::diagnostic::Diagnostic;
use crate::grammar::Grammar;
use crate::text::{SavedReplayError, replay_saved};

/// `.choices` files, and `.txt` files that have no `.choices` beside them, in name order.
pub fn list_inputs(dir: &Path) -> Result<Vec<PathBuf>, Diagnostic> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Diagnostic::error(format!("cannot read directory: {e}")).in_file(dir))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| match p.extension().and_then(|e| e.to_str()) {
            Some("choices") => true,
            Some("txt") => !p.with_extension("choices").exists(),
            _ => false,
        })
        .collect();
    paths.sort();
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
    if path.extension().is_none_or(|e| e != "choices") {
        return std::fs::read_to_string(path).map_err(|e| InputError::CannotRead(e.to_string()));
    }
    let grammar = grammar.ok_or(InputError::NoGrammar)?;
    let saved = SavedChoices::read(path).map_err(|d| InputError::Choices(d.message))?;
    replay_saved(grammar, &saved).map_err(|e| match e {
        SavedReplayError::OtherGrammar => InputError::OtherGrammar,
        SavedReplayError::Bounds(m) | SavedReplayError::Replay(m) => InputError::DoesNotReplay(m),
    })
}
