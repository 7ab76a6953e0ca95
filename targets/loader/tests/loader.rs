//! The loader target runs the real grammar loader: every grammar Bonsai ships loads through it,
//! a broken one is refused with the loader's located error, the binary carries coverage for the
//! loader's code, and the grammar of the format (grammars/bonsai.ebnf) reaches both verdicts.

use std::path::{Path, PathBuf};
use std::process::Command;

use bonsai::target::{Target, Verdict, query_instrumented};
use bonsai_target_loader::Loader;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_shipped_native_grammar_loads_through_the_target() {
    let mut loaded = 0;
    for entry in std::fs::read_dir(workspace().join("grammars")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ebnf") {
            let text = std::fs::read(&path).unwrap();
            assert_eq!(Loader.run(&text), Verdict::Valid, "{}", path.display());
            loaded += 1;
        }
    }
    assert!(loaded >= 8, "only {loaded} grammars");
}

#[test]
fn a_broken_grammar_is_invalid_with_the_loaders_located_error() {
    let verdict = Loader.run(b"a = b ;\n");
    assert_eq!(
        verdict,
        Verdict::Invalid("input.ebnf:1:5: error: undefined symbol 'b'".to_string())
    );
    let verdict = Loader.run(b"a = \"x\"{65536} ;\n");
    let Verdict::Invalid(message) = verdict else {
        panic!("accepted a count past 65535");
    };
    assert!(message.starts_with("input.ebnf:1:"), "{message}");
    assert_eq!(Loader.run(&[0xff, b'a']), Verdict::Reject);
}

#[test]
fn the_binary_carries_coverage_counters_for_the_loader() {
    let binary = Path::new(env!("CARGO_BIN_EXE_bonsai-loader"));
    let counters = query_instrumented(binary, "loader").unwrap_or_else(|e| panic!("{e}"));
    // The loader is a few thousand lines: far more counters than the harness alone has.
    assert!(counters >= 1000, "only {counters} edge counters");
}

#[test]
fn the_formats_grammar_reaches_both_verdicts_and_no_fault() {
    let output = Command::new(env!("CARGO_BIN_EXE_bonsai-loader"))
        .current_dir(workspace())
        .args(["validity", "grammars/bonsai.ebnf", "--target", "loader"])
        .args(["--bounds", "3,3,3", "--count", "200", "--seed", "1"])
        .env("BONSAI_LOG", "warn")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let report = String::from_utf8_lossy(&output.stdout);
    // Lines such as `valid   35   17.5%`: the verdict, its count and its share.
    let count = |verdict: &str| -> u64 {
        report
            .lines()
            .find_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some(verdict)).then(|| words.next()?.parse().ok())?
            })
            .unwrap_or_else(|| panic!("no {verdict} line: {report}"))
    };
    assert!(count("valid") >= 10, "{report}");
    assert!(count("invalid") >= 10, "{report}");
    assert_eq!(count("crash"), 0, "{report}");
    assert_eq!(
        count("valid") + count("invalid") + count("reject"),
        200,
        "{report}"
    );
}
