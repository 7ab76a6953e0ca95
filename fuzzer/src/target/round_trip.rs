//! The round-trip oracle: a printer's output must be read back as the same program.

use std::fmt::Display;

use super::Verdict;
use super::violation::{Oracle, Violation, refusal_stage};

/// Checks that printing what the target accepted gives a text it accepts too, and that
/// printing that text gives it back (a fixed point). `print` is the target's printer (it reads
/// the text itself); `accept` runs the target on a text. Inputs the target did not accept are
/// not checked: a printer owes nothing for a program it never read.
///
/// A printer that fails the fixed point only because it prints the same text differently from
/// one call to the next is told apart (class `the printer is not deterministic`): that is a
/// bug too, but not a lost token. The extra prints that tell it are made only on a violation,
/// so a passing input costs two prints and one run (and a printer whose whims keep the
/// property passes).
pub fn round_trip<E: Display>(
    input: &str,
    verdict: &Verdict,
    mut print: impl FnMut(&str) -> Result<String, E>,
    mut accept: impl FnMut(&str) -> Verdict,
) -> Option<Violation> {
    if !verdict.is_valid() {
        return None;
    }
    let violation = |class: String, message: String, texts: Vec<(&str, String)>| {
        Some(Violation {
            oracle: Oracle::RoundTrip,
            class,
            message,
            texts: texts
                .into_iter()
                .map(|(name, text)| (name.to_string(), text))
                .collect(),
        })
    };
    let first = match print(input) {
        Ok(text) => text,
        Err(error) => {
            let error = error.to_string();
            return violation(
                format!(
                    "the printer refuses what the target accepts{}",
                    refusal_stage(&error)
                ),
                format!("the target accepts the input, but the printer refuses it: {error}"),
                vec![("printer's error", error)],
            );
        }
    };
    match accept(&first) {
        Verdict::Valid => {}
        refused => {
            if let Some(unstable) = not_deterministic(input, &first, &mut print) {
                return violation(
                    unstable.0,
                    unstable.1,
                    vec![("print", first), ("another print", unstable.2)],
                );
            }
            let why = match &refused {
                Verdict::Invalid(message) => message.clone(),
                _ => "rejected".to_string(),
            };
            return violation(
                format!("the print is refused{}", refusal_stage(&why)),
                format!("the target refuses the print of an input it accepts: {why}"),
                vec![("print", first), ("target on the print", why)],
            );
        }
    }
    let second = match print(&first) {
        Ok(text) => text,
        Err(error) => {
            let error = error.to_string();
            return violation(
                format!("the printer refuses its own print{}", refusal_stage(&error)),
                format!("the printer refuses its own print: {error}"),
                vec![("print", first), ("printer's error", error)],
            );
        }
    };
    if second != first {
        if let Some(unstable) = not_deterministic(input, &first, &mut print) {
            return violation(
                unstable.0,
                unstable.1,
                vec![
                    ("print", first),
                    ("second print", second),
                    ("another print", unstable.2),
                ],
            );
        }
        if let Some(unstable) = not_deterministic(&first, &second, &mut print) {
            return violation(
                unstable.0,
                unstable.1,
                vec![
                    ("print", first),
                    ("second print", second),
                    ("another print", unstable.2),
                ],
            );
        }
        let at = first_difference(&first, &second);
        return violation(
            "the print is not a fixed point".to_string(),
            format!(
                "printing the print changes it, first at byte {at}: {:?} became {:?}",
                excerpt(&first, at),
                excerpt(&second, at)
            ),
            vec![("print", first), ("second print", second)],
        );
    }
    None
}

/// Prints `text` once more; if the result differs from `printed`, the printer is not
/// deterministic: its class, message and the other print.
fn not_deterministic<E: Display>(
    text: &str,
    printed: &str,
    print: &mut impl FnMut(&str) -> Result<String, E>,
) -> Option<(String, String, String)> {
    let again = match print(text) {
        Ok(again) => again,
        Err(error) => error.to_string(),
    };
    (again != printed).then(|| {
        (
            "the printer is not deterministic".to_string(),
            "the printer prints the same text differently from one call to the next".to_string(),
            again,
        )
    })
}

fn first_difference(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

/// Up to 40 characters of `text` from byte `at` (moved back to a character boundary).
fn excerpt(text: &str, at: usize) -> String {
    let mut start = at.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    text[start..].chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy language: sums of digits in parentheses; `accept` wants balanced parentheses.
    fn accept(text: &str) -> Verdict {
        let mut depth = 0i32;
        for c in text.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '0'..='9' | '+' | ' ' => {}
                other => return Verdict::Invalid(format!("unexpected '{other}'")),
            }
            if depth < 0 {
                return Verdict::Invalid("unbalanced ')'".into());
            }
        }
        if depth == 0 {
            Verdict::Valid
        } else {
            Verdict::Invalid(format!("{depth} unclosed '('"))
        }
    }

    fn faithful(text: &str) -> Result<String, String> {
        Ok(text.split_whitespace().collect::<Vec<_>>().join(""))
    }

    #[test]
    fn a_faithful_printer_passes_and_rejected_inputs_are_not_checked() {
        assert_eq!(
            round_trip("(1 + 2)", &Verdict::Valid, faithful, accept),
            None
        );
        let lossy = |_: &str| Ok::<_, String>("((".to_string());
        let refused = Verdict::Invalid("no".into());
        assert_eq!(round_trip("(", &refused, lossy, accept), None);
    }

    #[test]
    fn a_print_that_drops_a_parenthesis_is_refused_and_says_so() {
        let drops = |text: &str| Ok::<_, String>(text.replacen(')', "", 1));
        let found = round_trip("(1+(2))", &Verdict::Valid, drops, accept).unwrap();
        assert_eq!(found.oracle, Oracle::RoundTrip);
        assert_eq!(found.class, "the print is refused");
        assert_eq!(found.texts[0], ("print".to_string(), "(1+(2)".to_string()));
        let other = round_trip("((3))", &Verdict::Valid, drops, accept).unwrap();
        assert_eq!(other.class, found.class, "one bug, one class");
    }

    #[test]
    fn a_print_that_changes_when_printed_again_is_not_a_fixed_point() {
        // Adds a space after the first '+' each time it prints.
        let grows = |text: &str| Ok::<_, String>(text.replacen('+', "+ ", 1));
        let found = round_trip("1+2", &Verdict::Valid, grows, accept).unwrap();
        assert_eq!(found.class, "the print is not a fixed point");
        assert_eq!(found.texts.len(), 2);
        assert_eq!(found.texts[1].1, "1+  2");
    }

    #[test]
    fn a_printer_that_refuses_or_is_not_deterministic_is_told_apart() {
        let refuses = |_: &str| Err::<String, _>("print: cannot print at 1:1");
        let found = round_trip("1", &Verdict::Valid, refuses, accept).unwrap();
        assert_eq!(
            found.class,
            "the printer refuses what the target accepts (print)"
        );
        let mut calls = 0;
        let flaky = |text: &str| {
            calls += 1;
            Ok::<_, String>(format!("{text}{}", " ".repeat(calls % 3)))
        };
        let found = round_trip("1", &Verdict::Valid, flaky, accept).unwrap();
        assert_eq!(found.class, "the printer is not deterministic");
    }
}
