//! naga, the shader compiler of wgpu, as a Bonsai target: WGSL in, SPIR-V, MSL, HLSL and WGSL
//! out.
//!
//! One run parses WGSL, validates the module and, when it validates, emits it through all four
//! back ends. The verdict follows validation (the WGSL specification's notion of a valid
//! shader); the back ends run anyway because a module the validator accepted must be
//! translatable, so a back-end error after successful validation is a finding in its own right
//! and is reported with the `backend <name>:` prefix, distinct from `parse:` and `validate:`.
//!
//! The validator is given exactly the capabilities that every back end supports (the
//! intersection of the SPIR-V, MSL and HLSL writers' `supported_capabilities`; the WGSL writer
//! supports them all), and the back ends are set to recent language versions (SPIR-V 1.6,
//! MSL 2.4, HLSL shader model 6.7). A back end can then never refuse a valid module merely
//! because the capability set promised more than it can do, which would drown real findings.
//! Everything is pinned explicitly (the SPIR-V writer's default flags depend on
//! `debug_assertions`), so debug and release builds give identical verdicts and outputs.

//!
//! The WGSL back end is also held to a round trip (the round-trip oracle, `Target::check`):
//! a module the validator accepted is written as WGSL, that text is parsed and validated again
//! with the same capabilities, and written again; the second print must equal the first. A
//! print that does not parse or validate means the back end wrote a shader other than the one
//! it was given (or one naga itself cannot read); a print that is not a fixed point, that the
//! WGSL the writer produces does not read back as the module it wrote. Modules that validated
//! but that another back end refused are checked too: the WGSL writer owes them a print all
//! the same.
//!
//! Equal up to the names naga makes up, that is: the writer calls the temporaries it
//! introduces `_e<handle>` after the expression's place in its function's arena, without asking
//! its namer, and the places shift when the print is read back (a call's result may be `_e5` in
//! one print and `_e4` in the next). The temporaries that become `let` names are decorated by
//! the namer on the next print: a trailing `_`, as every name ending in a digit gets (so that
//! its uniqueness suffixes cannot collide with it), and a `_<n>` suffix where another function
//! binds the same name (it keeps names unique across the module). Without allowing for that,
//! no shader with a temporary would be a fixed point; comparing the second and third prints
//! instead would miss a first print that changes the shader and then prints stably. So the
//! prints are compared with each function's temporaries numbered in order of appearance and
//! other names without a trailing `_` (`canonical`): a print that changes is a violation only
//! if it changes beyond a consistent renaming.
//!
//! naga's WGSL parser gives up at 200 levels of recursion, and the writer parenthesises every
//! unary and binary operation, so a deep expression the parser read can print deeper than it
//! reads back. That refusal has its own class, so that it does not hide other prints the
//! parser refuses.

use bonsai::target::{Target, Verdict, Violation, round_trip};
use naga::back::{hlsl, msl, spv, wgsl};
use naga::valid::{Capabilities, ModuleInfo, ValidationFlags, Validator};

/// The naga pipeline with its options built once.
pub struct Naga {
    spv: spv::Options<'static>,
    msl: msl::Options,
    msl_pipeline: msl::PipelineOptions,
    hlsl: hlsl::Options,
    hlsl_pipeline: hlsl::PipelineOptions,
}

impl Default for Naga {
    fn default() -> Self {
        Self::new()
    }
}

/// The outcome of one run, before it is reduced to a verdict.
enum Outcome {
    Valid { wgsl: String },
    Invalid(String),
}

impl Naga {
    pub fn new() -> Self {
        Self {
            spv: spv::Options {
                lang_version: (1, 6),
                flags: spv::WriterFlags::ADJUST_COORDINATE_SPACE
                    | spv::WriterFlags::LABEL_VARYINGS
                    | spv::WriterFlags::CLAMP_FRAG_DEPTH,
                ..spv::Options::default()
            },
            msl: msl::Options {
                lang_version: (2, 4),
                ..msl::Options::default()
            },
            msl_pipeline: msl::PipelineOptions::default(),
            hlsl: hlsl::Options {
                shader_model: hlsl::ShaderModel::V6_7,
                ..hlsl::Options::default()
            },
            hlsl_pipeline: hlsl::PipelineOptions::default(),
        }
    }

    /// The capabilities every back end can emit: see the module documentation.
    pub fn capabilities() -> Capabilities {
        spv::supported_capabilities()
            & msl::supported_capabilities()
            & hlsl::supported_capabilities()
    }

