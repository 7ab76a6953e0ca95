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
//! 5. codegen, minified;
//! 6. round trip (`roundtrip:`): the printed program must parse again. A failure here means
//!    oxc turned a valid program into an invalid one, which is a miscompilation that no stage
//!    reports by itself.
//!
//! The verdict is `Valid` iff no stage reports an error. Warnings do not count. Every
//! allocation of a run lives in one arena that is reset before the next run.

use std::path::Path;

use bonsai::target::{Target, Verdict};
use oxc::allocator::Allocator;
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::diagnostics::{Diagnostics, OxcDiagnostic};
use oxc::minifier::{CompressOptions, MangleOptions, Minifier, MinifierOptions};
use oxc::parser::Parser;
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{ESTarget, EngineTargets, TransformOptions, Transformer};

/// The pipeline's options, built once, and the arena reused across runs.
pub struct Oxc {
    allocator: Allocator,
    transform: TransformOptions,
    compress: CompressOptions,
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

        let reparsed = Parser::new(allocator, &code, source_type).parse();
        first_error("roundtrip", &code, &reparsed.diagnostics)
            .map_err(|e| format!("{e} (printed: {})", excerpt(&code)))?;
        Ok(code)
    }
}

impl Target for Oxc {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match self.compile(source) {
            Ok(_) => Verdict::Valid,
            Err(reason) => Verdict::Invalid(reason),
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

fn excerpt(code: &str) -> String {
    let line = one_line(code);
    match line.char_indices().nth(120) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line,
    }
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
