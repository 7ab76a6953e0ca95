//! oxc, a JavaScript compiler, as a Bonsai target: the analogue of the Closure Compiler target
//! of the Bonsai paper.
//!
//! One run takes an ES module through the whole optimising pipeline:
//!
//! 1. parse (`parse:`), as an ES module, so strict-mode rules apply;
//! 2. semantic analysis with syntax-error checking (`semantic:`): redeclarations, invalid
//!    assignment targets, `break` outside a loop and the other early errors that the parser
//!    leaves to the scope builder;
//! 3. transform (`transform:`): lowering to ES2015, which rewrites classes' newer features,
//!    optional chaining, `??`, exponentiation, async iteration and so on;
//! 4. minify: compress (targeting ES2015 too, so it does not reintroduce what the transform
//!    lowered) and mangle;
//! 5. codegen, minified.
//!
//! The verdict is `Valid` iff no stage reports an error. Warnings do not count. Every
//! allocation of a run lives in one arena that is reset before the next run.
//!
//! The printer is judged apart, by the round-trip oracle (`Target::check`), so that a program
//! oxc misprints is a fault of its own and not one more refused input. Two prints are checked:
//!
//! - the code generator's plain print of the parsed program (before any transform): it must
//!   parse and pass the semantic checks again, and printing it must give it back (a fixed
//!   point), as [`round_trip`] has it. The print is read by parse and semantic analysis only:
//!   they decide whether a text is a JavaScript module, and the later stages' refusals of a
//!   print would be those stages' findings, already made on the input;
//! - the minified print the pipeline made: it must parse and pass the semantic checks. It is not
//!   held to a fixed point, since minifying again may find more to fold. A failure here means
//!   oxc turned a valid program into an invalid one, a miscompilation that no stage reports by
//!   itself.

use std::path::Path;

use bonsai::target::{Oracle, Target, Verdict, Violation, refusal_stage, round_trip};
use oxc::allocator::Allocator;
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::diagnostics::{Diagnostics, OxcDiagnostic};
use oxc::minifier::{CompressOptions, MangleOptions, Minifier, MinifierOptions};
use oxc::parser::Parser;
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{ESTarget, EngineTargets, TransformOptions, Transformer};

/// The pipeline's options, built once, and the arenas reused across runs.
pub struct Oxc {
    allocator: Allocator,
    /// The plain round trip's prints, made while `allocator` holds the text being read.
    printer: Allocator,
    transform: TransformOptions,
    compress: CompressOptions,
    /// The last input `run` compiled and its minified print, which `check` (called next, on
    /// the same input) reads instead of running the whole pipeline again.
    minified: Option<(Vec<u8>, String)>,
}

impl Default for Oxc {
    fn default() -> Self {
        Self::new()
    }
}

impl Oxc {
    pub fn new() -> Self {
        let targets = EngineTargets::from_target("es2015").expect("es2015 is a known target");
        Self {
            allocator: Allocator::default(),
            printer: Allocator::default(),
            minified: None,
            transform: TransformOptions::from(ESTarget::ES2015),
            compress: CompressOptions {
                target: targets,
                ..CompressOptions::smallest()
            },
        }
    }

    /// Runs the pipeline; the minified program, or the first error of the first stage that
    /// failed, as `stage: line:column: message`.
    fn compile(&mut self, source: &str) -> Result<String, String> {
        self.allocator.reset();
        let allocator = &self.allocator;
        let source_type = SourceType::mjs();

        let parsed = Parser::new(allocator, source, source_type).parse();
        first_error("parse", source, &parsed.diagnostics)?;
        let mut program = parsed.program;

        let semantic = SemanticBuilder::new()
            .with_check_syntax_error(true)
            .build(&program);
        first_error("semantic", source, &semantic.diagnostics)?;
        let scoping = semantic.semantic.into_scoping();

        let transformed = Transformer::new(allocator, Path::new("input.mjs"), &self.transform)
            .build_with_scoping(scoping, &mut program);
        first_error("transform", source, &transformed.diagnostics)?;

        let minified = Minifier::new(MinifierOptions {
            mangle: Some(MangleOptions::default()),
            mangle_properties: None,
            compress: Some(self.compress.clone()),
        })
        .minify(allocator, &mut program);
        let code = Codegen::new()
            .with_options(CodegenOptions::minify())
            .with_scoping(minified.scoping)
            .with_private_member_mappings(minified.class_private_mappings)
            .build(&program)
            .code;
        Ok(code)
    }

