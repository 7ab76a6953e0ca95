//! 1,000 programs from grammars/javascript.ebnf through oxc's whole pipeline: no crash other
//! than the known one, and most programs compile.

use std::path::Path;

use bonsai::grammar::Grammar;
use bonsai::sampler::Bounds;
use bonsai::target::ValidityReport;
use bonsai_target_oxc::Oxc;

#[test]
fn generated_programs_compile_and_only_the_known_bug_crashes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../grammars/javascript.ebnf");
    let grammar = Grammar::from_file(&path).expect("the shipped grammar loads");
    let bounds = Bounds::new(3, 3, 3).unwrap();
    let validity = ValidityReport::measure(&mut Oxc::new(), &grammar, bounds, 1000, 1).unwrap();
    // Known crasher, skipped explicitly: the minifier's debug-only under-prune check (see the
    // `known_bugs` test in src/lib.rs and tests/crashes/). Anything else is a new bug.
    let unknown: Vec<_> = validity
        .crashes
        .iter()
        .filter(|c| !c.message.starts_with("incremental scoping under-prune"))
        .collect();
    assert!(unknown.is_empty(), "{unknown:#?}");
    assert!(validity.percent(validity.valid) >= 60.0, "{validity:#?}");
    assert!(
        validity.percent(validity.refused_at("parse")) <= 5.0,
        "{validity:#?}"
    );
}

/// Found by `bonsai fuzz` without `--bounds` (issue 30, docs/results/bugs.md): oxc
/// 0.146.0's parser recurses once per nested arrow function (and per nested parenthesis,
/// assignment or `**`) with no limit, so a program nested some thousands of levels deep
/// overflows a main thread's 8 MB stack. The overflow aborts the process, so the test runs
/// this binary again as a child that only runs the target, on a thread with a main thread's
/// stack, and expects it to die of it.
#[test]
fn deeply_nested_arrow_functions_overflow_the_stack() {
    const CHILD: &str = "BONSAI_OXC_OVERFLOW_CHILD";
    let depth = 100_000;
    if std::env::var_os(CHILD).is_some() {
        let program = format!("a = {}0;\n", "() => ".repeat(depth));
        let worker = std::thread::Builder::new()
            .stack_size(bonsai::target::DEFAULT_TARGET_STACK)
            .spawn(move || {
                let _ = bonsai::target::Target::run(
                    &mut bonsai_target_oxc::Oxc::new(),
                    program.as_bytes(),
                );
            })
            .unwrap();
        let _ = worker.join();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "deeply_nested_arrow_functions_overflow_the_stack",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{depth} levels ran: {stderr}");
    assert!(stderr.contains("has overflowed its stack"), "{stderr}");
}
