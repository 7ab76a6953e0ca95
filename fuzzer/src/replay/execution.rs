//! What one run of the target on one input did.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::feedback::Fault;
use crate::target::Verdict;

/// How an execution ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The target accepted the input.
    Valid,
    /// The target processed the input and refused it; the message is its reason.
    Invalid,
    /// The input lies outside what the target takes at all.
    Reject,
    /// The target panicked (the message is the panic's).
    Panic,
    /// The child died of a signal other than the timer's (abort, segfault), or ended without
    /// reporting.
    Crash,
    /// The target ran out of stack (`FaultKind::StackOverflow`).
    #[serde(rename = "stack-overflow")]
    StackOverflow,
    /// The run went past the timeout and the child was killed.
    Timeout,
    /// The target's printer lost what it read (`target::round_trip`).
    #[serde(rename = "roundtrip")]
    RoundTrip,
    /// A second implementation disagreed (`target::differential`).
    Differential,
    /// The input could not be run at all (no fork, no shared page, ...).
    Error,
}

impl Outcome {
    /// The lower-case name used in `manifest.json` and in printed reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Valid => "valid",
            Outcome::Invalid => "invalid",
            Outcome::Reject => "reject",
            Outcome::Panic => "panic",
            Outcome::Crash => "crash",
            Outcome::StackOverflow => "stack-overflow",
            Outcome::Timeout => "timeout",
            Outcome::RoundTrip => "roundtrip",
            Outcome::Differential => "differential",
            Outcome::Error => "error",
        }
    }

    /// Whether the run ended in a fault that `bonsai fuzz` would save (a panic, a crash, a
    /// timeout, a wrong answer); an `Error` is a failure of the harness, not of the target.
    pub fn is_fault(self) -> bool {
        matches!(
            self,
            Outcome::Panic
                | Outcome::Crash
                | Outcome::StackOverflow
                | Outcome::Timeout
                | Outcome::RoundTrip
                | Outcome::Differential
        )
    }

    /// Whether the target returned a verdict.
    pub fn ran_normally(self) -> bool {
        matches!(self, Outcome::Valid | Outcome::Invalid | Outcome::Reject)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one input did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    /// How the run ended.
    pub outcome: Outcome,
    /// The target's message for `invalid`, the panic message, what a crash was (named as
    /// `bonsai fuzz` names it, `feedback::describe_signal`), `timed
    /// out`, or why the input could not be run.
    pub message: String,
    /// Indices of the edge counters the input hit, ascending. Empty when the child died.
    pub edges: Vec<u32>,
    /// [`crate::target::Target::output`] of the input, when asked for and the target returned.
    pub output: Option<String>,
    /// For a panic, crash or timeout: its kind and signature, as `bonsai fuzz` files it in
    /// `crashes/*.meta` and `hangs/*.meta`, with the symbolized frames.
    pub fault: Option<Fault>,
}

impl Execution {
    /// A run that could not take place, with why; no edges, no fault.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            outcome: Outcome::Error,
            message: message.into(),
            edges: Vec::new(),
            output: None,
            fault: None,
        }
    }

    /// Whether the target returned the verdict `Valid`.
    pub fn is_valid(&self) -> bool {
        self.outcome == Outcome::Valid
    }

    /// The target's verdict, when it returned one.
    pub fn verdict(&self) -> Option<Verdict> {
        match self.outcome {
            Outcome::Valid => Some(Verdict::Valid),
            Outcome::Invalid => Some(Verdict::Invalid(self.message.clone())),
            Outcome::Reject => Some(Verdict::Reject),
            _ => None,
        }
    }
}
