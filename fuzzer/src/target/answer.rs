//! Comparing two implementations' answers where their type allows it.
//!
//! The differential oracle's harness is written by `cargo bonsai init` for functions it has
//! never seen: `fn(&str) -> Result<T, E>`, where `T` may be `()`, an AST with `PartialEq`, or
//! a type that cannot be compared at all. The harness must compile in all three cases and
//! compare values in the first two. Rust has no stable specialization, so
//! [`compare_answers!`](crate::compare_answers) picks the comparison by method lookup on
//! references (the lookup tries `&&Answers` before `&Answers`): the `PartialEq + Debug`
//! impl where it applies, else the one that says the answers cannot be compared. The pick
//! happens where the macro is expanded, where `T` is a concrete type.

use std::fmt::Debug;

use super::violation::{Oracle, Violation};

/// The two sides' values, for the comparison lookup in [`compare_answers!`](crate::compare_answers).
pub struct Answers<'a, A, B>(pub &'a A, pub &'a B);

/// What comparing two answers found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// Equal by `PartialEq`.
    Same,
    /// The two answers, in their debug form.
    Different(String, String),
    /// Their types have no `PartialEq` and `Debug` between them.
    NotComparable,
}

/// Picked by [`compare_answers!`](crate::compare_answers) when the answers have `PartialEq`
/// and `Debug`.
pub trait CompareByValue {
    /// Equal or different, with both values' debug forms.
    fn comparison(&self) -> Comparison;
}

impl<A: PartialEq<B> + Debug, B: Debug> CompareByValue for &Answers<'_, A, B> {
    fn comparison(&self) -> Comparison {
        if self.0 == self.1 {
            Comparison::Same
        } else {
            Comparison::Different(format!("{:?}", self.0), format!("{:?}", self.1))
        }
    }
}

/// Picked by [`compare_answers!`](crate::compare_answers) when nothing else applies.
pub trait CannotCompare {
    /// Always `Comparison::NotComparable`.
    fn comparison(&self) -> Comparison;
}

impl<A, B> CannotCompare for Answers<'_, A, B> {
    fn comparison(&self) -> Comparison {
        Comparison::NotComparable
    }
}

/// Compares two values by `PartialEq` where their types have it (and `Debug`), and says
/// `Comparison::NotComparable` where they do not, instead of failing to compile.
#[macro_export]
macro_rules! compare_answers {
    ($ours:expr, $theirs:expr) => {{
        #[allow(unused_imports)]
        use $crate::target::{CannotCompare as _, CompareByValue as _};
        (&&$crate::target::Answers($ours, $theirs)).comparison()
    }};
}

/// The violation for two implementations that both accept an input but answer differently.
/// The class names the two sides only: the values are the input's.
pub fn different_answers(ours: &str, theirs: &str, comparison: Comparison) -> Option<Violation> {
    let Comparison::Different(our_answer, their_answer) = comparison else {
        return None;
    };
    let cut = |text: &str| text.chars().take(200).collect::<String>();
    Some(Violation {
        oracle: Oracle::Differential,
        class: format!("{ours} and {theirs} both accept but answer differently"),
        message: format!(
            "{ours} answers {}, {theirs} answers {}",
            cut(&our_answer),
            cut(&their_answer)
        ),
        texts: vec![
            (format!("{ours} answers"), our_answer),
            (format!("{theirs} answers"), their_answer),
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Opaque;

    #[test]
    fn values_with_partial_eq_are_compared_and_others_are_said_not_comparable() {
        assert_eq!(crate::compare_answers!(&3, &3), Comparison::Same);
        assert_eq!(
            crate::compare_answers!(&vec!["a"], &vec!["b"]),
            Comparison::Different("[\"a\"]".into(), "[\"b\"]".into())
        );
        assert_eq!(crate::compare_answers!(&(), &()), Comparison::Same);
        assert_eq!(
            crate::compare_answers!(&Opaque, &Opaque),
            Comparison::NotComparable
        );
        assert_eq!(
            crate::compare_answers!(&Opaque, &1),
            Comparison::NotComparable
        );
    }

    #[test]
    fn only_different_answers_are_a_violation_and_the_class_holds_no_value() {
        assert_eq!(different_answers("a", "b", Comparison::Same), None);
        assert_eq!(different_answers("a", "b", Comparison::NotComparable), None);
        let found = different_answers(
            "a::f",
            "b::g",
            Comparison::Different("1".into(), "2".into()),
        )
        .unwrap();
        assert_eq!(found.oracle, Oracle::Differential);
        assert_eq!(
            found.class,
            "a::f and b::g both accept but answer differently"
        );
        assert_eq!(found.texts[1], ("b::g answers".into(), "2".into()));
    }
}
