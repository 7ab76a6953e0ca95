//! A mutator that a run can switch off: ablations measure what each operator earns.

use std::borrow::Cow;

use libafl::corpus::CorpusId;
use libafl::mutators::{MutationResult, Mutator};
use libafl_bolts::{Error, Named};

/// The names `bonsai fuzz --mutators` takes, as each mutator is [`Named`].
pub const MUTATOR_NAMES: &[&str] = &[
    "havoc",
    "regenerate",
    "splice",
    "delete-item",
    "duplicate-item",
    "shrink",
    "recursion",
];

/// `inner`, or nothing at all when switched off: the scheduled mutator still picks it, and
/// the stage skips the child, so the other operators keep their relative shares.
pub struct Switched<M> {
    inner: M,
    on: bool,
}

impl<M: Named> Switched<M> {
    /// On when `enabled` is `None` (every mutator) or names this one.
    pub fn new(inner: M, enabled: Option<&[String]>) -> Self {
        let on = enabled.is_none_or(|names| names.iter().any(|n| n == inner.name()));
        Self { inner, on }
    }
}

impl<M: Named> Named for Switched<M> {
    fn name(&self) -> &Cow<'static, str> {
        self.inner.name()
    }
}

impl<I, S, M: Mutator<I, S>> Mutator<I, S> for Switched<M> {
    fn mutate(&mut self, state: &mut S, input: &mut I) -> Result<MutationResult, Error> {
        if !self.on {
            return Ok(MutationResult::Skipped);
        }
        self.inner.mutate(state, input)
    }

    fn post_exec(&mut self, state: &mut S, id: Option<CorpusId>) -> Result<(), Error> {
        if self.on {
            self.inner.post_exec(state, id)?;
        }
        Ok(())
    }
}
