//! The "interesting" test a reduction must keep passing.

use super::Candidate;

/// A property of inputs that reduction preserves: the same crash, at least the same coverage,
/// or a synthetic property such as "contains this text".
///
/// Reducers only ever ask about candidates; counting, caching and limits belong to the
/// [`super::Judge`] wrapped around the criterion, so that a criterion is just the test itself
/// and a new one (a target's coverage, a crash signature) plugs in with one `impl`.
pub trait Criterion {
    /// Whether `candidate` still has the property.
    fn holds(&mut self, candidate: &Candidate<'_>) -> bool;

    /// Whether the answer can depend on more than the text, that is on the derivation tree.
    /// A criterion that runs a target sees only text, so its answers are cached by text; one
    /// that inspects the tree is cached by text and choices, since one text can have several
    /// derivations.
    fn reads_derivation(&self) -> bool {
        false
    }
}

/// Any closure over candidates is a criterion about text.
impl<F: FnMut(&Candidate<'_>) -> bool> Criterion for F {
    fn holds(&mut self, candidate: &Candidate<'_>) -> bool {
        self(candidate)
    }
}

/// A criterion that inspects derivation trees, from a closure.
pub struct OnDerivation<F>(pub F);

impl<F: FnMut(&Candidate<'_>) -> bool> Criterion for OnDerivation<F> {
    fn holds(&mut self, candidate: &Candidate<'_>) -> bool {
        (self.0)(candidate)
    }

    fn reads_derivation(&self) -> bool {
        true
    }
}
