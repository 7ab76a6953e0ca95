//! The text a saved `.choices` file stands for: a strict replay under its recorded bounds.
//!
//! Replay, export and corpus repair all turn a saved sequence back into its text; one function
//! keeps them agreeing on what "replays" means (same grammar, strict mode, recorded bounds).

use libafl_bolts::rands::StdRand;

use crate::choice::{Replay, SavedChoices};
use crate::grammar::Grammar;
use crate::sampler::{Sample, Sampler};

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
    if saved.grammar != grammar.fingerprint() {
        return Err(SavedReplayError::OtherGrammar);
    }
    let mut sampler =
        Sampler::new(grammar, saved.bounds).map_err(|d| SavedReplayError::Bounds(d.message))?;
    let mut sample = Sample::default();
    sampler
        .sample(
            saved.choices.as_slice(),
            Replay::Strict,
            &mut StdRand::with_seed(0),
            &mut sample,
        )
        .map_err(|e| SavedReplayError::Replay(e.to_string()))?;
    Ok(super::render(grammar, &sample.tree))
}