    /// The minified print of `source`, from the last run when it compiled `source`.
    fn minified(&mut self, source: &str) -> Option<String> {
        match self.minified.take() {
            Some((input, code)) if input == source.as_bytes() => Some(code),
            _ => self.compile(source).ok(),
        }
    }
}

impl Target for Oxc {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match self.compile(source) {
            Ok(code) => {
                self.minified = Some((input.to_vec(), code));
                Verdict::Valid
            }
            Err(reason) => {
                self.minified = None;
                Verdict::Invalid(reason)
            }
        }
    }

    /// A valid program's output is its minified form: a golden test then pins what the
    /// optimiser did, not just that it succeeded.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match self.compile(source) {
            Ok(code) => format!("valid\n{code}"),
            Err(reason) => format!("invalid: {reason}"),
        }
    }

    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        if !verdict.is_valid() {
            return None;
        }
        let source = std::str::from_utf8(input).ok()?;
        let code = self.minified(source)?;
        let Oxc {
            allocator, printer, ..
        } = self;
        let plain = round_trip(
            source,
            verdict,
            |text| print(printer, text),
            |text| match read(allocator, text) {
                Ok(()) => Verdict::Valid,
                Err(reason) => Verdict::Invalid(reason),
            },
        );
        if plain.is_some() {
            return plain;
        }
        let error = read(allocator, &code).err()?;
        Some(Violation {
            oracle: Oracle::RoundTrip,
            class: format!("the minified print is refused{}", refusal_stage(&error)),
            message: format!(
                "oxc refuses its own minified print of a program it compiled: {error}"
            ),
            texts: vec![
                ("minified print".to_string(), code),
                ("oxc on the minified print".to_string(), error),
            ],
        })
    }
}

/// The code generator's plain print of `source` as parsed: the printer of the round trip.
fn print(arena: &mut Allocator, source: &str) -> Result<String, String> {
    arena.reset();
    let parsed = Parser::new(arena, source, SourceType::mjs()).parse();
    first_error("parse", source, &parsed.diagnostics)?;
    Ok(Codegen::new().build(&parsed.program).code)
}

/// Whether `source` is a module that parses and passes the semantic checks: what a print must
/// be.
fn read(arena: &mut Allocator, source: &str) -> Result<(), String> {
    arena.reset();
    let parsed = Parser::new(arena, source, SourceType::mjs()).parse();
    first_error("parse", source, &parsed.diagnostics)?;
    let semantic = SemanticBuilder::new()
        .with_check_syntax_error(true)
        .build(&parsed.program);
    first_error("semantic", source, &semantic.diagnostics)
}

/// The first error-severity diagnostic, located in `source`.
fn first_error(stage: &str, source: &str, diagnostics: &Diagnostics) -> Result<(), String> {
    match diagnostics.errors().next() {
        None => Ok(()),
        Some(error) => Err(format!("{stage}: {}", describe(source, error))),
    }
}

