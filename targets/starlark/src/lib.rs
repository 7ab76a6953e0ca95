//! starlark-rust's static type checker as a Bonsai target: the closest published analogue of
//! the ChocoPy type checker of the Bonsai paper.
//!
//! One run parses the input with the typed dialect (type annotations enabled, top-level `if`
//! and `for` allowed as in Buck2's dialect, keyword-only parameters allowed) and type-checks
//! the module against the standard globals plus the extensions a typical embedder offers
//! (`print`, `struct`, `map`, `filter`, `json`, `typing`). starlark-rust checks types only
//! inside `def` bodies; scope errors (an unknown name) are reported everywhere.
//!
//! Invalid reasons carry the stage that refused the input (`parse:`, `scope:`, `type:`, or
//! `internal:` for starlark's own logic errors, which are findings), then `line:column:` and
//! the message on one line. When the checker reports several errors, the one that starts
//! earliest in the source is chosen, so the verdict does not depend on the order in which the
//! checker happens to collect them.
//!
//! The round-trip oracle (`Target::check`) holds starlark's printer, the `Display` of its AST
//! (`AstModule::statement`), to the round trip: a module the checker accepted is printed, the
//! print must parse and type-check again, and printing it must give it back. The printer drops
//! comments and layout and parenthesises every operation, which the round trip allows: what it
//! must not do is print a module that reads back as another.
//!
//! The work runs on the calling thread. starlark-rust overflows the stack on input nested
//! about 10,000 levels deep; inputs generated within Bonsai's depth bound nest a few dozen
//! levels at most, and a thread per execution would cost more than the check itself (10-17 us
//! a run). A stack overflow that does happen is a finding the engine catches like any crash.

use std::collections::HashMap;

use bonsai::target::{Target, Verdict, Violation, round_trip};
use starlark::environment::{Globals, LibraryExtension};
use starlark::syntax::{AstModule, Dialect, DialectTypes};
use starlark::typing::AstModuleTypecheck;
use starlark::{Error, ErrorKind};

/// The type checker with its globals built once.
pub struct Starlark {
    dialect: Dialect,
    globals: Globals,
}

impl Default for Starlark {
    fn default() -> Self {
        Self::new()
    }
}

/// The outcome of one run, before it is reduced to a verdict.
enum Outcome {
    /// Type-checked; the inferred types of the module's bindings, one per line, when asked.
    Valid {
        types: Option<String>,
    },
    Invalid(String),
}

impl Starlark {
    pub fn new() -> Self {
        Self {
            dialect: Dialect {
                enable_types: DialectTypes::Enable,
                enable_top_level_stmt: true,
                enable_keyword_only_arguments: true,
                ..Dialect::Standard
            },
            globals: Globals::extended_by(&[
                LibraryExtension::Print,
                LibraryExtension::StructType,
                LibraryExtension::Map,
                LibraryExtension::Filter,
                LibraryExtension::Json,
                LibraryExtension::Typing,
            ]),
        }
    }

    /// Parses and type-checks `source`. `with_types` also writes out the inferred types, which
    /// only a golden output needs: formatting them (starlark's `Debug` of every function type
    /// the module touches) took a third of a fuzzing run's time.
    fn judge(&self, source: &str, with_types: bool) -> Outcome {
        let module = match AstModule::parse("input.star", source.to_owned(), &self.dialect) {
            Ok(module) => module,
            Err(e) => return Outcome::Invalid(describe(&e)),
        };
        let (errors, types, _interface, _approximations) =
            module.typecheck(&self.globals, &HashMap::new());
        let first = errors.iter().min_by_key(|e| {
            let at = e.span().map(|s| s.resolve_span().begin);
            (at.map(|p| (p.line, p.column)), describe(e))
        });
        match first {
            Some(e) => Outcome::Invalid(describe(e)),
            None => Outcome::Valid {
                types: with_types.then(|| types.to_string()),
            },
        }
    }
}

impl Starlark {
    /// The target's verdict on `source`, without the golden output's types.
    fn verdict(&self, source: &str) -> Verdict {
        match self.judge(source, false) {
            Outcome::Valid { .. } => Verdict::Valid,
            Outcome::Invalid(reason) => Verdict::Invalid(reason),
        }
    }

    /// starlark's print of the module `source` parses to: the printer of the round trip.
    fn print(&self, source: &str) -> Result<String, String> {
        let module = AstModule::parse("input.star", source.to_owned(), &self.dialect)
            .map_err(|e| describe(&e))?;
        Ok(module.statement().node.to_string())
    }
}

impl Target for Starlark {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        self.verdict(source)
    }

    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        let source = std::str::from_utf8(input).ok()?;
        round_trip(
            source,
            verdict,
            |text| self.print(text),
            |text| self.verdict(text),
        )
    }

    /// A valid module's output lists the type inferred for every binding inside a `def`
    /// (name, span, type; in binding order), so a golden test pins the checker's inference
    /// and not just its yes or no.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match self.judge(source, true) {
            Outcome::Valid { types } => format!("valid\n{}", types.unwrap_or_default()),
            Outcome::Invalid(reason) => format!("invalid: {reason}"),
        }
    }
}

