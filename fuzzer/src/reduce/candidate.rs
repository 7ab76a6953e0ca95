//! What a criterion is asked about.

use crate::sampler::Sample;

/// One input that a reducer proposes. `text` is what a target would run; `derivation` is the
/// tree and choices it came from when the reducer built it from the grammar (HDD), and `None`
/// when it is an arbitrary edit of the text (character ddmin), which may lie outside the
/// grammar.
#[derive(Clone, Copy, Debug)]
pub struct Candidate<'a> {
    /// The text the target would run.
    pub text: &'a str,
    /// The derivation `text` was rendered from; `None` when the text is an edit outside the
    /// grammar.
    pub derivation: Option<&'a Sample>,
}

impl<'a> Candidate<'a> {
    /// A candidate known only as text, as character ddmin makes them.
    pub fn text(text: &'a str) -> Self {
        Self {
            text,
            derivation: None,
        }
    }

    /// A candidate built from the grammar; criteria may use the derivation instead of parsing the
    /// text.
    pub fn derived(text: &'a str, derivation: &'a Sample) -> Self {
        Self {
            text,
            derivation: Some(derivation),
        }
    }
}
