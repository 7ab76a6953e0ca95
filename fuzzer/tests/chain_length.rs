//! `scripts/chain-length` counts the conditional chains in a queue and the children of the
//! long ones: the figures docs/results/issue-30-deep-inputs.md reads oxc's chain hang by. Needs `python3`, as the
//! script itself does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script(args: &[&str]) -> Output {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/chain-length");
    Command::new("python3")
        .arg(path)
        .args(args)
        .output()
        .expect("python3 runs (scripts/chain-length needs it)")
}

fn entry(queue: &Path, number: u32, text: &str, parent: Option<u32>) {
    std::fs::write(queue.join(format!("{number:06}.txt")), text).unwrap();
    let parent = parent.map_or(String::new(), |p| format!(",\"parent\":{p}"));
    std::fs::write(
        queue.join(format!("{number:06}.meta")),
        format!("{{\"size\":{},\"valid\":true{parent}}}\n", text.len()),
    )
    .unwrap();
}

#[test]
fn counts_chains_per_expression_and_the_children_of_long_ones() {
    let dir = tempfile::tempdir().unwrap();
    let queue = dir.path().join("queue");
    std::fs::create_dir(&queue).unwrap();
    let chain = |k: usize| format!("x = {}0;", "a ? b : ".repeat(k));
    // Six conditionals in one expression; `??`, `?.` and a quoted `?` are none.
    entry(
        &queue,
        0,
        &format!("{} y = a ?? b?.c; z = \"???\";", chain(6)),
        None,
    );
    // Two expressions of three: the longest is 3.
    entry(
        &queue,
        1,
        "f(a ? b : c ? d : e ? f : g, h ? i : j ? k : l ? m : n);",
        None,
    );
    // Nested in brackets: each depth counts apart; 12 at the inner one.
    entry(&queue, 2, &format!("g(a ? ({}) : b);", chain(12)), Some(0));
    entry(&queue, 3, &chain(30), Some(2));
    entry(&queue, 4, "y = 1;", Some(3));
    entry(&queue, 5, "y = 2;", Some(3));
    let output = script(&["--at-least", "12", dir.path().to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let row: Vec<&str> = stdout.lines().nth(1).unwrap().split('\t').collect();
    // entries, >=5, >=10, >=20, >=12, longest, children of >=12 (entry 3 of 2, 4 and 5 of 3).
    assert_eq!(&row[1..], ["6", "3", "2", "1", "2", "30", "3"], "{stdout}");
}

#[test]
fn bad_flags_and_empty_directories_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let empty = script(&[dir.path().to_str().unwrap()]);
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("no entries"));
    assert_eq!(script(&["--at-least", "0", "x"]).status.code(), Some(2));
    assert_eq!(script(&["--bogus"]).status.code(), Some(2));
    assert_eq!(script(&[]).status.code(), Some(2));
}
