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
