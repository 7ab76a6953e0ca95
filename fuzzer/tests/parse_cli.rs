//! `bonsai parse` and `bonsai import` as a user runs them: exit codes, located errors,
//! written choices that replay to the text, and an import report that accounts for every file.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::grammar_path;

fn bonsai(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bonsai"))
        .args(args)
        .output()
        .expect("the bonsai binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn replay(grammar: &str, choices: &Path) -> String {
    let out = bonsai(&["generate", grammar, "--replay", path(choices)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut replayed = text(&out.stdout);
    replayed.pop(); // the separator after the input
    replayed
}

#[test]
fn parse_exit_codes_and_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    let json = grammar_path("json");
    let json = path(&json);
    let good = dir.path().join("good.json");
    let bad = dir.path().join("bad.json");
    std::fs::write(&good, "{\"a\": [1, 2]}").unwrap();
    std::fs::write(&bad, "{\"a\": [1, 2}").unwrap();

    let out = bonsai(&["parse", json, path(&good)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("good.json: accepted"));

    let out = bonsai(&["parse", json, path(&good), path(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr
            .contains("bad.json:1:12: error: unexpected '}'; expected one of: \",\", \".\", \"]\""),
        "{stderr}"
    );

    let missing = dir.path().join("missing.json");
    let out = bonsai(&["parse", json, path(&good), path(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("missing.json: error: cannot read"));
}

#[test]
fn parse_to_choices_writes_replayable_sequences() {
    let dir = tempfile::tempdir().unwrap();
    let grammar = grammar_path("chocopy");
    let grammar = path(&grammar);
    let program = "def f(a: int) -> int:\n    return a + 1\n\nprint(f(2))\n";
    let input = dir.path().join("prog.py");
    std::fs::write(&input, program).unwrap();

    let out = bonsai(&["parse", grammar, path(&input), "--to-choices"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let beside = dir.path().join("prog.py.choices");
    // The blank line is layout the grammar does not produce; everything else is identical.
    assert_eq!(
        replay(grammar, &beside),
        "def f(a: int) -> int:\n    return a + 1\nprint(f(2))\n"
    );

    let out_dir = dir.path().join("choices");
    let out = bonsai(&[
        "parse",
        grammar,
        path(&input),
        "--to-choices",
        "--out",
        path(&out_dir),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(out_dir.join("prog.py.choices")).unwrap(),
        std::fs::read(&beside).unwrap()
    );
}

#[test]
fn import_accounts_for_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds");
    std::fs::create_dir_all(seeds.join("nested")).unwrap();
    std::fs::write(seeds.join("a.json"), "[1, 2, 3]").unwrap();
    std::fs::write(seeds.join("b.json"), "{\n  \"a\":  true\n}\n").unwrap();
    std::fs::write(seeds.join("nested/c.json"), "{\"name\": 1}").unwrap();
    std::fs::write(seeds.join("nested/d.json"), "[1,, 2]").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("nowhere"), seeds.join("e.json")).unwrap();
    let json = grammar_path("json");
    let json = path(&json);
    let corpus = dir.path().join("corpus");

    let out = bonsai(&["import", json, path(&seeds), "--out", path(&corpus)]);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(if cfg!(unix) { 2 } else { 1 }),
        "{stderr}"
    );
    let report = std::fs::read_to_string(corpus.join("import-report.txt")).unwrap();
    let lines: Vec<&str> = report.lines().skip(1).collect();
    assert_eq!(lines.len(), if cfg!(unix) { 5 } else { 4 }, "{report}");
    assert!(
        lines[0].ends_with("a.json: accepted as 000000 (exact, bounds 1,2,2)"),
        "{report}"
    );
    assert!(
        lines[1].ends_with("b.json: accepted as 000001 (layout differs, bounds 1,1,2)"),
        "{report}"
    );
    // A key that is not a value of the KEY pool is the file's own word: kept, not renamed.
    assert!(
        report.contains("c.json: accepted as 000002 (exact, bounds 1,1,2); 1 word of its own"),
        "{report}"
    );
    assert_eq!(
        std::fs::read_to_string(corpus.join("000002.txt")).unwrap(),
        "{\"name\": 1}"
    );
    assert!(
        report.contains("d.json:1:4: error: unexpected ','"),
        "{report}"
    );
    if cfg!(unix) {
        assert!(report.contains("e.json: error: cannot read"), "{report}");
    }
    assert_eq!(replay(json, &corpus.join("000000.choices")), "[1, 2, 3]");
    assert_eq!(
        std::fs::read_to_string(corpus.join("000001.txt")).unwrap(),
        "{\"a\": true}"
    );
    assert_eq!(
        replay(json, &corpus.join("000001.choices")),
        "{\"a\": true}"
    );
    assert_eq!(
        replay(json, &corpus.join("000002.choices")),
        "{\"name\": 1}"
    );

    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("import-report.json")).unwrap()).unwrap();
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), lines.len());
    assert_eq!(report["accepted"], 3);
    assert_eq!(report["rejected"], 1);
    assert_eq!(files[3]["own_words"], 1, "{report}");

    // Importing into the same, now non-empty, corpus is refused rather than mixed.
    let out = bonsai(&["import", json, path(&seeds), "--out", path(&corpus)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not empty"));

    // With renaming, the seed with an unknown key becomes an entry too.
    let renamed = dir.path().join("renamed");
    bonsai(&[
        "import",
        json,
        path(&seeds),
        "--out",
        path(&renamed),
        "--rename-pools",
    ]);
    let report = std::fs::read_to_string(renamed.join("import-report.txt")).unwrap();
    assert!(
        report.contains(
            "c.json: accepted as 000002 (pool words renamed, bounds 1,1,2); KEY \"name\" -> \"a\""
        ),
        "{report}"
    );
    assert_eq!(replay(json, &renamed.join("000002.choices")), "{\"a\": 1}");

    // Rejecting them stops the file at its first unknown key, where it is.
    let strict = dir.path().join("strict");
    bonsai(&[
        "import",
        json,
        path(&seeds),
        "--out",
        path(&strict),
        "--pool-words",
        "reject",
    ]);
    let report = std::fs::read_to_string(strict.join("import-report.txt")).unwrap();
    assert!(
        report.contains("c.json:1:2: error: '\"name\"' is not a value of pool KEY"),
        "{report}"
    );
}

#[test]
fn import_of_a_missing_directory_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let json = grammar_path("json");
    let missing = dir.path().join("missing");
    let out = bonsai(&[
        "import",
        path(&json),
        path(&missing),
        "--out",
        path(&dir.path().join("c")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("missing: error: cannot read the seed directory"));
}

/// A FIFO in the seed directory blocked the import forever (opening it waits for a writer),
/// and links back to an ancestor were followed round and round (123 seeds accepted from 7
/// files). Now only regular files are read, each once, and the rest is listed as skipped.
#[test]
fn import_reads_each_regular_file_once_and_never_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds");
    std::fs::create_dir_all(seeds.join("nested")).unwrap();
    std::fs::write(seeds.join("a.json"), "[1, 2, 3]").unwrap();
    std::fs::write(seeds.join("nested/b.json"), "[true]").unwrap();
    std::os::unix::fs::symlink(&seeds, seeds.join("nested/up")).unwrap();
    std::os::unix::fs::symlink(seeds.join("a.json"), seeds.join("c.json")).unwrap();
    let fifo = seeds.join("pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let json = grammar_path("json");
    let corpus = dir.path().join("corpus");

    let mut child = Command::new(env!("CARGO_BIN_EXE_bonsai"))
        .args(["import", path(&json), path(&seeds), "--out", path(&corpus)])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("import blocked");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(corpus.join("import-report.json")).unwrap()).unwrap();
    assert_eq!(report["accepted"], 2, "{report:#}");
    assert_eq!(report["skipped"], 3, "{report:#}");
    let why = |name: &str| -> String {
        let file = report["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} not in {report:#}"));
        assert_eq!(file["status"], "skipped", "{file}");
        file["why"].as_str().unwrap().to_string()
    };
    assert_eq!(
        why("c.json"),
        format!("the same file as {}", seeds.join("a.json").display())
    );
    assert_eq!(why("pipe.json"), "not a regular file (a FIFO)");
    assert_eq!(
        why("nested/up"),
        format!("the same file as {}", seeds.display())
    );
    assert!(stdout.contains("imported 2 of 5 seeds"), "{stdout}");
}

/// A word the parser can only read as two pool values (`FOO` as `FO` `O`) is replayed with a
/// space between them: a change of meaning, which `parse` must refuse at the word instead of
/// reporting "layout differs". Words it reads whole still import.
#[test]
fn a_word_read_as_two_tokens_is_refused_not_called_layout() {
    let dir = tempfile::tempdir().unwrap();
    let grammar = dir.path().join("select.ebnf");
    std::fs::write(
        &grammar,
        "stmt = \"SELECT\" NAME+ \"FROM\" NAME+ \";\" ;\n%pool NAME = \"FO\" | \"O\" | \"BAR\" ;\n",
    )
    .unwrap();
    let split = dir.path().join("split.sql");
    std::fs::write(&split, "SELECT FOO FROM BAR;").unwrap();
    let out = bonsai(&["parse", path(&grammar), path(&split)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("split.sql:1:10:") && stderr.contains("change its meaning"),
        "{stderr}"
    );
    let spaced = dir.path().join("spaced.sql");
    std::fs::write(&spaced, "SELECT FO O FROM BAR;").unwrap();
    let out = bonsai(&["parse", path(&grammar), path(&spaced)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// A grammar with line and block comments (`%comment`), and a file with a comment in every
/// place one can stand between tokens: the import skips them all, says so ("comments and
/// layout differ"), and the entry replays to the file's tokens without its comments. A comment
/// opener inside a string is part of the string, and a comment-only line at any indentation
/// opens no block.
#[test]
fn comments_in_every_position_are_skipped_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let grammar = dir.path().join("lang.ebnf");
    std::fs::write(
        &grammar,
        "%comment \"#\";\n%comment \"/*\" \"*/\";\n\
         program = stmt* ;\n\
         stmt = \"let\" NAME \"=\" expr \";\" | \"print\" expr \";\" ;\n\
         expr = NAME | STRING | expr \"+\" expr ;\n\
         %pool NAME = \"a\" | \"b\" ;\n\
         STRING = \"\\\"\" /[a-z# \\/*]*/ \"\\\"\" ;\n",
    )
    .unwrap();
    let seeds = dir.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    let file = "# leading\n/* block */let/*1*/a/* 2 */=/*3*/\"x # y /* z\"/**/+ b;# trailing\n\
                print/*\n multi-line */a; # end\n# last line";
    std::fs::write(seeds.join("commented.txt"), file).unwrap();
    std::fs::write(seeds.join("plain.txt"), "let a = b;").unwrap();
    // An unclosed block comment is no comment: rejected where it starts.
    std::fs::write(seeds.join("unclosed.txt"), "let a = b; /* no end").unwrap();
    let corpus = dir.path().join("corpus");
    let out = bonsai(&[
        "import",
        path(&grammar),
        path(&seeds),
        "--out",
        path(&corpus),
    ]);
    let report = std::fs::read_to_string(corpus.join("import-report.txt"))
        .unwrap_or_else(|_| panic!("{}", text(&out.stderr)));
    assert!(
        report.contains("commented.txt: accepted as 000000 (comments and layout differ"),
        "{report}"
    );
    assert!(
        report.contains("plain.txt: accepted as 000001 (exact"),
        "{report}"
    );
    assert!(report.contains("unclosed.txt:1:12: error"), "{report}");
    let replayed = replay(path(&grammar), &corpus.join("000000.choices"));
    let tokens = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        tokens(&replayed),
        tokens("let a = \"x # y /* z\" + b; print a;"),
        "{replayed}"
    );

    // Python-like blocks: comment lines at any indentation, and after a line's code.
    let indented = dir.path().join("blocks.ebnf");
    std::fs::write(
        &indented,
        "%comment \"#\";\n\
         program = stmt+ ;\n\
         stmt = \"pass\" NEWLINE | \"if\" \"x\" \":\" NEWLINE INDENT stmt+ DEDENT\n              | \"f\" \"(\" \"x\" ( \",\" \"x\" )* \")\" NEWLINE | \"y\" \"=\" \"x\" ( \"+\" \"x\" )* NEWLINE ;\n",
    )
    .unwrap();
    let source = dir.path().join("blocks.py");
    std::fs::write(
        &source,
        "if x:  # a block\n        # deeper comment\n    pass\n# at column 1\n    pass # two\npass\n",
    )
    .unwrap();
    let out = bonsai(&["parse", path(&indented), path(&source)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Lines joined inside brackets (any indentation, comments between) and by a backslash.
    let joined = dir.path().join("joined.py");
    std::fs::write(
        &joined,
        "if x:\n    f(x,  # first\n  x,\n          x)\n    y = x + \\\n x\npass\n",
    )
    .unwrap();
    let choices = dir.path().join("choices");
    let out = bonsai(&[
        "parse",
        path(&indented),
        path(&joined),
        "--to-choices",
        "--out",
        path(&choices),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        replay(path(&indented), &choices.join("joined.py.choices")),
        "if x:\n    f(x, x, x)\n    y = x + x\npass\n"
    );
}