    fn compile(&self, source: &str) -> Outcome {
        let (module, info) = match validate(source) {
            Ok(validated) => validated,
            Err(reason) => return Outcome::Invalid(reason),
        };
        match self.emit(&module, &info) {
            Ok(wgsl) => Outcome::Valid { wgsl },
            Err(reason) => Outcome::Invalid(reason),
        }
    }

    /// Runs every back end; returns the WGSL text, or the first back end's error.
    fn emit(&self, module: &naga::Module, info: &ModuleInfo) -> Result<String, String> {
        spv::write_vec(module, info, &self.spv, None)
            .map_err(|e| format!("backend spv: {}", error_chain(&e)))?;
        msl::write_string(module, info, &self.msl, &self.msl_pipeline)
            .map_err(|e| format!("backend msl: {}", error_chain(&e)))?;
        let mut hlsl_text = String::new();
        hlsl::Writer::new(&mut hlsl_text, &self.hlsl, &self.hlsl_pipeline)
            .write(module, info, None)
            .map_err(|e| format!("backend hlsl: {}", error_chain(&e)))?;
        wgsl::write_string(module, info, wgsl::WriterFlags::empty())
            .map_err(|e| format!("backend wgsl: {}", error_chain(&e)))
    }
}

impl Target for Naga {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match self.compile(source) {
            Outcome::Valid { .. } => Verdict::Valid,
            Outcome::Invalid(reason) => Verdict::Invalid(reason),
        }
    }

    /// A valid shader's output is naga's own WGSL rendering of it: a golden test then pins the
    /// whole front end and IR, not just the verdict.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match self.compile(source) {
            Outcome::Valid { wgsl } => format!("valid\n{wgsl}"),
            Outcome::Invalid(reason) => format!("invalid: {reason}"),
        }
    }

    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        let validated = match verdict {
            Verdict::Valid => true,
            Verdict::Invalid(reason) => {
                reason.starts_with("backend ") && !reason.starts_with("backend wgsl:")
            }
            Verdict::Reject => false,
        };
        if !validated {
            return None;
        }
        wgsl_round_trip(std::str::from_utf8(input).ok()?)
    }
}

/// The module and its validation info, or why the front end or the validator refused it.
fn validate(source: &str) -> Result<(naga::Module, ModuleInfo), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        let at = located(e.location(source));
        let mut message = one_line(e.message());
        // An internal error's message is the same for every cause; its note says which.
        if message == "internal WGSL front end error" {
            for note in e.notes() {
                message = format!("{message}: {}", one_line(note));
            }
        }
        format!("parse: {at}{message}")
    })?;
    let mut validator = Validator::new(ValidationFlags::all(), Naga::capabilities());
    let info = validator.validate(&module).map_err(|e| {
        let at = located(e.location(source));
        format!("validate: {at}{}", error_chain(e.as_inner()))
    })?;
    Ok((module, info))
}

/// The WGSL back end's print of `source`: the printer of the round trip.
fn print_wgsl(source: &str) -> Result<String, String> {
    let (module, info) = validate(source)?;
    wgsl::write_string(&module, &info, wgsl::WriterFlags::empty())
        .map_err(|e| format!("backend wgsl: {}", error_chain(&e)))
}

/// The round trip's violation for a module the validator accepted, less those that only the
/// naming of temporaries and the parser's recursion limit explain (see the module
/// documentation).
fn wgsl_round_trip(source: &str) -> Option<Violation> {
    let mut found = round_trip(source, &Verdict::Valid, print_wgsl, |text| {
        match validate(text) {
            Ok(_) => Verdict::Valid,
            Err(reason) => Verdict::Invalid(reason),
        }
    })?;
    let text = |i: usize| found.texts.get(i).map_or("", |(_, text)| text.as_str());
    match found.class.as_str() {
        "the print is not a fixed point" if canonical(text(0)) == canonical(text(1)) => None,
        "the print is refused (parse)" if text(1).contains(RECURSION_LIMIT) => {
            found.class = "the print is nested too deeply for the parser (parse)".to_string();
            Some(found)
        }
        "the print is refused (parse)" if text(1).contains(BRACE_LIMIT) => {
            found.class = "the print's blocks are nested too deeply for the parser (parse)".into();
            Some(found)
        }
        _ => Some(found),
    }
}

/// The note naga's parser gives when it stops at its recursion limit.
const RECURSION_LIMIT: &str = "Parser recursion limit exceeded";

/// naga's parser's message when blocks nest deeper than it reads (127 levels).
const BRACE_LIMIT: &str = "brace nesting limit reached";

