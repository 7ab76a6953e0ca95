//! Choice sequences. An input is the sequence of decisions the sampler made; replaying
//! the sequence gives the same input, and editing it gives a mutation that is always
//! syntactically valid.

mod cursor;
mod own_words;
mod saved;
mod sequence;

pub use cursor::{
    Allowed, ChoiceCursor, Rejected, Replay, UNBOUNDED, UNIFORM_COUNTS, count_from_raw,
};
pub use own_words::{OwnWord, OwnWords};
pub use saved::{ChoicesFileError, OtherGrammar, SavedChoices};
pub use sequence::ChoiceSequence;