/// `stage: line:column: message`, on one line.
fn describe(error: &Error) -> String {
    let stage = match error.kind() {
        ErrorKind::Parser(_) => "parse",
        ErrorKind::Scope(_) => "scope",
        ErrorKind::Internal(_) => "internal",
        _ => "type",
    };
    let at = error
        .span()
        .map(|s| {
            let begin = s.resolve_span().begin;
            format!("{}:{}: ", begin.line + 1, begin.column + 1)
        })
        .unwrap_or_default();
    let message = error.without_diagnostic().to_string();
    format!(
        "{stage}: {at}{}",
        message.split_whitespace().collect::<Vec<_>>().join(" ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(source: &str) -> Verdict {
        Starlark::new().run(source.as_bytes())
    }

    fn invalid_at(source: &str, stage: &str) -> String {
        match verdict(source) {
            Verdict::Invalid(reason) if reason.starts_with(stage) => reason,
            other => panic!("expected a {stage} error, got {other:?} for\n{source}"),
        }
    }

    #[test]
    fn well_typed_programs_are_valid() {
        let programs = [
            "def f(x: int) -> int:\n    return x + 1\n",
            "def g(xs: list[int], d: dict[str, int]) -> int:\n    t = 0\n    for x in xs:\n        if x > 0:\n            t += x\n    return t + len(d)\n",
            "def h(s: str) -> list[str]:\n    return [c for c in s.split(\",\") if c != \"\"]\n",
            "x = 1\nif x > 0:\n    y = [x, 2]\n",
            "def k(a: int | None = None) -> str:\n    if a == None:\n        return \"none\"\n    return str(a)\n",
        ];
        for program in programs {
            assert_eq!(verdict(program), Verdict::Valid, "{program}");
        }
    }

    #[test]
    fn syntax_errors_are_parse_errors_with_a_location() {
        let reason = invalid_at("def f(:\n    pass\n", "parse:");
        assert!(reason.starts_with("parse: 1:"), "{reason}");
        invalid_at("def f():\nreturn 1\n", "parse:");
    }

    #[test]
    fn type_errors_are_reported_inside_defs() {
        let reason = invalid_at("def f(x: int) -> str:\n    return x\n", "type:");
        assert!(reason.starts_with("type: 2:"), "{reason}");
        invalid_at("def f(x: str) -> int:\n    return x.upper()\n", "type:");
        invalid_at(
            "def f(n: int) -> None:\n    for c in n:\n        pass\n",
            "type:",
        );
    }

    #[test]
    fn unknown_names_are_scope_errors() {
        invalid_at("def f() -> int:\n    return nope\n", "scope:");
        invalid_at("def f(a: int) -> int:\n    return a + b\n", "scope:");
    }

    #[test]
    fn the_earliest_error_is_reported() {
        let reason = invalid_at(
            "def f(x: int) -> str:\n    return x\ndef g(y: str) -> int:\n    return y\n",
            "type:",
        );
        assert!(reason.starts_with("type: 2:"), "{reason}");
    }

    #[test]
    fn non_utf8_is_rejected() {
        assert_eq!(Starlark::new().run(&[b'x', 0xff]), Verdict::Reject);
    }

    /// The target's verdict for `source` and what the oracle says about it, as the engine runs
    /// them: `check` after `run`, on the same target.
    pub(super) fn checked(source: &str) -> (Verdict, Option<Violation>) {
        let mut starlark = Starlark::new();
        let verdict = starlark.run(source.as_bytes());
        let violation = starlark.check(source.as_bytes(), &verdict);
        (verdict, violation)
    }

    #[test]
    fn valid_modules_print_back_as_themselves_and_refused_ones_are_not_checked() {
        let programs = [
            "def f(a: int) -> int:\n    # comment\n    if a > 0:\n        return -(-a) * 2 + 1\n    elif a < -3:\n        return a // 2\n    else:\n        return 0\n",
            "def f(*, a: int = 1, **kw) -> None:\n    pass\nl = lambda x: x + 1\nt = (1,)\nd = {k: v for k, v in {}.items() if k}\n",
            "load(\"m.star\", y = \"x\")\ns = \"q\\\"\\n\\t\" + 'single'\nb = b\"\\xff\"\nx = [i for i in [1, 2] if not i]\n",
        ];
        for program in programs {
            assert_eq!(checked(program), (Verdict::Valid, None), "{program}");
        }
        let (verdict, violation) = checked("def f(x: int) -> str:\n    return x\n");
        assert!(matches!(verdict, Verdict::Invalid(_)), "{verdict:?}");
        assert_eq!(violation, None);
    }

    #[test]
    fn output_lists_inferred_types_and_is_stable() {
        let program = b"def f(x: int) -> list[int]:\n    y = [x]\n    return y\n";
        let out = Starlark::new().output(program);
        assert!(out.starts_with("valid\n"), "{out}");
        assert!(out.contains("y ("), "{out}");
        assert!(out.contains("list[int]"), "{out}");
        assert_eq!(out, Starlark::new().output(program));
    }
}

/// starlark-rust bugs found by fuzzing with grammars/starlark.ebnf, kept as regression tests
/// that state its current behaviour: an upgrade that fixes one makes its test fail.
#[cfg(test)]
mod known_bugs {
    use super::*;
    use bonsai::target::Oracle;

    /// The round-trip oracle's violation for a module the checker accepts.
    fn violation_of(source: &str) -> Violation {
        let (verdict, violation) = super::tests::checked(source);
        assert_eq!(verdict, Verdict::Valid, "{source}");
        let violation = violation.unwrap_or_else(|| panic!("{source:?} passed the oracle"));
        assert_eq!(violation.oracle, Oracle::RoundTrip);
        violation
    }

    /// starlark_syntax 0.14.2 prints a slice `x[1:2]` as `x[]1:2` (syntax/ast.rs, `Display for
    /// Expr`, `Expr::Slice` writes the brackets before the indices), which does not parse.
    #[test]
    fn a_slice_prints_with_its_indices_outside_the_brackets() {
        let found = violation_of("def f(x: list[int]) -> list[int]:\n    return x[1:2]\n");
        assert_eq!(found.class, "the print is refused (parse)");
        assert!(found.texts[0].1.contains("x[]1:2"), "{found:?}");
    }

    /// Found by the oracle's first short run (grammars/starlark.ebnf, reduced from 1,433 bytes):
    /// starlark_syntax 0.14.2 prints an attribute of an int literal, `0 .g`, without the space
    /// (`Expr::Dot` writes `{}.{}`), and `0.g` reads as the float `0.` followed by a name. It
    /// shares its class with the slice: both are prints the parser refuses.
    #[test]
    fn an_attribute_of_an_int_literal_prints_as_a_float() {
        let found = violation_of("0 .g");
        assert_eq!(found.class, "the print is refused (parse)");
        assert_eq!(found.texts[0].1, "0.g\n");
        assert!(
            found.texts[1].1.contains("unexpected identifier 'g'"),
            "{found:?}"
        );
    }

    /// Found by the oracle's 10-minute run (issue 32; reduced from 971 bytes): starlark_syntax
    /// 0.14.2 prints a unary minus without parentheses where it is the operand of an index,
    /// so the assignment `(-0)[0] = 0` prints as `-0[0] = 0`, which reads as `-(0[0])`, an
    /// expression that is not an assignment target: the print is another program.
    #[test]
    fn a_negated_index_base_loses_its_parentheses() {
        let found = violation_of("def f():(-0)[0]=0");
        assert_eq!(found.class, "the print is refused (type)");
        assert!(found.texts[0].1.contains("-0[0] = 0"), "{found:?}");
        assert!(
            found.texts[1].1.contains("left-hand-side of assignment"),
            "{found:?}"
        );
    }

    /// starlark_syntax 0.14.2 prints a float literal with Rust's `{}` (`AstLiteral::Float`), so
    /// `1.0` prints as the int `1`, which the checker refuses where a float is wanted, and
    /// `1e400` prints as `inf`, a name nothing binds.
    #[test]
    fn a_float_literal_prints_as_an_int_or_a_name() {
        let int = violation_of("def f() -> float:\n    return 1.0\n");
        assert_eq!(int.class, "the print is refused (type)");
        assert!(int.texts[0].1.contains("return 1\n"), "{int:?}");
        let inf = violation_of("x = 1e400\n");
        assert_eq!(inf.class, "the print is refused (internal)");
        assert_eq!(inf.texts[0].1, "x = inf\n");
    }

    fn verdict(source: &str) -> Verdict {
        Starlark::new().run(source.as_bytes())
    }

    /// Passing a parameter both by position and by name is a user error, but the type checker
    /// reports it as an internal error (a logic bug in starlark by its own definition).
    #[test]
    fn a_parameter_bound_twice_is_an_internal_error() {
        let program = "def f(a: int, b: int) -> int:\n    return a\n\
                       def g(a: int, b: int) -> int:\n    return f(a, a = b)\n";
        assert_eq!(
            verdict(program),
            Verdict::Invalid(
                "internal: 4:12: Internal error: Multiple arguments bound to parameter".into()
            )
        );
    }

    /// An unbound name at module level is reported as an internal error, not a scope error
    /// as inside a `def`.
    #[test]
    fn an_unbound_name_at_module_level_is_an_internal_error() {
        assert_eq!(
            verdict("x = undefined_name\n"),
            Verdict::Invalid("internal: 1:5: Internal error: unresolved ident".into())
        );
    }
}