/// `print` with each temporary (`_e<n>`, as the namer may decorate it: `_e<n>_`, `_e<n>_<m>`)
/// renamed `_t<k>`, the k-th distinct one to appear in its function, and other names without
/// the trailing `_` the namer gives a name ending in a digit. Words that are nothing but `_`,
/// and numbers, are kept.
fn canonical(print: &str) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut temporaries = std::collections::HashMap::new();
    let mut plain = String::with_capacity(print.len());
    let mut rest = print;
    while let Some(start) = rest.find(is_word) {
        plain.push_str(&rest[..start]);
        rest = &rest[start..];
        let end = rest.find(|c: char| !is_word(c)).unwrap_or(rest.len());
        let word = &rest[..end];
        rest = &rest[end..];
        if word == "fn" {
            temporaries.clear();
        }
        let trimmed = word.trim_end_matches('_');
        if is_temporary(trimmed) {
            let next = temporaries.len();
            let k = *temporaries.entry(word).or_insert(next);
            plain.push_str(&format!("_t{k}"));
        } else if trimmed.is_empty() || word.starts_with(|c: char| c.is_ascii_digit()) {
            plain.push_str(word);
        } else {
            plain.push_str(trimmed);
        }
    }
    plain.push_str(rest);
    plain
}

/// `_e<n>` or `_e<n>_<m>`: a temporary's name, or one the namer made unique.
fn is_temporary(name: &str) -> bool {
    let Some(numbers) = name.strip_prefix("_e") else {
        return false;
    };
    match numbers.split_once('_') {
        Some((handle, unique)) => is_number(handle) && is_number(unique),
        None => is_number(numbers),
    }
}

fn is_number(digits: &str) -> bool {
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// An error and its sources on one line: naga nests the cause of a validation error several
/// levels deep ("Function 'main' is invalid: Expression [3] is invalid: ...").
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = one_line(&error.to_string());
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&one_line(&cause.to_string()));
        source = cause.source();
    }
    text
}

