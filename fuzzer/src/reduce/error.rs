//! Why a reduction could not start.

use std::fmt;

use crate::sampler::OutOfBounds;

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
    Faults { kind: String, message: String },
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
