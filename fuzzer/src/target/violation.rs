//! A wrong answer: what an oracle saw when the target's output broke a property it must keep.

use serde::{Deserialize, Serialize};

use crate::fault::FaultKind;

/// Which property a [`Violation`] broke; each is a fault kind of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Oracle {
    /// Printing what the target read gives a text it accepts, and printing that text gives it
    /// back (`round_trip`).
    RoundTrip,
    /// A second implementation of the language agrees on accept or reject (`differential`).
    Differential,
}

impl Oracle {
    /// The fault kind a violation is saved and listed as.
    pub fn fault_kind(self) -> FaultKind {
        match self {
            Oracle::RoundTrip => FaultKind::RoundTrip,
            Oracle::Differential => FaultKind::Differential,
        }
    }
}

/// A wrong answer, with what a user needs to see it: the texts the oracle compared.
///
/// Why a `class` apart from the message: the message names this input's words and positions,
/// while one bug (a printer that drops the parentheses of one construct) violates the property
/// on thousands of inputs, each with its own message. The class is what stays the same, and
/// the bucket is made of it, so that the bug is saved once.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// Which oracle saw it.
    pub oracle: Oracle,
    /// The broken property, and the stage of the refusal where there is one (see
    /// [`refusal_stage`]).
    pub class: String,
    /// One line for the user.
    pub message: String,
    /// The texts behind the verdict, in the order the oracle made them: the print, the second
    /// print, the other implementation's answer.
    pub texts: Vec<(String, String)>,
}

impl Violation {
    /// The fault kind it is saved and listed as.
    pub fn fault_kind(&self) -> FaultKind {
        self.oracle.fault_kind()
    }
}

/// What of a refusal's message goes into a class: its stage (`parse`, `type`, see
/// [`split_stage`](super::split_stage)), and nothing else. Messages quote the input's words
/// and positions, and no masking catches a word printed bare, so a class made of the message
/// would make one bug as many buckets as inputs (the rule `feedback::signature` keeps for
/// panics too).
pub fn refusal_stage(message: &str) -> String {
    match super::split_stage(message) {
        (super::UNSTAGED, _) => String::new(),
        (stage, _) => format!(" ({stage})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_keeps_the_stage_and_drops_the_message() {
        assert_eq!(refusal_stage("type: expected `int` at 3:17"), " (type)");
        assert_eq!(refusal_stage("expected ')' at 3:17"), "");
    }
}
