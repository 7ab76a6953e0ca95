//! The differential oracle: a second implementation of the language must agree.

use super::Verdict;
use super::violation::{Oracle, Violation, refusal_stage};

/// Checks that two implementations agree on whether `input` is in the language. `ours` and
/// `theirs` name the two sides for the message (the functions the harness calls). An input
/// either side rejects outright (`Verdict::Reject`: not UTF-8, too large) is not compared.
pub fn differential(ours: (&str, &Verdict), theirs: (&str, &Verdict)) -> Option<Violation> {
    let ((our_name, our_verdict), (their_name, their_verdict)) = (ours, theirs);
    if matches!(our_verdict, Verdict::Reject) || matches!(their_verdict, Verdict::Reject) {
        return None;
    }
    if our_verdict.is_valid() == their_verdict.is_valid() {
        return None;
    }
    let (accepts, refuses, why) = match (our_verdict, their_verdict) {
        (Verdict::Invalid(why), _) => (their_name, our_name, why),
        (_, Verdict::Invalid(why)) => (our_name, their_name, why),
        _ => return None,
    };
    Some(Violation {
        oracle: Oracle::Differential,
        class: format!(
            "only {accepts} accepts; {refuses} refuses{}",
            refusal_stage(why)
        ),
        message: format!("{accepts} accepts the input, {refuses} refuses it: {why}"),
        texts: vec![(format!("{refuses} says"), why.clone())],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_passes_and_disagreement_names_the_side_that_accepted() {
        let no = |m: &str| Verdict::Invalid(m.to_string());
        assert_eq!(
            differential(("a", &Verdict::Valid), ("b", &Verdict::Valid)),
            None
        );
        assert_eq!(differential(("a", &no("x")), ("b", &no("y"))), None);
        assert_eq!(differential(("a", &Verdict::Reject), ("b", &no("y"))), None);
        let found =
            differential(("a", &Verdict::Valid), ("b", &no("parse: too deep at 7"))).unwrap();
        assert_eq!(found.oracle, Oracle::Differential);
        assert_eq!(found.class, "only a accepts; b refuses (parse)");
        assert!(
            found
                .message
                .starts_with("a accepts the input, b refuses it")
        );
        let other_way = differential(("a", &no("bad")), ("b", &Verdict::Valid)).unwrap();
        assert_eq!(other_way.class, "only b accepts; a refuses");
    }
}
