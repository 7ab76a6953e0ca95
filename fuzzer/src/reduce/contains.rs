//! The synthetic criterion "the text still contains these strings".

use super::{Candidate, Criterion};

/// Holds while the text contains every one of the needles. Useful on its own (cut a program
/// down to the smallest one that still uses a construct, for a bug report or a grammar test) and
/// as a cheap stand-in for a target in tests and benchmarks.
#[derive(Clone, Debug)]
pub struct ContainsText {
    needles: Vec<String>,
}

impl ContainsText {
    /// Holds when the text contains every one of `needles`, case-sensitively.
    pub fn new(needles: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            needles: needles.into_iter().map(Into::into).collect(),
        }
    }

    /// The strings a candidate must contain, in the order given.
    pub fn needles(&self) -> &[String] {
        &self.needles
    }

    /// The needles that `text` lacks.
    pub fn missing<'s>(&'s self, text: &str) -> impl Iterator<Item = &'s str> {
        self.needles
            .iter()
            .filter(move |n| !text.contains(n.as_str()))
            .map(String::as_str)
    }
}

impl Criterion for ContainsText {
    fn holds(&mut self, candidate: &Candidate<'_>) -> bool {
        self.missing(candidate.text).next().is_none()
    }
}
