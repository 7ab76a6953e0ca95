//! What a target says about one input.

/// The target's judgement of an input, the "validity" of Zest and the Bonsai paper.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The input passed every check the target makes (it parses and type-checks, say).
    Valid,
    /// The target processed the input and refused it, with its own message (a type error, a
    /// validation error). Such inputs still earn coverage; restricted fuzzing discards them.
    Invalid(String),
    /// The input lies outside what the target takes at all (not UTF-8, too large). It earns
    /// no coverage and is never saved.
    Reject,
}

impl Verdict {
    /// Whether the target accepted the input; `Invalid` and `Reject` are both not valid.
    pub fn is_valid(&self) -> bool {
        matches!(self, Verdict::Valid)
    }
}
