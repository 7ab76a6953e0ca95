//! What a criterion is asked about.

use crate::sampler::Sample;

/// One input that a reducer proposes. `text` is what a target would run; `derivation` is the
/// tree and choices it came from when the reducer built it from the grammar (HDD), and `None`
/// when it is an arbitrary edit of the text (character ddmin), which may lie outside the
/// grammar.
#[derive(Clone, Copy, Debug)]
pub struct Candidate<'a> {
    pub text: &'a str,
    pub derivation: Option<&'a Sample>,
}

impl<'a> Candidate<'a> {
    pub fn text(text: &'a str) -> Self {
        Self {
            text,
            derivation: None,
        }
    }

    pub fn derived(text: &'a str, derivation: &'a Sample) -> Self {
        Self {
            text,
            derivation: Some(derivation),
        }
    }
}
