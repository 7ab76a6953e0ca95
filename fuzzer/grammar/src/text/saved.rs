//! The text a saved `.choices` file stands for: a strict replay under its recorded bounds.
//!
//! Replay, export and corpus repair all turn a saved sequence back into its text; one function
//! keeps them agreeing on what "replays" means (same grammar, strict mode, recorded bounds).

use crate::choice::SavedChoices;
use crate::grammar::Grammar;
use crate::sampler::{StrictReplayError, replay_strict};

/// Why a saved sequence has no text under a grammar; each caller words it for its own report.
#[derive(Debug)]
pub enum SavedReplayError {
    /// The sequence was recorded with another grammar (its fingerprint differs).
    OtherGrammar,
    /// The recorded bounds cannot be sampled under (the sampler's message).
    Bounds(String),
    /// The sequence does not replay strictly (the sampler's message).
    Replay(String),
}

/// The text `saved` replays to under `grammar`, strictly and under its recorded bounds.
pub fn replay_saved(grammar: &Grammar, saved: &SavedChoices) -> Result<String, SavedReplayError> {
    saved
        .check_grammar(grammar.fingerprint())
        .map_err(|_| SavedReplayError::OtherGrammar)?;
    let sample =
        replay_strict(grammar, saved.bounds, saved.choices.as_slice()).map_err(|e| match e {
            StrictReplayError::Sampler(message) => SavedReplayError::Bounds(message),
            StrictReplayError::OutOfBounds(e) => SavedReplayError::Replay(e.to_string()),
        })?;
    Ok(super::render_words(grammar, &sample.tree, &saved.words))
}
