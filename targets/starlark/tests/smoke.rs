//! 1,000 programs from grammars/starlark.ebnf through the type checker: none may crash it
//! except by starlark 0.14.2's known panic, all must parse (the grammar is tuned to
//! starlark-rust's typed dialect), and a useful share must type-check.

use std::path::Path;

use bonsai::grammar::Grammar;
use bonsai::sampler::Bounds;
use bonsai::target::ValidityReport;
use bonsai_target_starlark::Starlark;

#[test]
fn generated_programs_parse_and_many_type_check() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../grammars/starlark.ebnf");
    let grammar = Grammar::from_file(&path).expect("the shipped grammar loads");
    let bounds = Bounds::new(3, 3, 3).unwrap();
    let validity =
        ValidityReport::measure(&mut Starlark::new(), &grammar, bounds, 1000, 1).unwrap();
    // The one known bug: a call to a function defined further down the module unwraps `None`
    // in starlark 0.14.2's typing/bindings.rs:347 (both fuzzers find it within minutes; see
    // docs/results/). Any other crash is new.
    let known = "called `Option::unwrap()` on a `None` value";
    let other: Vec<_> = validity
        .crashes
        .iter()
        .filter(|c| c.message != known)
        .collect();
    assert!(other.is_empty(), "{other:#?}");
    assert_eq!(validity.refused_at("parse"), 0, "{validity:#?}");
    assert!(validity.percent(validity.valid) >= 20.0, "{validity:#?}");
}

/// Found by `bonsai negative grammars/starlark.ebnf --cover cdrc --target starlark` (a symbol
/// deletion mutant; docs/results/issue-16-negative-suites.md): starlark 0.14.2's type checker does not
/// terminate on a local assigned a tuple that holds itself, while a list that holds itself, or
/// the same tuple at module level, is checked at once. The forked replay reports a timeout.
#[test]
fn a_local_tuple_holding_itself_hangs_the_type_checker() {
    let dir = tempfile::tempdir().unwrap();
    let replay = |name: &str, source: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, source).unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_bonsai-starlark"))
            .args([
                "replay",
                "--target",
                "starlark",
                "--timeout-ms",
                "2000",
                "--json",
            ])
            .arg(&path)
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let hang = replay("tuple.star", "def f():\n    a = (a,)\n");
    assert!(hang.contains("\"timeout\""), "{hang}");
    let list = replay("list.star", "def f():\n    a = [a]\n");
    assert!(list.contains("\"valid\""), "{list}");
    let module = replay("module.star", "a = (a, 1)\n");
    assert!(module.contains("\"valid\""), "{module}");
}

/// Found by `bonsai fuzz` without `--bounds` (issue 30, docs/results/bugs.md):
/// starlark 0.14.2 recurses once per level of nesting, with no limit, in its parser (a type
/// annotation `list[list[...]]`) and in its compiler's scope pass (a chain of `not`), so a
/// program nested some thousands of levels deep overflows a main thread's 8 MB stack. The
/// overflow aborts the process, so each case runs this test binary again as a child that only
/// checks the program, on a thread with a main thread's stack, and expects it to die of it.
#[test]
fn deep_nesting_overflows_the_stack() {
    const CHILD: &str = "BONSAI_STARLARK_OVERFLOW_CHILD";
    let depth = 100_000;
    let programs = [
        (
            "not",
            format!("def f():\n    return {}0\n", "not ".repeat(depth)),
        ),
        (
            "list",
            format!(
                "def f(a: {}int{}):\n    pass\n",
                "list[".repeat(depth),
                "]".repeat(depth)
            ),
        ),
    ];
    if let Ok(which) = std::env::var(CHILD) {
        let (_, program) = programs.iter().find(|(name, _)| *name == which).unwrap();
        let program = program.clone();
        let worker = std::thread::Builder::new()
            .stack_size(bonsai::target::DEFAULT_TARGET_STACK)
            .spawn(move || {
                let _ = bonsai::target::Target::run(&mut Starlark::new(), program.as_bytes());
            })
            .unwrap();
        let _ = worker.join();
        return;
    }
    for (name, _) in &programs {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "deep_nesting_overflows_the_stack", "--nocapture"])
            .env(CHILD, name)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{name}: {depth} levels checked: {stderr}"
        );
        assert!(
            stderr.contains("has overflowed its stack"),
            "{name}: {stderr}"
        );
    }
}