/// `line:column: `, or nothing for an error naga could not place.
fn located(location: Option<naga::SourceLocation>) -> String {
    location
        .map(|l| format!("{}:{}: ", l.line_number, l.line_position))
        .unwrap_or_default()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(source: &str) -> Verdict {
        Naga::new().run(source.as_bytes())
    }

    fn invalid_at(source: &str, stage: &str) -> String {
        match verdict(source) {
            Verdict::Invalid(reason) if reason.starts_with(stage) => reason,
            other => panic!("expected a {stage} error, got {other:?} for\n{source}"),
        }
    }

    #[test]
    fn valid_shaders_validate_and_emit() {
        let shaders = [
            "@fragment fn main() -> @location(0) vec4<f32> { return vec4<f32>(1.0, 0.0, 0.0, 1.0); }",
            "@vertex fn main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {\n\
             let x = f32(i) - 1.0;\n return vec4f(x, x * 0.5, 0.0, 1.0);\n}",
            "struct S { a: f32, b: vec3<f32> }\n\
             @group(0) @binding(0) var<storage, read_write> data: array<S, 4>;\n\
             @compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {\n\
             var acc = 0.0;\n for (var k = 0u; k < 4u; k++) { acc += data[k].a; }\n\
             data[i].b = vec3<f32>(acc);\n}",
            "const K: i32 = 3;\nfn f(x: i32) -> i32 { switch x { case 0: { return K; } default: { return x; } } }",
        ];
        for shader in shaders {
            assert_eq!(verdict(shader), Verdict::Valid, "{shader}");
        }
    }

    #[test]
    fn syntax_errors_are_parse_errors_with_a_location() {
        let reason = invalid_at("fn main( { }", "parse:");
        assert!(reason.starts_with("parse: 1:"), "{reason}");
        invalid_at("@fragment fn main() -> vec4<f32> { return 1.0 }", "parse:");
    }

    #[test]
    fn type_errors_are_found_by_the_front_end_or_the_validator() {
        // naga's front end already resolves types, so a mismatched `let` is a parse-stage error.
        let reason = invalid_at("fn f() { let x: i32 = 1.0; }", "parse:");
        assert!(reason.contains("i32"), "{reason}");
        invalid_at("fn f() -> i32 { return 1u; }", "validate:");
    }

    #[test]
    fn entry_points_need_their_attributes() {
        // A fragment output without @location is a validation error, not a parse error.
        let reason = invalid_at(
            "@fragment fn main() -> vec4<f32> { return vec4<f32>(); }",
            "validate:",
        );
        assert!(reason.contains("main"), "{reason}");
    }

    #[test]
    fn non_utf8_is_rejected() {
        assert_eq!(Naga::new().run(&[0xc3, 0x28]), Verdict::Reject);
    }

    /// The target's verdict for `source` and what the oracle says about it, as the engine runs
    /// them: `check` after `run`, on the same target.
    fn checked(source: &str) -> (Verdict, Option<Violation>) {
        let mut naga = Naga::new();
        let verdict = naga.run(source.as_bytes());
        let violation = naga.check(source.as_bytes(), &verdict);
        (verdict, violation)
    }

    #[test]
    fn temporaries_are_compared_by_order_in_their_function_and_names_without_a_trailing_underscore()
    {
        assert_eq!(
            canonical("fn f() { let _e5_ = x1_; g(_e12_1, a_2_, _, 1e5, vec4<f32>(_e5_), _e12); }"),
            "fn f() { let _t0 = x1; g(_t1, a_2, _, 1e5, vec4<f32>(_t0), _t2); }"
        );
        assert_eq!(
            canonical("fn f() { let _e2 = a; let _e5 = g(_e2); }\nfn h() { _e2; }"),
            canonical("fn f() { let _e2_ = a; let _e4 = g(_e2_); }\nfn h() { _e2_1; }")
        );
        assert_ne!(
            canonical("fn f() { g(_e1, _e2); h(_e1); }"),
            canonical("fn f() { g(_e1, _e2); h(_e2); }")
        );
    }

    /// Found by the oracle's short runs, before it compared prints up to renaming: two
    /// functions that each load a global (the writer names each load `_e1`; read back, the
    /// namer makes them `_e1_` and `_e1_1`), and a call whose arguments are loads (its result
    /// `_e5` is `_e4` in the next print, the loads having become `let`s). Neither is a
    /// violation.
    #[test]
    fn temporaries_renamed_on_the_next_print_are_not_a_violation() {
        for (shader, before, after) in [
            (
                "var<private> a: f32;\nfn f() -> f32 { return a; }\nfn g() -> f32 { return a; }",
                "let _e1 = a;",
                "let _e1_1 = a;",
            ),
            (
                "var<private> a: f32;\nfn h(x: f32, y: f32) -> f32 { return x; }\n\
                 @compute @workgroup_size(1) fn main() { a = h(a, a); }",
                "let _e5 = h(",
                "let _e4 = h(",
            ),
        ] {
            let first = print_wgsl(shader).unwrap();
            let second = print_wgsl(&first).unwrap();
            assert!(first.contains(before), "{first}");
            assert!(second.contains(after), "{second}");
            assert_eq!(checked(shader), (Verdict::Valid, None), "{shader}");
        }
    }

    #[test]
    fn valid_shaders_print_as_wgsl_that_reads_back_and_refused_ones_are_not_checked() {
        for shader in [
            "struct S { a: f32, b: vec3<f32> }\n\
             @group(0) @binding(0) var<storage, read_write> data: array<S, 4>;\n\
             @compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {\n\
             var acc = 0.0;\n for (var k = 0u; k < 4u; k++) { acc += data[k].a; }\n\
             data[i].b = vec3<f32>(acc);\n}",
            "const K: i32 = 3;\nfn f(x: i32) -> i32 { switch x { case 0: { return K; } default: { return x; } } }",
            "@fragment fn main(@location(0) c: vec4f) -> @location(0) vec4f {\n\
             let m = mat2x2f(1.0, 0.0, 0.0, 1.0);\n return vec4f(m * c.xy, -c.z, select(0.0, 1.0, c.w > 0.5));\n}",
        ] {
            assert_eq!(checked(shader), (Verdict::Valid, None), "{shader}");
        }
        let (verdict, violation) = checked("fn f() -> i32 { return 1u; }");
        assert!(matches!(verdict, Verdict::Invalid(_)), "{verdict:?}");
        assert_eq!(violation, None);
    }

    #[test]
    fn output_of_a_valid_shader_is_naga_s_wgsl() {
        let out = Naga::new().output(b"fn f(x: i32) -> i32 { return x + 1; }");
        assert!(out.starts_with("valid\n"), "{out}");
        assert!(out.contains("fn f(x: i32) -> i32"), "{out}");
        let again = Naga::new().output(b"fn f(x: i32) -> i32 { return x + 1; }");
        assert_eq!(out, again);
    }
}

