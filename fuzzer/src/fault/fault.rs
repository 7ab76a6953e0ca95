//! One distinct fault, as it is saved.

use serde::{Deserialize, Serialize};

use super::FaultKind;

/// One distinct fault.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    pub kind: FaultKind,
    pub signature: u64,
    pub message: String,
    /// The first frames of the target's stack, `function (file:line)`.
    pub frames: Vec<String>,
}
