//! Regexes, as regex terminals and as pool sources: parsed by regex-syntax, with what a
//! generator cannot honour rejected at the column where the user wrote it.
//!
//! Parsing goes through the AST rather than straight to HIR because HIR has no positions: an
//! anchor or an oversized count found only in HIR could be reported at the regex's first
//! character, not at the offending one.

use regex_syntax::ast::{self, AssertionKind, Ast, RepetitionKind, RepetitionRange};
use regex_syntax::hir::Hir;
use regex_syntax::hir::translate::Translator;

/// The largest count `{a,b}` may name, in regexes and in the grammar's own `{a,b}`. A count
/// only says how many items a repetition may have beyond what n allows, so no real grammar
/// needs more; larger values are typos that would make a single input gigabytes long.
pub const MAX_REPETITION_COUNT: u32 = 65_535;

/// A fault at a byte offset inside the pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegexError {
    pub offset: usize,
    pub message: String,
}

pub fn parse(pattern: &str) -> Result<Hir, RegexError> {
    let ast = ast::parse::Parser::new()
        .parse(pattern)
        .map_err(|e| RegexError {
            offset: e.span().start.offset,
            message: format!("invalid regex: {}", e.kind()),
        })?;
    ast::visit(&ast, Unsupported { pattern })?;
    Translator::new()
        .translate(pattern, &ast)
        .map_err(|e| RegexError {
            offset: e.span().start.offset,
            message: format!("invalid regex: {}", e.kind()),
        })
}

/// Finds the first construct that a regex can express but a generator cannot produce.
struct Unsupported<'a> {
    pattern: &'a str,
}

impl ast::Visitor for Unsupported<'_> {
    type Output = ();
    type Err = RegexError;

    fn finish(self) -> Result<(), RegexError> {
        Ok(())
    }

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), RegexError> {
        match ast {
            Ast::Assertion(assertion) => {
                let span = assertion.span;
                let what = match assertion.kind {
                    AssertionKind::StartLine
                    | AssertionKind::EndLine
                    | AssertionKind::StartText
                    | AssertionKind::EndText => "anchor",
                    _ => "word boundary",
                };
                Err(RegexError {
                    offset: span.start.offset,
                    message: format!(
                        "{what} '{}' is not supported in a regex: a generated token has no surrounding text to anchor to",
                        &self.pattern[span.start.offset..span.end.offset]
                    ),
                })
            }
            Ast::Repetition(repetition) => {
                let largest = match &repetition.op.kind {
                    RepetitionKind::Range(
                        RepetitionRange::Exactly(n)
                        | RepetitionRange::AtLeast(n)
                        | RepetitionRange::Bounded(_, n),
                    ) => *n,
                    _ => 0,
                };
                if largest > MAX_REPETITION_COUNT {
                    let span = repetition.op.span;
                    return Err(RegexError {
                        offset: span.start.offset,
                        message: format!(
                            "repetition count '{}' is too large; counts are at most {MAX_REPETITION_COUNT}",
                            &self.pattern[span.start.offset..span.end.offset]
                        ),
                    });
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset_of_error(pattern: &str) -> (usize, String) {
        let e = parse(pattern).unwrap_err();
        (e.offset, e.message)
    }

    #[test]
    fn anchors_are_reported_where_they_are_written() {
        let (offset, message) = offset_of_error("abc$");
        assert_eq!(offset, 3);
        assert!(message.starts_with("anchor '$'"), "{message}");
        let (offset, message) = offset_of_error("x(y|\\bz)");
        assert_eq!(offset, 4);
        assert!(message.starts_with("word boundary '\\b'"), "{message}");
    }

    #[test]
    fn oversized_counts_are_refused_at_the_count() {
        let (offset, message) = offset_of_error("ab{0,65536}");
        assert_eq!(offset, 2);
        assert!(message.contains("'{0,65536}' is too large"), "{message}");
        assert!(parse("ab{0,65535}").is_ok());
    }

    #[test]
    fn syntax_errors_keep_regex_syntax_offsets() {
        assert_eq!(offset_of_error("ab(c").0, 2);
        assert_eq!(offset_of_error("[z-a]").0, 1);
    }
}
