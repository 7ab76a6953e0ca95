//! What a saved or parsed choice sequence stands for: its strict replay.

use std::fmt;

use fast_rands::StdRand;

use super::{OutOfBounds, Sample, Sampler};
use crate::bounds::Bounds;
use crate::choice::Replay;
use crate::grammar::Grammar;

/// Why a sequence has no strict replay.
#[derive(Debug)]
pub enum StrictReplayError {
    /// No sampler can be built for the grammar (it derives no word): its message.
    Sampler(String),
    /// A recorded decision is outside the bounds.
    OutOfBounds(OutOfBounds),
}

impl fmt::Display for StrictReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sampler(message) => f.write_str(message),
            Self::OutOfBounds(e) => write!(f, "{e}"),
        }
    }
}

/// The sample `choices` replays to under `bounds`, strictly: each recorded decision taken as
/// it is or refused. The one place the many readers of saved and parsed sequences (replay,
/// export, seeds, corpus repair, reproducers) agree on what a sequence means. A complete
/// sequence draws nothing fresh; an incomplete one is continued from a fixed seed.
pub fn replay_strict(
    grammar: &Grammar,
    bounds: Bounds,
    choices: &[u32],
) -> Result<Sample, StrictReplayError> {
    let mut sampler =
        Sampler::new(grammar, bounds).map_err(|d| StrictReplayError::Sampler(d.message))?;
    let mut sample = Sample::default();
    sampler
        .sample(
            choices,
            Replay::Strict,
            &mut StdRand::with_seed(0),
            &mut sample,
        )
        .map_err(StrictReplayError::OutOfBounds)?;
    Ok(sample)
}
