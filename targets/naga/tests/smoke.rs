//! 1,000 shaders from grammars/wgsl.ebnf through naga's whole pipeline: no crash other than
//! the known one, and most shaders validate (the grammar types its expressions).

use std::path::Path;

use bonsai::grammar::Grammar;
use bonsai::sampler::Bounds;
use bonsai::target::{Target, ValidityReport, Verdict};
use bonsai_target_naga::Naga;

#[test]
fn generated_shaders_validate_and_only_the_known_bug_crashes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../grammars/wgsl.ebnf");
    let grammar = Grammar::from_file(&path).expect("the shipped grammar loads");
    let bounds = Bounds::new(3, 3, 3).unwrap();
    let validity = ValidityReport::measure(&mut Naga::new(), &grammar, bounds, 1000, 1).unwrap();
    // Known crasher, skipped explicitly: naga's HLSL writer overflows computing the offset of
    // a large constant index into the runtime-sized `items` array (see the `known_bugs` test
    // in src/lib.rs). Debug builds panic there; anything else is a new bug.
    let unknown: Vec<_> = validity
        .crashes
        .iter()
        .filter(|c| {
            !(c.message == "attempt to multiply with overflow" && c.input.contains("items["))
        })
        .collect();
    assert!(unknown.is_empty(), "{unknown:#?}");
    assert!(validity.percent(validity.valid) >= 60.0, "{validity:#?}");
    assert!(
        validity.percent(validity.refused_at("parse")) <= 20.0,
        "{validity:#?}"
    );
}

/// Found by `bonsai negative grammars/wgsl.ebnf --cover cdrc --target naga` (the symbol
/// insertion mutant 0866, `@vertex struct fn vs_main ...`, which naga refuses only at `fn`;
/// docs/results/issue-16-negative-suites.md): naga 30.0.1 takes the stage attributes, `@workgroup_size` and
/// `@id` in front of module-scope declarations that the WGSL grammar gives no attributes at all
/// (`struct_decl`, `type_alias_decl`, a `const` `global_value_decl`, `const_assert` and the
/// empty declaration `;`), and drops them: a syntax error accepted. Other attributes are
/// refused there.
#[test]
fn entry_point_attributes_before_a_struct_or_alias_are_accepted() {
    let verdict = |source: &str| Naga::new().run(source.as_bytes());
    for shader in [
        "@vertex struct S { a: f32 }",
        "@compute alias T = f32;",
        "@vertex const c = 1;",
        "@vertex const_assert true;",
        "@fragment ;",
        "@workgroup_size(1) struct S { a: f32 }",
        "@id(1) struct S { a: f32 }",
    ] {
        assert_eq!(verdict(shader), Verdict::Valid, "{shader}");
    }
    for shader in [
        "@must_use struct S { a: f32 }",
        "@location(0) struct S { a: f32 }",
        "@align(4) struct S { a: f32 }",
    ] {
        assert!(
            matches!(verdict(shader), Verdict::Invalid(ref m) if m.starts_with("parse:")),
            "{shader}"
        );
    }
}

/// Found by `bonsai fuzz` without `--bounds` (issue 30, docs/results/bugs.md): naga
/// 30.0.1's WGSL front end lowers a chain of unary minus by recursion with no limit
/// (`expression_for_abstract` and `expression_for_reference` call each other per level), so
/// `return - - ... 1.0;` some thousands deep overflows a main thread's 8 MB stack; 200 levels
/// validate. The overflow aborts the process, so the test runs this binary again as a child
/// that only runs the target, on a thread with a main thread's stack, and expects it to die.
#[test]
fn a_deep_chain_of_unary_minus_overflows_the_stack() {
    const CHILD: &str = "BONSAI_NAGA_OVERFLOW_CHILD";
    let shader = |depth: usize| {
        format!(
            "fn f() -> f32 {{\n    return {}1.0;\n}}\n",
            "- ".repeat(depth)
        )
    };
    assert_eq!(Naga::new().run(shader(200).as_bytes()), Verdict::Valid);
    if std::env::var_os(CHILD).is_some() {
        let source = shader(100_000);
        let worker = std::thread::Builder::new()
            .stack_size(bonsai::target::DEFAULT_TARGET_STACK)
            .spawn(move || {
                let _ = Naga::new().run(source.as_bytes());
            })
            .unwrap();
        let _ = worker.join();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_deep_chain_of_unary_minus_overflows_the_stack",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "100,000 levels ran: {stderr}");
    assert!(stderr.contains("has overflowed its stack"), "{stderr}");
}

/// Found by Nautilus (issue 11; again in 1 of 5 runs of issue 30's 5-minute comparison, Bonsai
/// in none; docs/results/bugs.md), reduced with `bonsai-naga reduce grammars/wgsl.ebnf
/// INPUT --target naga --criterion crash --reducer hdd+ddmin` and by hand: naga 30.0.1's
/// constant evaluator folds a `select` over vectors as if every component of the rejected
/// value were a literal, and reaches `unreachable!()` (proc/constant_evaluator.rs:3685) when one
/// is a swizzle of another constant vector. With a plain zero vector it validates.
#[test]
fn select_over_a_vector_built_from_a_swizzle_panics_in_the_constant_evaluator() {
    let run =
        |shader: &'static str| std::panic::catch_unwind(|| Naga::new().run(shader.as_bytes()));
    let panicked = run(
        "fn f() -> vec4<f32> { return select(vec4<f32>(vec4<f32>().xyz, 0.0), vec4<f32>(), false); }",
    )
    .expect_err("naga 30.0.1 panics here");
    let message = (panicked.downcast_ref::<String>().cloned())
        .or_else(|| panicked.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(message.contains("unreachable"), "{message}");
    let plain = run("fn f() -> vec4<f32> { return select(vec4<f32>(), vec4<f32>(), false); }");
    assert_eq!(plain.ok(), Some(Verdict::Valid));
}
