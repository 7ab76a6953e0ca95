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

use bonsai::target::{Target, Verdict};
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
        let module = match naga::front::wgsl::parse_str(source) {
            Ok(module) => module,
            Err(e) => {
                let at = located(e.location(source));
                return Outcome::Invalid(format!("parse: {at}{}", one_line(e.message())));
            }
        };
        let mut validator = Validator::new(ValidationFlags::all(), Self::capabilities());
        let info = match validator.validate(&module) {
            Ok(info) => info,
            Err(e) => {
                let at = located(e.location(source));
                return Outcome::Invalid(format!("validate: {at}{}", error_chain(e.as_inner())));
            }
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
}
