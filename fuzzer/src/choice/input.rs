//! The fuzzer's input type: a choice sequence and the bounds it is meant for.

use std::hash::{Hash, Hasher};

use libafl::inputs::Input;
use libafl_bolts::HasLen;
use serde::{Deserialize, Serialize};

use super::{ChoiceSequence, OwnWords};
use crate::bounds::Bounds;

/// What LibAFL stores, schedules and mutates. The text is not part of it: the text is a
/// function of the choices (through the sampler and the layout pass), so storing both would
/// only let them drift apart.
///
/// Inputs in the corpus are normalized (the sampler's own record of what it decided), so they
/// replay strictly to the same tree. Mutants are not: a mutator writes raw values and the
/// harness replays them in repairing mode, and only the normalized result is ever saved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChoiceInput {
    /// The decisions, normalized for corpus entries, raw for mutants not yet replayed.
    pub choices: ChoiceSequence,
    /// The bounds the sequence was generated under; `None` only for a default input, which
    /// consumers read under the campaign's own bounds.
    pub bounds: Option<Bounds>,
    /// Words of its own that the text says instead of some pool values (an imported seed's
    /// names); empty for generated inputs. Mutants inherit them with the choices.
    pub words: OwnWords,
}

impl ChoiceInput {
    /// An input recorded under `bounds`; `choices` are taken as they are, not normalized.
    pub fn new(choices: ChoiceSequence, bounds: Bounds) -> Self {
        Self {
            choices,
            bounds: Some(bounds),
            words: OwnWords::default(),
        }
    }

    /// The same input speaking `words` for the pool values they stand in for.
    pub fn with_words(mut self, words: OwnWords) -> Self {
        self.words = words;
        self
    }
}

/// Two inputs are the same input when they make the same decisions in the same words.
impl Hash for ChoiceInput {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.choices.hash(state);
        self.words.hash(state);
    }
}

impl Input for ChoiceInput {}

/// Length-aware schedulers (LibAFL's minimizers) weigh inputs by this: the number of decisions
/// is the natural size of a generated input.
impl HasLen for ChoiceInput {
    fn len(&self) -> usize {
        self.choices.len()
    }
}
