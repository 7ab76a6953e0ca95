//! `bonsai negative --target example`, run as a user would: every negative goes through the
//! golden letcalc in its own process; it accepts none, and the one it refuses only later than
//! the oracle shows where letcalc's language is larger than the grammar (statements on one
//! line, where the grammar puts a NEWLINE after each). The positive words go through it too.

use std::process::Command;

#[test]
fn the_golden_parser_accepts_no_negative() {
    let dir = std::env::temp_dir().join(format!("bonsai-negative-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_bonsai-example"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "negative",
            "letcalc.ebnf",
            "--cover",
            "cdrc",
            "--max",
            "300",
        ])
        .args(["--target", "example", "--out"])
        .arg(&dir)
        .output()
        .expect("bonsai-example runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("target example: 0 accepted, 290 refused, 0 faults"),
        "{stdout}"
    );
    assert!(stdout.contains("refused by stage 'parse': 290"), "{stdout}");
    // The positive side: one word of the cdrc suite divides by zero, the others evaluate.
    assert!(
        stdout.contains("positive words refused: 1 of 23"),
        "{stdout}"
    );
    assert!(stdout.contains("division by zero"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("target.json")).unwrap()).unwrap();
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 290);
    let later: Vec<_> = runs
        .iter()
        .filter(|r| {
            let at = |v: &serde_json::Value| -> (u64, u64) {
                let (l, c) = v.as_str().unwrap().split_once(':').unwrap();
                (l.parse().unwrap(), c.parse().unwrap())
            };
            !r["target_position"].is_null() && at(&r["target_position"]) > at(&r["oracle"])
        })
        .collect();
    assert_eq!(later.len(), 1, "{later:?}");
    let text = std::fs::read_to_string(dir.join(later[0]["file"].as_str().unwrap())).unwrap();
    assert!(text.contains("; let\n"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
