//! The schemata rewrite of tests/fixture/ops.rs: the expected mutants, and a rewritten program
//! that behaves like the original with no mutant active and like the hand-made mutant with
//! one active. Compiles the fixture with the `rustc` on PATH.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use bonsai_schemata::{Cfg, Mutant, rewrite, runtime};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixture")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

fn rewritten(exclude: &BTreeSet<u32>) -> (String, Vec<Mutant>) {
    let r = rewrite(&fixture("ops.rs"), "ops.rs", 1, exclude, &Cfg::default()).unwrap();
    (r.text, r.mutants)
}

/// Builds the driver as `main.rs` (with the runtime when `last` is given) and `ops` into a
/// binary.
fn build(dir: &Path, ops: &str, last: Option<u32>) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let mut main = fixture("driver.rs");
    if let Some(last) = last {
        main.push_str(&runtime(1, last));
    }
    std::fs::write(dir.join("main.rs"), main).unwrap();
    std::fs::write(dir.join("ops.rs"), ops).unwrap();
    let exe = dir.join("program");
    let out = Command::new("rustc")
        .args(["--edition", "2024", "--cap-lints", "allow", "-o"])
        .arg(&exe)
        .arg(dir.join("main.rs"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, env: &[(&str, &str)]) -> String {
    let out = Command::new(exe)
        .env_remove("BONSAI_MUTANT")
        .env_remove("BONSAI_MUTANT_TRACE")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{exe:?} {env:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The original file with one operator or literal replaced by hand, at the manifest's place
/// (the fixture's parentheses make this the same program as a replacement in the tree).
fn hand_mutant(source: &str, m: &Mutant) -> String {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    let line = &mut lines[m.line - 1];
    let at = line
        .char_indices()
        .nth(m.column - 1)
        .map(|(i, _)| i)
        .unwrap();
    assert_eq!(&line[at..at + m.original.len()], m.original, "{m:?}");
    line.replace_range(at..at + m.original.len(), &m.replacement);
    lines.join("\n") + "\n"
}

#[test]
fn the_fixture_gets_the_expected_mutants() {
    let (_, mutants) = rewritten(&BTreeSet::new());
    let listed: Vec<String> = mutants
        .iter()
        .map(|m| {
            format!(
                "{} {}:{} {}>{}",
                m.id, m.line, m.column, m.original, m.replacement
            )
        })
        .collect();
    let expected = [
        // (a + b * 2) - (a / (b + 1) % 3)
        "1 4:17 ->+",
        "2 4:17 ->/",
        "3 4:8 +>-",
        "4 4:8 +>*",
        "5 4:12 *>/",
        "6 4:12 *>+",
        "7 4:32 %>/",
        "8 4:32 %>+",
        "9 4:22 />*",
        "10 4:22 />%",
        "11 4:27 +>-",
        "12 4:27 +>*",
        "13 4:29 1>0",
        // [a < b, a <= b, a > b, a >= b, a == b, a != b]
        "14 8:8 <><=",
        "15 8:8 <>==",
        "16 8:8 <>>",
        "17 8:15 <=><",
        "18 8:15 <=>>",
        "19 8:23 >>>=",
        "20 8:23 >>==",
        "21 8:23 >><",
        "22 8:30 >=>>",
        "23 8:30 >=><",
        "24 8:38 ==>!=",
        "25 8:46 !=>==",
        // a && !b || b
        "26 12:13 ||>&&",
        "27 12:7 &&>||",
        "28 12:10 !>",
        // (a & b) | (a ^ b) << 1 >> 1
        "29 16:13 |>&",
        "30 16:13 |>^",
        "31 16:8 &>|",
        "32 16:8 &>^",
        "33 16:28 >>><<",
        "34 16:23 <<>>>",
        "35 16:18 ^>&",
        "36 16:18 ^>|",
        "37 16:26 1>0",
        "38 16:31 1>0",
        // a += b; a -= 1;
        "39 20:7 +=>-=",
        "40 20:7 +=>*=",
        "41 21:7 -=>+=",
        "42 21:7 -=>/=",
        "43 21:10 1>0",
        // if flag == true { 0 } else { 7 }
        "44 26:13 ==>!=",
        "45 26:16 true>false",
        "46 26:23 0>1",
        // -a + -1
        "47 30:8 +>-",
        "48 30:8 +>*",
        "49 30:5 ->",
        "50 30:11 1>0",
        // 0 => [0u8; 1].len() > 2: the pattern and the array length are constants
        "51 38:29 >>>=",
        "52 38:29 >>==",
        "53 38:29 >><",
        "54 38:15 0u8>1u8",
        "55 39:16 >>>=",
        "56 39:16 >>==",
        "57 39:16 >><",
    ];
    assert_eq!(listed, expected);
}

#[test]
fn every_mutant_behaves_like_its_hand_made_version_and_none_like_the_original() {
    let tmp = std::env::temp_dir().join(format!("bonsai-schemata-test-{}", std::process::id()));
    let source = fixture("ops.rs");
    let original = run(&build(&tmp.join("original"), &source, None), &[]);
    let (text, mutants) = rewritten(&BTreeSet::new());
    let last = mutants.last().unwrap().id;
    let schemata = build(&tmp.join("schemata"), &text, Some(last));
    assert_eq!(run(&schemata, &[]), original, "no mutant active");
    assert_eq!(
        run(&schemata, &[("BONSAI_MUTANT", "0")]),
        original,
        "0 names no mutant"
    );
    let mut changed = 0;
    for m in &mutants {
        let by_hand = run(
            &build(
                &tmp.join(format!("m{}", m.id)),
                &hand_mutant(&source, m),
                None,
            ),
            &[],
        );
        let id = m.id.to_string();
        let selected = run(&schemata, &[("BONSAI_MUTANT", &id)]);
        assert_eq!(selected, by_hand, "mutant {m:?}");
        changed += usize::from(selected != original);
    }
    // Nearly every mutant of this fixture shows on its inputs: the check above compares
    // something.
    assert!(
        changed > mutants.len() * 3 / 4,
        "{changed} of {}",
        mutants.len()
    );
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn excluded_mutants_keep_their_ids_and_the_original_code() {
    let tmp = std::env::temp_dir().join(format!("bonsai-schemata-ex-{}", std::process::id()));
    let exclude: BTreeSet<u32> = [3, 4, 28].into();
    let (text, mutants) = rewritten(&exclude);
    let (_, all) = rewritten(&BTreeSet::new());
    assert_eq!(mutants, all, "ids do not depend on exclusions");
    assert!(!text.contains("__bonsai_mutant(3)") && !text.contains("__bonsai_mutant(28)"));
    assert!(
        text.contains("__bonsai_mutant(5)"),
        "sites inside an excluded one stay"
    );
    let exe = build(&tmp, &text, Some(all.last().unwrap().id));
    let original = run(&exe, &[]);
    assert_eq!(run(&exe, &[("BONSAI_MUTANT", "3")]), original);
    assert_ne!(run(&exe, &[("BONSAI_MUTANT", "5")]), original);
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn tracing_reports_the_mutation_points_a_run_reaches_once_each() {
    let tmp = std::env::temp_dir().join(format!("bonsai-schemata-tr-{}", std::process::id()));
    let (text, mutants) = rewritten(&BTreeSet::new());
    let exe = build(&tmp, &text, Some(mutants.last().unwrap().id));
    let out = run(&exe, &[("BONSAI_MUTANT_TRACE", "1")]);
    let reached: Vec<u32> = out
        .lines()
        .filter_map(|l| l.strip_prefix("@bonsai-mutant "))
        .map(|id| id.parse().unwrap())
        .collect();
    let unique: BTreeSet<u32> = reached.iter().copied().collect();
    assert_eq!(unique.len(), reached.len(), "each point once per process");
    // The driver's inputs reach every point, including `[0u8; 1].len() > 2` (only for 0)
    // and `!b` (only when `a` holds).
    let all: BTreeSet<u32> = mutants.iter().map(|m| m.id).collect();
    assert_eq!(unique, all);
    // Tracing activates no mutant.
    let plain: String = out
        .lines()
        .filter(|l| !l.starts_with('@'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(plain, run(&exe, &[]));
    std::fs::remove_dir_all(&tmp).ok();
}
