//! `bonsai reduce` from the command line: results, files written, and exit code 2 with a
//! located message for every bad input.

mod common;

use std::ffi::OsStr;
use std::path::Path;

use common::{bonsai, grammar_path};

/// Generates inputs with their choices into `dir`; returns the path of the first `.choices`
/// whose text contains `needle`, and that text.
fn input_with(dir: &Path, needle: &str) -> (std::path::PathBuf, String) {
    let grammar = grammar_path("chocopy");
    let out = dir.join("gen");
    let (code, _, stderr) = bonsai(&[
        OsStr::new("generate"),
        grammar.as_os_str(),
        OsStr::new("--bounds"),
        OsStr::new("3,3,3"),
        OsStr::new("--count"),
        OsStr::new("20"),
        OsStr::new("--seed"),
        OsStr::new("7"),
        OsStr::new("--out"),
        out.as_os_str(),
        OsStr::new("--save-choices"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    for i in 0..20 {
        let text = std::fs::read_to_string(out.join(format!("{i:06}.txt"))).unwrap();
        if text.contains(needle) {
            return (out.join(format!("{i:06}.choices")), text);
        }
    }
    panic!("no generated input contains {needle:?}");
}

fn reduce(args: &[&OsStr]) -> (i32, String, String) {
    let grammar = grammar_path("chocopy");
    let mut all = vec![OsStr::new("reduce"), grammar.as_os_str()];
    all.extend_from_slice(args);
    bonsai(&all)
}

#[test]
fn reduces_a_choices_file_to_a_small_program_and_saves_its_choices() {
    let dir = tempfile::tempdir().unwrap();
    let (input, text) = input_with(dir.path(), "while");
    let (out, saved) = (dir.path().join("r.txt"), dir.path().join("r.choices"));
    let (code, stdout, stderr) = reduce(&[
        input.as_os_str(),
        OsStr::new("--contains"),
        OsStr::new("while"),
        OsStr::new("--out"),
        out.as_os_str(),
        OsStr::new("--save-choices"),
        saved.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty());
    let reduced = std::fs::read_to_string(&out).unwrap();
    assert_eq!(reduced, "while a:\n    a\n", "from {text:?}");
    assert!(
        stderr.contains(&format!(
            "reduced {} to {} bytes",
            text.len(),
            reduced.len()
        )),
        "{stderr}"
    );
    // The saved choices replay, strictly, to the reduced text.
    let (code, replayed, stderr) = bonsai(&[
        OsStr::new("generate"),
        grammar_path("chocopy").as_os_str(),
        OsStr::new("--replay"),
        saved.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(replayed, format!("{reduced}\n"));
}

#[test]
fn text_files_are_parsed_for_hdd_and_taken_as_they_are_by_ddmin() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = input_with(dir.path(), "while");
    let text = input.with_extension("txt");
    let (code, stdout, stderr) = reduce(&[
        text.as_os_str(),
        OsStr::new("--contains"),
        OsStr::new("while"),
    ]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "while a:\n    a\n"),
        "{stderr}"
    );
    let (code, stdout, stderr) = reduce(&[
        text.as_os_str(),
        OsStr::new("--contains"),
        OsStr::new("while"),
        OsStr::new("--reducer"),
        OsStr::new("ddmin"),
    ]);
    assert_eq!((code, stdout.as_str()), (0, "while"), "{stderr}");
    // Text outside the grammar: HDD says where, and what would reduce it anyway.
    let broken = dir.path().join("broken.txt");
    std::fs::write(&broken, "x = = 1\nwhile a:\n    a\n").unwrap();
    let (code, _, stderr) = reduce(&[
        broken.as_os_str(),
        OsStr::new("--contains"),
        OsStr::new("while"),
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("broken.txt:1:5: error: unexpected '='")
            && stderr.contains("--reducer ddmin"),
        "{stderr}"
    );
    let (code, stdout, stderr) = reduce(&[
        broken.as_os_str(),
        OsStr::new("--contains"),
        OsStr::new("= ="),
        OsStr::new("--reducer"),
        OsStr::new("ddmin"),
    ]);
    assert_eq!((code, stdout.as_str()), (0, "= ="), "{stderr}");
}

#[test]
fn bad_inputs_and_flags_exit_with_code_2_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = input_with(dir.path(), "while");
    let not_text = dir.path().join("binary.txt");
    std::fs::write(&not_text, [0xff, 0xfe, 0]).unwrap();
    let garbage = dir.path().join("bad.choices");
    std::fs::write(&garbage, b"not choices").unwrap();
    let missing = dir.path().join("missing.choices");
    let cases: Vec<(Vec<&OsStr>, &str)> = vec![
        (vec![input.as_os_str()], "no criterion"),
        (
            vec![
                input.as_os_str(),
                OsStr::new("--contains"),
                OsStr::new("zz\u{1}"),
            ],
            "lacks 'zz\u{1}'",
        ),
        (
            vec![
                garbage.as_os_str(),
                OsStr::new("--contains"),
                OsStr::new("a"),
            ],
            "bad.choices: error: not a Bonsai choices file",
        ),
        (
            vec![
                missing.as_os_str(),
                OsStr::new("--contains"),
                OsStr::new("a"),
            ],
            "missing.choices: error: cannot read",
        ),
        (
            vec![
                input.as_os_str(),
                OsStr::new("--contains"),
                OsStr::new("a"),
                OsStr::new("--bounds"),
                OsStr::new("1,1,1"),
            ],
            "out of bounds",
        ),
        (
            vec![
                input.as_os_str(),
                OsStr::new("--contains"),
                OsStr::new("a"),
                OsStr::new("--reducer"),
                OsStr::new("best"),
            ],
            "unknown reducer 'best'",
        ),
        (
            vec![
                input.as_os_str(),
                OsStr::new("--contains"),
                OsStr::new("a"),
                OsStr::new("--criterion"),
                OsStr::new("crash"),
            ],
            "--target",
        ),
        (
            vec![
                input.as_os_str(),
                OsStr::new("--contains"),
                OsStr::new("a"),
                OsStr::new("--reducer"),
                OsStr::new("ddmin"),
                OsStr::new("--save-choices"),
                OsStr::new("x.choices"),
            ],
            "ddmin alone edits text",
        ),
    ];
    for (args, expected) in cases {
        let (code, _, stderr) = reduce(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains(expected),
            "{args:?}: expected {expected:?} in {stderr}"
        );
    }
    // An unwritable output is reported, and the input is left alone.
    let before = std::fs::read(&input).unwrap();
    let unwritable = dir.path().join("no/such/dir/out.txt");
    let (code, _, stderr) = reduce(&[
        input.as_os_str(),
        OsStr::new("--contains"),
        OsStr::new("while"),
        OsStr::new("--out"),
        unwritable.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
    assert_eq!(std::fs::read(&input).unwrap(), before);
}