/// naga bugs found by fuzzing with grammars/wgsl.ebnf, kept as regression tests: each test
/// states naga's current behaviour, so an upgrade that fixes the bug makes it fail and points
/// here.
#[cfg(test)]
mod known_bugs {
    use super::*;

    /// The HLSL writer computes a storage-buffer byte offset as `index * stride` in `u32`
    /// (back/hlsl/storage.rs, `fill_access_chain`): a large constant index into a
    /// runtime-sized array overflows. Debug builds panic; release builds wrap and emit a wrong
    /// offset. Validation accepts the shader, as it should (the array has no static length).
    #[test]
    #[cfg(debug_assertions)]
    fn hlsl_storage_offset_overflows_on_a_large_constant_index() {
        let shader = "struct Item { value: f32, count: u32, dir: vec4<f32> }\n\
                      @group(0) @binding(0) var<storage, read> items: array<Item>;\n\
                      @compute @workgroup_size(1) fn main() { _ = items[2147483644u].value; }";
        let hit = std::panic::catch_unwind(|| Naga::new().run(shader.as_bytes()));
        let payload = hit.expect_err("naga 30.0.1 panics here");
        let message = bonsai::target::panic_message(payload.as_ref());
        assert!(message.contains("overflow"), "{message}");
    }

    /// Found by the round-trip oracle's first short run (grammars/wgsl.ebnf, a chain of
    /// `select`s and negations): naga 30.0.1's WGSL writer parenthesises every binary
    /// operation, so a flat sum of 200 terms, which the parser reads in a loop, prints as 199
    /// nested parentheses, and the parser stops at its recursion limit of 200
    /// (front/wgsl/parse/mod.rs, `track_recursion`). naga cannot read its own print back.
    ///
    /// The back ends recurse once per nesting level: the test runs on the stack the engine
    /// gives a target, not a test thread's 2 MB.
    #[test]
    fn a_long_sum_prints_too_deeply_nested_to_read_back() {
        let worker = std::thread::Builder::new().stack_size(bonsai::target::DEFAULT_TARGET_STACK);
        let run = worker.spawn(|| {
            let sum = |terms: usize| {
                format!(
                    "fn f(x: f32) -> f32 {{ return x{}; }}",
                    " + x".repeat(terms - 1)
                )
            };
            let mut naga = Naga::new();
            let shader = sum(200);
            assert_eq!(naga.run(shader.as_bytes()), Verdict::Valid);
            let found = naga.check(shader.as_bytes(), &Verdict::Valid).unwrap();
            assert_eq!(
                found.class,
                "the print is nested too deeply for the parser (parse)"
            );
            assert!(found.texts[0].1.contains(&"(".repeat(190)), "{found:?}");
            assert!(found.texts[1].1.contains(RECURSION_LIMIT), "{found:?}");
            let shorter = sum(150);
            assert_eq!(naga.run(shorter.as_bytes()), Verdict::Valid);
            assert_eq!(naga.check(shorter.as_bytes(), &Verdict::Valid), None);
        });
        run.unwrap().join().unwrap();
    }

    /// Found by the oracle's 10-minute run (issue 32): naga's IR has no `else if`, so its WGSL
    /// back end prints a chain of them as an `else` block holding the next `if`, one brace
    /// level deeper per link. A chain of 126 `else if`s, which the parser reads flat, prints
    /// past the parser's brace nesting limit of 127: naga cannot read its own print back.
    #[test]
    fn a_long_else_if_chain_prints_too_deeply_nested_to_read_back() {
        let worker = std::thread::Builder::new().stack_size(bonsai::target::DEFAULT_TARGET_STACK);
        let run = worker.spawn(|| {
            let chain = |links: usize| {
                format!(
                    "var<private> b: bool;\nfn f() -> i32 {{ if b {{}}{} else {{}} return 0; }}",
                    " else if b {}".repeat(links)
                )
            };
            let mut naga = Naga::new();
            let shader = chain(130);
            assert_eq!(naga.run(shader.as_bytes()), Verdict::Valid);
            let found = naga.check(shader.as_bytes(), &Verdict::Valid).unwrap();
            assert_eq!(
                found.class,
                "the print's blocks are nested too deeply for the parser (parse)"
            );
            assert!(found.texts[0].1.contains("} else {"), "{found:?}");
            assert!(found.texts[1].1.contains(BRACE_LIMIT), "{found:?}");
            let shorter = chain(100);
            assert_eq!(naga.run(shorter.as_bytes()), Verdict::Valid);
            assert_eq!(naga.check(shorter.as_bytes(), &Verdict::Valid), None);
        });
        run.unwrap().join().unwrap();
    }
}
