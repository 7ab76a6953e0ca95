//! Why a reduction could not start.

use std::fmt;

use crate::diagnostic::Diagnostic;
use crate::sampler::OutOfBounds;

/// Why a reduction cannot start; a reduction that has started always returns a result, at worst
/// the original input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReductionError {
    /// The input itself does not satisfy the criterion, so there is nothing to keep.
    NotInteresting,
    /// The input's choices do not replay within the bounds it is reduced under.
    OutOfBounds(OutOfBounds),
}

impl fmt::Display for ReductionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReductionError::NotInteresting => {
                write!(f, "the input does not satisfy the criterion to begin with")
            }
            ReductionError::OutOfBounds(e) => write!(f, "the input does not replay: {e}"),
        }
    }
}

impl std::error::Error for ReductionError {}

/// Why an input cannot be the start of a reduction by a target's behaviour: the behaviour the
/// criterion would keep is not there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CriterionRefusal {
    /// Reducing by crash, and the input ran normally.
    RunsNormally,
    /// Reducing by coverage, and the input faulted (its kind and message).
    Faults {
        /// The fault's kind as `.meta` files spell it (`panic`, `crash`, `timeout`, `oom`).
        kind: String,
        /// The fault's one-line description.
        message: String,
    },
}

impl fmt::Display for CriterionRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CriterionRefusal::RunsNormally => write!(
                f,
                "the input does not crash, hang or panic the target (it ran normally); \
                 reduce it with --criterion coverage"
            ),
            CriterionRefusal::Faults { kind, message } => write!(
                f,
                "the input does not run normally ({kind}: {message}); reduce it with \
                 --criterion crash"
            ),
        }
    }
}

impl std::error::Error for CriterionRefusal {}

/// Why [`reduce_recorded`](super::reduce_recorded) left a recorded input unreduced. Callers
/// log it and keep the original, so its text is a line of a log, not a located diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReproducerError {
    /// No reducer can be built for the grammar under the input's bounds.
    Grammar(Diagnostic),
    /// The reduction could not start.
    Reduction(ReductionError),
}

impl fmt::Display for ReproducerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReproducerError::Grammar(d) => f.write_str(&d.message),
            // The input was recorded because it had the property: losing it on a rerun says
            // more about the target than about the input.
            ReproducerError::Reduction(ReductionError::NotInteresting) => write!(
                f,
                "the input no longer has the property when run again (a flaky target?)"
            ),
            ReproducerError::Reduction(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReproducerError {}
