//! `bonsai replay --json --output` carries each input's golden output (what
//! scripts/mutation-score compares between a mutant and the original), and only when asked.

use std::path::PathBuf;
use std::process::{Command, Output};

use bonsai::target::Target;
use bonsai_target_example::Example;
use serde_json::Value;

fn replay(dir: &PathBuf, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bonsai-example"))
        .args(["replay", "--target", "example"])
        .args(extra)
        .arg(dir)
        .env("BONSAI_LOG", "warn")
        .output()
        .expect("bonsai-example runs")
}

fn lines(output: &Output) -> Vec<Value> {
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn replay_json_output_adds_each_inputs_golden_output() {
    let dir = std::env::temp_dir().join(format!("bonsai-replay-output-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let programs = [
        "let a = 6;\nlet b = a * 7;\nprint b - a;\n",
        "let a = 1;\nprint a / 0;\n",
    ];
    for (i, program) in programs.iter().enumerate() {
        std::fs::write(dir.join(format!("{i:06}.txt")), program).unwrap();
    }

    let with = lines(&replay(&dir, &["--json", "--output"]));
    assert_eq!(with.len(), programs.len() + 1, "{with:?}");
    for (line, program) in with.iter().zip(programs) {
        let expected = Example.output(program.as_bytes());
        assert_eq!(line["output"], Value::String(expected), "{line}");
    }
    assert_eq!(with[0]["output"], "valid\n36");
    assert!(with.last().unwrap().get("total").is_some());

    let without = lines(&replay(&dir, &["--json"]));
    assert!(
        without.iter().all(|l| l.get("output").is_none()),
        "{without:?}"
    );
    let refused = replay(&dir, &["--output"]);
    assert_eq!(refused.status.code(), Some(2), "--output needs --json");
    std::fs::remove_dir_all(&dir).ok();
}

/// `replay --grammar` goes through the importer like every other command: `.choices` drawn
/// from an ANTLR grammar replay with the `.g4` itself (it was read as native EBNF and failed
/// with "unterminated repetition count").
#[test]
fn replay_takes_an_antlr_grammar() {
    let dir = std::env::temp_dir().join(format!("bonsai-replay-antlr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let grammar = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../grammars/antlr/Json.g4");
    let generated = Command::new(env!("CARGO_BIN_EXE_bonsai-example"))
        .args([
            "generate",
            grammar.to_str().unwrap(),
            "--bounds",
            "2,2,3",
            "--count",
            "3",
            "--save-choices",
        ])
        .arg("--out")
        .arg(&dir)
        .env("BONSAI_LOG", "warn")
        .output()
        .unwrap();
    assert!(generated.status.success(), "{generated:?}");
    let replayed = lines(&replay(
        &dir,
        &["--json", "--grammar", grammar.to_str().unwrap()],
    ));
    let choices = replayed
        .iter()
        .filter(|l| l["name"].as_str().is_some_and(|n| n.ends_with(".choices")))
        .count();
    assert!(choices >= 3, "{replayed:?}");
    std::fs::remove_dir_all(&dir).ok();
}
