//! What kind of fault an execution ended in.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::layout::{CRASHES_DIR, HANGS_DIR};

/// How an execution failed; decides the output directory, the word written to `.meta` files
/// and what the fault's bucket is computed from (`feedback::signature`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// A Rust panic, caught in-process.
    Panic,
    /// A signal other than a stack overflow: abort, segmentation fault, illegal instruction...
    Crash,
    /// The target ran out of stack: a segmentation fault at the stack's guard, or inside a
    /// recursion that filled every frame walked. Its own kind because it is its own class of
    /// bug (unbounded recursion), bucketed by the recursion rather than by the frame the
    /// stack happened to end in, and called the same in every command.
    StackOverflow,
    /// The target ran past `--timeout-ms`.
    Timeout,
    /// The target allocated past `--mem-limit`.
    #[serde(rename = "oom")]
    OutOfMemory,
    /// A wrong answer: the target's printer lost what it read (`target::round_trip`).
    #[serde(rename = "roundtrip")]
    RoundTrip,
    /// A wrong answer: a second implementation disagreed (`target::differential`).
    Differential,
}

impl FaultKind {
    /// Every kind, in the order listings show them.
    pub const ALL: [FaultKind; 7] = [
        FaultKind::Panic,
        FaultKind::Crash,
        FaultKind::StackOverflow,
        FaultKind::Timeout,
        FaultKind::OutOfMemory,
        FaultKind::RoundTrip,
        FaultKind::Differential,
    ];

    /// The directory of the output tree that holds this kind.
    pub fn directory(self) -> &'static str {
        match self {
            FaultKind::Timeout => HANGS_DIR,
            _ => CRASHES_DIR,
        }
    }

    /// The kind a `.meta` file names (`Display`'s words), `None` for any other word.
    pub fn parse(word: &str) -> Option<FaultKind> {
        Self::ALL.into_iter().find(|kind| kind.to_string() == word)
    }

    /// Whether a rerun of its input in a forked child is cheap enough to reduce it: a hang
    /// costs a full timeout per test, and the children run without the memory limit.
    pub fn is_reducible(self) -> bool {
        matches!(
            self,
            FaultKind::Panic
                | FaultKind::Crash
                | FaultKind::StackOverflow
                | FaultKind::RoundTrip
                | FaultKind::Differential
        )
    }

    /// Whether the target gave a wrong answer rather than failing to give one.
    pub fn is_wrong_answer(self) -> bool {
        matches!(self, FaultKind::RoundTrip | FaultKind::Differential)
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FaultKind::Panic => "panic",
            FaultKind::Crash => "crash",
            FaultKind::StackOverflow => "stack-overflow",
            FaultKind::Timeout => "timeout",
            FaultKind::OutOfMemory => "oom",
            FaultKind::RoundTrip => "roundtrip",
            FaultKind::Differential => "differential",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_word() {
        for kind in FaultKind::ALL {
            assert_eq!(FaultKind::parse(&kind.to_string()), Some(kind));
        }
        assert_eq!(FaultKind::parse("segfault"), None);
        for kind in FaultKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(
                json,
                format!("\"{kind}\""),
                "JSON says what .meta files say"
            );
        }
    }
}
