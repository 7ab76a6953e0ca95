//! One distinct fault, as it is saved.

use serde::{Deserialize, Serialize};

use super::FaultKind;

/// One distinct fault: one bucket, in ClusterFuzz's sense of a crash state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// Which directory it goes to, and what its bucket was computed from.
    pub kind: FaultKind,
    /// Stable hash of the fault's kind and root cause (see `feedback::signature`): equal
    /// signatures are one bug, saved once.
    pub signature: u64,
    /// One line for the user: the panic message with its location, or what the signal or limit was.
    pub message: String,
    /// What the signature was computed from, in words: the panic's location and function, the
    /// functions of a recursion, the loop a hang did not leave.
    #[serde(default)]
    pub location: String,
    /// The first frames of the target's stack, `function (file:line)`.
    pub frames: Vec<String>,
}
