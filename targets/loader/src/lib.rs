//! Bonsai fuzzing its own grammar loader: the input is a grammar file in the native format
//! (`grammars/bonsai.ebnf` describes it), read and lowered exactly as `bonsai grammar check`
//! reads a file.
//!
//! Why the loader's sources are compiled here a second time, through `#[path]`, rather than
//! called in `bonsai-grammar`: coverage comes from SanitizerCoverage, which the rustc wrapper
//! adds per crate (scripts/instrumented-crates), and the engine's crates (that one included,
//! since the engine's sampler and parser run it on every input) must never be instrumented
//! (their own branches would flood the map). Compiled as modules of this crate, the same files
//! are instrumented here and nowhere else. They need nothing from the toolkit but its
//! diagnostics, which come along the same way.
//!
//! The verdict: a grammar the loader accepts is valid, one it refuses is invalid with the
//! loader's first error. Besides panics, stack overflows and hangs, one wrong answer is a
//! fault: an error located outside the file (a line or column past its end), since every
//! message a user sees must point into the file it names.

use bonsai::target::{Target, Verdict};

#[path = "../../../fuzzer/grammar/src/diagnostic.rs"]
#[allow(dead_code)]
mod diagnostic;
#[path = "../../../fuzzer/grammar/src/grammar/mod.rs"]
#[allow(dead_code, unused_imports)]
mod grammar;

use diagnostic::{Diagnostics, SourceFile};

#[derive(Default)]
pub struct Loader;

impl Target for Loader {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(text) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match load(text) {
            Ok(()) => Verdict::Valid,
            Err(message) => Verdict::Invalid(message),
        }
    }
}

/// Loads `text` as the grammar file `input.ebnf`; on refusal, the first error as the user
/// would read it. Panics when an error points outside the file.
pub fn load(text: &str) -> Result<(), String> {
    let source = SourceFile::new("input.ebnf", text);
    match grammar::Grammar::from_source(&source) {
        Ok(_) => Ok(()),
        Err(diagnostics) => {
            check_locations(&diagnostics, text);
            let first = diagnostics.errors().next().map(ToString::to_string);
            Err(first.unwrap_or_else(|| "refused without an error".to_string()))
        }
    }
}

/// Every located diagnostic must point at a line of the file and a column of that line (one
/// past its end included, where an unfinished construct is reported).
fn check_locations(diagnostics: &Diagnostics, text: &str) {
    let lines: Vec<&str> = text.split('\n').collect();
    for diagnostic in &diagnostics.0 {
        let Some(location) = &diagnostic.location else {
            continue;
        };
        let line = location
            .line
            .checked_sub(1)
            .and_then(|index| lines.get(index));
        let Some(line) = line else {
            panic!("{diagnostic}: line {} of {}", location.line, lines.len());
        };
        let columns = line.chars().count() + 1;
        assert!(
            (1..=columns).contains(&location.column),
            "{diagnostic}: column {} of a line of {} characters",
            location.column,
            columns - 1
        );
    }
}