fn describe(source: &str, error: &OxcDiagnostic) -> String {
    let at = error
        .labels
        .first()
        .map(|label| {
            let offset = (label.offset() as usize).min(source.len());
            let before = source.get(..offset).unwrap_or(source);
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("{line}:{column}: ")
        })
        .unwrap_or_default();
    format!("{at}{}", one_line(&error.message))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(source: &str) -> Verdict {
        Oxc::new().run(source.as_bytes())
    }

    fn invalid_at(source: &str, stage: &str) -> String {
        match verdict(source) {
            Verdict::Invalid(reason) if reason.starts_with(stage) => reason,
            other => panic!("expected a {stage} error, got {other:?} for\n{source}"),
        }
    }

    #[test]
    fn valid_programs_go_through_the_whole_pipeline() {
        let programs = [
            "let x = 1; export const y = x + 2;",
            "class A { #p = 1; static s = 2; get p() { return this.#p; } }\nexport default new A().p;",
            "const f = async (a, ...rest) => { for await (const v of rest) a ??= v; return a?.b ** 2; };\nexport { f };",
            "function* g({ a, b: [c = 1] }) { yield `${a}-${c}`; }\nexport { g };",
            "label: for (let i = 0; i < 3; i++) { if (i) continue label; else break; }",
        ];
        for program in programs {
            assert_eq!(verdict(program), Verdict::Valid, "{program}");
        }
    }

    #[test]
    fn syntax_errors_are_parse_errors_with_a_location() {
        let reason = invalid_at("let x = ;", "parse:");
        assert!(reason.starts_with("parse: 1:"), "{reason}");
        invalid_at("function (", "parse:");
    }

    #[test]
    fn early_errors_are_semantic_errors() {
        let reason = invalid_at("let a = 1;\nlet a = 2;", "semantic:");
        assert!(reason.contains("`a` has already been declared"), "{reason}");
        // Early errors, whichever of oxc's parser or semantic pass reports them.
        for program in [
            "function f() { break; }",
            "const g = (a, a) => 1;",
            "x = await;",
        ] {
            assert!(matches!(verdict(program), Verdict::Invalid(_)), "{program}");
        }
        // Strict mode, because the input is a module.
        assert!(matches!(verdict("with (a) {}"), Verdict::Invalid(_)));
        // Assigning to a constant is a run-time error in JavaScript, not an early one.
        assert_eq!(verdict("const c = 1;\nc = 2;"), Verdict::Valid);
    }

    /// The target's verdict for `source` and what the oracle says about it, as the engine runs
    /// them: `check` after `run`, on the same target.
    fn checked(source: &str) -> (Verdict, Option<Violation>) {
        let mut oxc = Oxc::new();
        let verdict = oxc.run(source.as_bytes());
        let violation = oxc.check(source.as_bytes(), &verdict);
        (verdict, violation)
    }

    #[test]
    fn valid_programs_print_and_minify_to_programs_and_refused_ones_are_not_checked() {
        for program in [
            "class A { #p = 1; static s = 2; get p() { return this.#p; } }\nexport default new A().p;",
            "const f = async (a, ...rest) => { for await (const v of rest) a ??= v; return a?.b ** 2; };\nexport { f };",
            "let x = (1, 2) + -(-3) + (a => a)(4) + `t${x}` + /re[/]/g.source + (function () {}).name;",
            "label: for (let i = 0; i < 3; i++) { if (i) continue label; else break; }",
        ] {
            assert_eq!(checked(program), (Verdict::Valid, None), "{program}");
        }
        let (verdict, violation) = checked("let a = 1;\nlet a = 2;");
        assert!(matches!(verdict, Verdict::Invalid(_)), "{verdict:?}");
        assert_eq!(violation, None);
    }

    /// `check` reads the minified print `run` left for the same input, and compiles again for
    /// any other: a stale print would judge the wrong program.
    #[test]
    fn check_reads_the_last_run_s_print_only_for_its_input() {
        let mut oxc = Oxc::new();
        assert_eq!(oxc.run(b"export const a = 1;"), Verdict::Valid);
        assert_eq!(
            oxc.minified("export let b = 2;").as_deref(),
            Some("export let b=2;")
        );
        assert_eq!(oxc.run(b"export const a = 1;"), Verdict::Valid);
        assert!(oxc.minified.is_some());
        assert_eq!(
            oxc.minified("export const a = 1;").as_deref(),
            Some("export const a=1;")
        );
        assert!(oxc.minified.is_none(), "the print is read once");
    }

    #[test]
    fn non_utf8_is_rejected() {
        assert_eq!(Oxc::new().run(&[0xfe]), Verdict::Reject);
    }

    #[test]
    fn output_is_the_minified_program_and_runs_are_independent() {
        let mut oxc = Oxc::new();
        let program =
            b"export function add(first, second) { const total = first + second; return total; }";
        let out = oxc.output(program);
        assert!(out.starts_with("valid\n"), "{out}");
        assert!(!out.contains("total"), "locals are mangled: {out}");
        assert!(out.contains("export"), "{out}");
        assert!(matches!(oxc.run(b"let = ;"), Verdict::Invalid(_)));
        assert_eq!(oxc.output(program), out);
    }
}

/// oxc bugs found by fuzzing with grammars/javascript.ebnf, kept as regression tests that
/// state oxc's current behaviour, so an upgrade that fixes one makes its test fail.
#[cfg(test)]
mod known_bugs {
    use super::*;

    /// The minifier's debug-only invariant check (oxc_minifier compression_pass.rs,
    /// `debug_assert_no_under_prune`) fires: a compression pass drops an AST node whose
    /// reference stays in the scoping tables. The input is the generated program that found
    /// it (grammars/javascript.ebnf, bounds 3,3,3, seed 1, input 583), unreduced.
    #[test]
    #[cfg(debug_assertions)]
    fn minifier_under_prunes_references() {
        let program = include_str!("../tests/crashes/minifier-under-prune.js");
        let hit = std::panic::catch_unwind(|| Oxc::new().run(program.as_bytes()));
        let payload = hit.expect_err("oxc 0.146.0 panics here");
        let message = bonsai::target::panic_message(payload.as_ref());
        assert!(message.contains("under-prune"), "{message}");
    }
}
