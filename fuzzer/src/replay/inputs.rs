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

/// The text of a `.txt` file, or the text a `.choices` file replays to (strictly, under its
/// recorded bounds). The error says why the input cannot be run.
pub fn input_text(path: &Path, grammar: Option<&Grammar>) -> Result<String, String> {
    if path.extension().is_none_or(|e| e != "choices") {
        return std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"));
    }
    let grammar = grammar.ok_or("no grammar")?;
    let saved = SavedChoices::read(path).map_err(|d| d.message)?;
    replay_saved(grammar, &saved).map_err(|e| match e {
        SavedReplayError::OtherGrammar => "recorded with a different grammar".to_string(),
        SavedReplayError::Bounds(m) | SavedReplayError::Replay(m) => m,
    })
}
