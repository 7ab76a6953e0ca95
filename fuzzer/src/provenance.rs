//! Where an input came from: the mutation that made it. Set by the mutators and the loop, read
//! by the feedbacks that save inputs, so it sits below both.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Where an input came from, as written in its metadata line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mutation {
    /// Loaded from a seed directory or the run's own queue.
    #[default]
    Seed,
    /// Sampled from fresh random choices, as when the corpus is empty.
    Generate,
    /// Random overwrites of raw choices (Zest's havoc).
    Havoc,
    /// One subtree sampled again with fresh choices.
    Regenerate,
    /// A subtree of the same rule taken from another corpus entry.
    Splice,
    /// One item of a repetition removed.
    DeleteItem,
    /// One item of a repetition repeated.
    DuplicateItem,
    /// A subtree replaced by its minimal derivation.
    Shrink,
    /// A recursion repeated: a subtree nested inside itself again.
    Recursion,
    /// A smaller version of a new entry, tried while trimming it (`fuzz::trim`): what a fault
    /// found that way says it came from.
    Trim,
    /// Found by another client of a multi-core or multi-machine run and received over LLMP.
    Import,
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mutation::Seed => "seed",
            Mutation::Generate => "generate",
            Mutation::Havoc => "havoc",
            Mutation::Regenerate => "regenerate",
            Mutation::Splice => "splice",
            Mutation::DeleteItem => "delete-item",
            Mutation::DuplicateItem => "duplicate-item",
            Mutation::Shrink => "shrink",
            Mutation::Recursion => "recursion",
            Mutation::Trim => "trim",
            Mutation::Import => "import",
        })
    }
}

/// State metadata: how the input being executed was made. Mutators set it; the feedbacks copy
/// it into the metadata of what they keep. LibAFL's scheduled mutator does not say which of
/// its mutators ran, and the feedback sees only the state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastMutation {
    /// The mutation that produced the input.
    pub mutation: Mutation,
    /// For seeds replayed from the run's own queue: the number they already have there.
    pub existing: Option<u32>,
    /// Such a seed lacks a readable `.meta`: keep it whatever its coverage, so that it is written.
    pub repair: bool,
}
libafl_bolts::impl_serdeany!(LastMutation);
