//! How to fuzz your own compiler with Bonsai, using only its public target API.
//!
//! The "compiler" here is [`letcalc`]: a tiny language of integer arithmetic with `let`
//! bindings (its grammar is `letcalc.ebnf` beside this crate). It parses, resolves names and
//! evaluates, and each phase can refuse a program, as a real compiler's phases do. Replace it
//! with a call into your own compiler; the rest of this file is all the glue Bonsai needs:
//!
//! 1. a type implementing [`bonsai::target::Target`], whose `run` returns a [`Verdict`];
//! 2. `bonsai::target_main!` in `src/main.rs`, which makes the binary `bonsai-<name>`;
//! 3. the crate names to instrument, listed in `scripts/instrumented-crates`.
//!
//! See README.md in this directory for building, fuzzing and checking instrumentation.

pub mod letcalc;

use bonsai::target::{Target, Verdict};

/// The target: one run compiles and evaluates one program.
///
/// It keeps no state between runs. If your compiler has expensive set-up (a standard library
/// to load, options to build), do it once in the constructor and keep it in the struct.
#[derive(Default)]
pub struct Example;

impl Target for Example {
    fn run(&mut self, input: &[u8]) -> Verdict {
        // Inputs the compiler cannot take at all are rejected, not judged invalid: they earn
        // no coverage and are never kept.
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match letcalc::run(source) {
            Ok(_) => Verdict::Valid,
            // Start the reason with the phase that refused the input ("parse: ...") so that
            // `bonsai validity` can show where a grammar's inputs fail.
            Err(error) => Verdict::Invalid(error.to_string()),
        }
    }

    /// What the program prints: stored with the corpus, so it doubles as golden tests.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match letcalc::run(source) {
            Ok(value) => format!("valid\n{value}"),
            Err(error) => format!("invalid: {error}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(source: &str) -> Verdict {
        Example.run(source.as_bytes())
    }

    #[test]
    fn programs_that_evaluate_are_valid() {
        assert_eq!(verdict("print 1 + 2 * 3;"), Verdict::Valid);
        assert_eq!(
            verdict("let a = 4;\nlet b = let c = a - 1 in c * c;\nprint b / a;"),
            Verdict::Valid
        );
        assert_eq!(
            Example.output(b"let x = 7; print -x * (2 + 1);"),
            "valid\n-21"
        );
    }

    #[test]
    fn each_phase_refuses_with_its_own_prefix() {
        assert_eq!(
            verdict("print (1 + ;"),
            Verdict::Invalid("parse: 1:12: expected a number, a name, '(' or '-'".into())
        );
        assert_eq!(
            verdict("let a = 1;\nprint a + b;"),
            Verdict::Invalid("scope: 2:11: 'b' is not bound".into())
        );
        assert_eq!(
            verdict("print let z = 0 in 5 / z;"),
            Verdict::Invalid("eval: 1:22: division by zero".into())
        );
        assert_eq!(
            verdict("print 9999 * 9999 * 9999 * 9999 * 9999;"),
            Verdict::Invalid("eval: 1:33: overflow".into())
        );
    }

    #[test]
    fn bindings_are_scoped() {
        // `c` is bound only inside its `let ... in`.
        assert!(matches!(
            verdict("let a = let c = 1 in c;\nprint c;"),
            Verdict::Invalid(r) if r.starts_with("scope:")
        ));
        // A later `let` shadows an earlier one.
        assert_eq!(
            Example.output(b"let a = 1; let a = a + 1; print a;"),
            "valid\n2"
        );
    }

    #[test]
    fn non_utf8_input_is_rejected() {
        assert_eq!(Example.run(&[0xff, 0xfe]), Verdict::Reject);
    }
}
