//! What kind of fault an execution ended in.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::layout::{CRASHES_DIR, HANGS_DIR};

/// How an execution failed; decides the output directory and the word written to `.meta` files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FaultKind {
    /// A Rust panic, caught in-process.
    Panic,
    /// A signal: abort, segmentation fault, stack overflow, illegal instruction...
    Crash,
    /// The target ran past `--timeout-ms`.
    Timeout,
    /// The target allocated past `--mem-limit`.
    OutOfMemory,
}

impl FaultKind {
    /// The directory of the output tree that holds this kind.
    pub fn directory(self) -> &'static str {
        match self {
            FaultKind::Timeout => HANGS_DIR,
            _ => CRASHES_DIR,
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FaultKind::Panic => "panic",
            FaultKind::Crash => "crash",
            FaultKind::Timeout => "timeout",
            FaultKind::OutOfMemory => "oom",
        })
    }
}
