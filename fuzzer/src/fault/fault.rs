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
    /// For a stack overflow, and a hang inside a recursion: the functions that recur on its
    /// stack, sorted. Empty otherwise. Always serialized: a `Fault` travels in the fuzzer's
    /// state across restarts in postcard, which cannot skip a field (`.meta` files write a
    /// `FaultRecord`, which leaves it out when empty).
    #[serde(default)]
    pub recursion: Vec<String>,
    /// For a wrong answer: the texts the oracle compared, named (`print`, `second print`, the
    /// other side's message). Empty otherwise; always serialized, as `recursion`.
    #[serde(default)]
    pub texts: Vec<(String, String)>,
}

impl Fault {
    /// Whether `other` is the same bug: the same bucket, or, for stack overflows and hangs in
    /// a recursion, one recursion (see [`one_recursion`]). A reduction keeps this, not the
    /// signature: a smaller input often nests through fewer kinds of construct, and so recurs
    /// through fewer functions, without being another bug.
    pub fn same_bug(&self, other: &Fault) -> bool {
        self.kind == other.kind
            && (self.signature == other.signature
                || one_recursion(&self.recursion, &other.recursion))
    }
}

/// Whether two faults' recursions (sorted function lists) are one recursion: at least half
/// the functions of the shorter recur in the other too.
///
/// Why not equal sets: a parser without a depth limit overflows through whatever the input
/// nests, and each mix of constructs (parentheses in calls in arrow functions, ...) recurs
/// through its own set of functions. Hashing the set made one missing limit fifteen buckets on
/// oxc. A hang in a slow recursion is sampled wherever the timer lands: in the recursion
/// alone, or in it and the formatting it calls. Two recursions of different passes (a
/// parser's and a type checker's) share no function, so they stay apart.
pub fn one_recursion(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return false;
    }
    let shared = short
        .iter()
        .filter(|f| long.binary_search(f).is_ok())
        .count();
    2 * shared >= short.len()
}

/// The stack overflow through `functions` that the tests of bucketing, resuming and listing
/// build, so they all build it alike.
#[cfg(test)]
impl Fault {
    pub(crate) fn stack_overflow(signature: u64, functions: &[&str]) -> Self {
        Self {
            kind: FaultKind::StackOverflow,
            signature,
            message: "the target overflowed its stack".into(),
            location: format!("recursion through {}", functions.join(", ")),
            frames: Vec::new(),
            recursion: functions.iter().map(|f| f.to_string()).collect(),
            texts: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn recursions_sharing_half_the_shorter_are_one_and_disjoint_ones_are_not() {
        let parens = names(&["parse_expr", "parse_unary", "parse_primary", "parse_paren"]);
        let calls = names(&[
            "parse_expr",
            "parse_unary",
            "parse_primary",
            "parse_call",
            "parse_arguments",
        ]);
        let scope = names(&["resolve_expr", "resolve_stmt"]);
        assert!(one_recursion(&parens, &calls));
        assert!(one_recursion(&calls, &parens));
        assert!(!one_recursion(&parens, &scope));
        assert!(!one_recursion(&[], &parens), "no recursion is no evidence");
        let one_shared = names(&["parse_expr", "lower_a", "lower_b", "lower_c"]);
        assert!(
            !one_recursion(&one_shared, &parens),
            "one function in four is not enough"
        );
    }

    /// A `Fault` is part of the fuzzer's state (an entry's metadata, the pending fault), which
    /// LibAFL carries across restarts in postcard: a field skipped when empty made every
    /// restarted fuzzing process fail to read its state back.
    #[test]
    fn a_fault_reads_back_from_postcard_as_the_restarted_fuzzer_reads_it() {
        for recursion in [Vec::new(), names(&["parse_expr", "parse_paren"])] {
            let fault = Fault {
                kind: FaultKind::StackOverflow,
                signature: 9,
                message: "m".into(),
                location: "l".into(),
                frames: vec!["f".into()],
                recursion,
                texts: Vec::new(),
            };
            let bytes = postcard::to_allocvec(&(fault.clone(), 7u8)).unwrap();
            assert_eq!(
                postcard::from_bytes::<(Fault, u8)>(&bytes).unwrap(),
                (fault, 7)
            );
        }
    }

    #[test]
    fn the_same_bug_is_the_same_bucket_or_one_recursion_of_stack_overflows() {
        let fault = |kind, signature, recursion: &[&str]| Fault {
            kind,
            signature,
            message: String::new(),
            location: String::new(),
            frames: Vec::new(),
            recursion: names(recursion),
            texts: Vec::new(),
        };
        let parens = fault(FaultKind::StackOverflow, 1, &["parse_expr", "parse_paren"]);
        let arrays = fault(FaultKind::StackOverflow, 2, &["parse_expr", "parse_array"]);
        let types = fault(FaultKind::StackOverflow, 3, &["check_type", "check_list"]);
        assert!(parens.same_bug(&arrays));
        assert!(!parens.same_bug(&types));
        let hang = fault(FaultKind::Timeout, 4, &["parse_expr", "parse_paren"]);
        assert!(!parens.same_bug(&hang), "another kind is another bug");
        let slow = fault(FaultKind::Timeout, 7, &["parse_expr", "fmt"]);
        assert!(hang.same_bug(&slow), "hangs in one recursion are one bug");
        let panic = fault(FaultKind::Panic, 5, &[]);
        assert!(panic.same_bug(&panic.clone()));
        assert!(!panic.same_bug(&fault(FaultKind::Panic, 6, &[])));
    }
}
