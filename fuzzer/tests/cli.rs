//! The `bonsai` command line as a user runs it: `grammar check` and `generate`, the files they
//! write, and the exit codes and messages they give for bad input.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bonsai::grammar::Grammar;
use common::{SHIPPED, grammar_path};

fn bonsai(args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_bonsai"))
        .args(args)
        .output()
        .expect("the bonsai binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("panicked"),
        "bonsai {args:?} panicked:\n{stderr}"
    );
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("generated text is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn path_arg(path: &Path) -> &str {
    path.to_str().expect("test paths are UTF-8")
}

/// Asserts exit code 2 with `needle` somewhere in the message.
fn assert_usage_error(output: &Output, needle: &str) {
    assert_eq!(output.status.code(), Some(2), "stderr: {}", stderr(output));
    assert!(
        stderr(output).contains(needle),
        "expected {needle:?} in stderr:\n{}",
        stderr(output)
    );
}

fn generate(grammar: &str, bounds: &str, count: u64, seed: u64, extra: &[&str]) -> Output {
    let path = grammar_path(grammar);
    let (count, seed) = (count.to_string(), seed.to_string());
    let mut args = vec![
        "generate",
        path_arg(&path),
        "--bounds",
        bounds,
        "--count",
        &count,
        "--seed",
        &seed,
    ];
    args.extend_from_slice(extra);
    let output = bonsai(&args);
    assert!(output.status.success(), "{}", stderr(&output));
    output
}

fn replay(grammar: &str, choices: &Path, bounds: Option<&str>) -> Output {
    let path = grammar_path(grammar);
    let mut args = vec!["generate", path_arg(&path), "--replay", path_arg(choices)];
    if let Some(bounds) = bounds {
        args.extend(["--bounds", bounds]);
    }
    bonsai(&args)
}

/// Every grammar in `grammars/`, the seven and any added since (such as a target's).
fn every_grammar_file() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../grammars");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".ebnf").map(str::to_string)
        })
        .collect();
    names.sort();
    for shipped in SHIPPED {
        assert!(
            names.iter().any(|n| n == shipped),
            "{shipped}.ebnf is missing"
        );
    }
    names
}

#[test]
fn grammar_check_summarises_every_shipped_grammar() {
    for name in every_grammar_file() {
        let name = name.as_str();
        let path = grammar_path(name);
        let output = bonsai(&["grammar", "check", path_arg(&path)]);
        assert_eq!(output.status.code(), Some(0), "{name}: {}", stderr(&output));
        assert_eq!(stderr(&output), "", "{name} has warnings");
        let text = stdout(&output);
        let grammar = Grammar::from_file(&path).unwrap();
        assert!(
            text.starts_with(&format!("{}: ok\n", path.display())),
            "{text}"
        );
        let rules = format!("  rules:     {} named", grammar.named_rules);
        assert!(text.contains(&rules), "{name}: {text}");
        for pool in &grammar.pools {
            let line = format!("  pool {}: {} values", pool.name, pool.values.len());
            assert!(text.contains(&line), "{name}: {text}");
        }
        let start = format!("  start:     {} (", grammar.rule(grammar.start).name);
        assert!(text.contains(&start), "{name}: {text}");
    }
}

#[test]
fn grammar_check_summary_of_expr_in_full() {
    let path = grammar_path("expr");
    let output = bonsai(&["grammar", "check", path_arg(&path)]);
    // 6 rules; terminals " + ", " - ", " * ", " / ", "+", "-", "(", ")", ".", ten digits.
    // <start> -> <expr> -> <term> -> <factor> -> <integer> -> <digit> -> "0": height 6.
    let expected = format!(
        "{}: ok
  rules:     6 named (0 lexical), 0 groups
  symbols:   25 (6 rules, 19 terminals)
  terminals: 19 literals, 0 classes, 0 pools, 0 layout tokens
  start:     <start> (min height 6, shortest word 1 chars); layout none
",
        path.display()
    );
    assert_eq!(stdout(&output), expected);
}

#[test]
fn grammar_check_reports_warnings_but_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dead.ebnf");
    std::fs::write(&path, "s = \"x\" ;\nunused = \"y\" ;\n").unwrap();
    let output = bonsai(&["grammar", "check", path_arg(&path)]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stderr(&output),
        format!(
            "{}:2:1: warning: rule 'unused' is unreachable from the start rule 's'\n",
            path.display()
        )
    );
}

#[test]
fn generate_is_deterministic_per_seed_and_differs_across_seeds() {
    for name in SHIPPED {
        let first = stdout(&generate(name, "3,3,3", 20, 7, &[]));
        let again = stdout(&generate(name, "3,3,3", 20, 7, &[]));
        let other = stdout(&generate(name, "3,3,3", 20, 8, &[]));
        assert_eq!(first, again, "{name}");
        assert_ne!(
            first, other,
            "{name}: seeds 7 and 8 gave the same 20 inputs"
        );
    }
}

#[test]
fn dash_zero_separates_inputs_by_nul() {
    // chocopy programs span lines, so only NUL can separate them.
    let null = stdout(&generate("chocopy", "3,3,3", 8, 3, &["-0"]));
    assert_eq!(null.matches('\0').count(), 8);
    assert!(null.ends_with('\0'));
    assert!(null.contains('\n'), "chocopy programs have several lines");
    // expr inputs are one line each: the two modes differ only in the separator.
    let null = stdout(&generate("expr", "3,3,3", 8, 3, &["-0"]));
    let lines = stdout(&generate("expr", "3,3,3", 8, 3, &[]));
    assert_eq!(null.matches('\0').count(), 8);
    assert!(!null.contains('\n'));
    assert_eq!(null.replace('\0', "\n"), lines);
}

#[test]
fn out_dir_gets_one_numbered_file_per_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("new/inputs");
    let output = generate("chocopy", "2,2,2", 5, 11, &["--out", path_arg(&out)]);
    assert_eq!(stdout(&output), "", "with --out nothing goes to stdout");
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let expected: Vec<String> = (0..5).map(|i| format!("{i:06}.txt")).collect();
    assert_eq!(files, expected);
    // The files hold exactly the inputs that stdout would have shown.
    let shown = stdout(&generate("chocopy", "2,2,2", 5, 11, &["-0"]));
    let from_files: String = expected
        .iter()
        .map(|f| std::fs::read_to_string(out.join(f)).unwrap() + "\0")
        .collect();
    assert_eq!(from_files, shown);
}

/// Generates `count` inputs with saved choices; returns the texts and .choices paths.
fn saved_inputs(
    dir: &Path,
    grammar: &str,
    bounds: &str,
    count: u64,
    seed: u64,
) -> Vec<(String, PathBuf)> {
    generate(
        grammar,
        bounds,
        count,
        seed,
        &["--out", path_arg(dir), "--save-choices"],
    );
    (0..count)
        .map(|i| {
            let text = std::fs::read_to_string(dir.join(format!("{i:06}.txt"))).unwrap();
            (text, dir.join(format!("{i:06}.choices")))
        })
        .collect()
}

#[test]
fn saved_choices_replay_to_the_same_text_under_the_same_and_larger_bounds() {
    for name in ["json", "chocopy", "starlark"] {
        let dir = tempfile::tempdir().unwrap();
        for (text, choices) in saved_inputs(dir.path(), name, "2,2,2", 10, 5) {
            for bounds in [
                None,
                Some("2,2,2"),
                Some("3,2,2"),
                Some("2,4,2"),
                Some("5,5,5"),
            ] {
                let output = replay(name, &choices, bounds);
                assert!(output.status.success(), "{}", stderr(&output));
                assert_eq!(stdout(&output), format!("{text}\n"), "{name} {bounds:?}");
            }
        }
    }
}

#[test]
fn replay_under_smaller_bounds_is_identical_or_out_of_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let (mut identical, mut refused) = (0, 0);
    for (text, choices) in saved_inputs(dir.path(), "chocopy", "3,3,3", 30, 9) {
        let output = replay("chocopy", &choices, Some("1,1,1"));
        match output.status.code() {
            Some(0) => {
                assert_eq!(stdout(&output), format!("{text}\n"));
                identical += 1;
            }
            Some(1) => {
                let message = stderr(&output);
                assert!(message.contains("out of bounds"), "{message}");
                assert!(message.contains(path_arg(&choices)), "{message}");
                assert!(message.contains("(bounds 1,1,1)"), "{message}");
                assert_eq!(
                    stdout(&output),
                    "",
                    "nothing is printed for a refused replay"
                );
                refused += 1;
            }
            other => panic!("exit {other:?}: {}", stderr(&output)),
        }
    }
    // Both outcomes occur among 30 chocopy programs, so both branches were checked.
    assert!(
        identical > 0 && refused > 0,
        "{identical} identical, {refused} refused"
    );
}

#[test]
fn replaying_with_another_grammar_warns() {
    let dir = tempfile::tempdir().unwrap();
    let (_, choices) = saved_inputs(dir.path(), "expr", "2,2,2", 1, 1).remove(0);
    let output = replay("json", &choices, None);
    assert!(
        stderr(&output).contains("different grammar"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn corrupt_or_truncated_choices_files_exit_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let (_, choices) = saved_inputs(dir.path(), "json", "3,3,3", 1, 2).remove(0);
    let bytes = std::fs::read(&choices).unwrap();

    let truncated = dir.path().join("truncated.choices");
    std::fs::write(&truncated, &bytes[..bytes.len() - 1]).unwrap();
    let output = replay("json", &truncated, None);
    assert_usage_error(
        &output,
        &format!("{}: error: corrupt choices file", truncated.display()),
    );

    let foreign = dir.path().join("foreign.choices");
    std::fs::write(&foreign, b"{\"not\": \"choices\"}").unwrap();
    let output = replay("json", &foreign, None);
    assert_usage_error(
        &output,
        &format!("{}: error: not a Bonsai choices file", foreign.display()),
    );

    let empty = dir.path().join("empty.choices");
    std::fs::write(&empty, b"").unwrap();
    assert_usage_error(&replay("json", &empty, None), path_arg(&empty));

    let missing = dir.path().join("missing.choices");
    assert_usage_error(&replay("json", &missing, None), path_arg(&missing));
}

#[test]
fn bad_bounds_exit_2() {
    let path = grammar_path("expr");
    for bounds in ["0,1,1", "1,1", "x", "1,1,-1", ""] {
        let output = bonsai(&["generate", path_arg(&path), "--bounds", bounds]);
        assert_usage_error(&output, "--bounds");
    }
    let output = bonsai(&["generate", path_arg(&path)]);
    assert_usage_error(&output, "--bounds M,N,D is required");
}

/// `--bounds 4000000000,...` aborted on a 3 GB allocation, since an input grows with n: each
/// bound is capped. The address space is capped too, so that a build without the limit fails
/// here instead of taking the machine's memory.
#[test]
fn huge_bounds_are_refused_naming_the_flag() {
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2000000; exec \"$0\" generate \"$1\" --bounds 1,4000000000,1000000")
        .arg(env!("CARGO_BIN_EXE_bonsai"))
        .arg(grammar_path("expr"))
        .output()
        .unwrap();
    assert_usage_error(
        &output,
        "'--bounds <M,N,D>': each bound may be at most 10000",
    );
    assert_eq!(stdout(&output), "");
}

/// `s = "a"{65535}{65535}{65535};` passed `grammar check` and aborted `generate` on a 6 GB
/// allocation: nested fixed counts are refused where they multiply past the limit, with the
/// place, by every command that loads the grammar.
#[test]
fn nested_fixed_counts_are_a_located_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.ebnf");
    std::fs::write(&path, "s = \"a\"{65535}{65535}{65535};\n").unwrap();
    for args in [
        vec!["grammar", "check", path_arg(&path)],
        vec!["generate", path_arg(&path), "--bounds", "1,1,1"],
    ] {
        let output = bonsai(&args);
        assert_usage_error(
            &output,
            &format!(
                "{}:1:5: error: this cannot derive anything smaller than",
                path.display()
            ),
        );
        assert_eq!(stdout(&output), "");
    }
}

#[test]
fn save_choices_needs_an_out_dir() {
    let path = grammar_path("expr");
    let output = bonsai(&[
        "generate",
        path_arg(&path),
        "--bounds",
        "1,1,1",
        "--save-choices",
    ]);
    assert_usage_error(&output, "--out");
}

#[test]
fn an_unwritable_out_dir_exits_2_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = file.join("inputs");
    let path = grammar_path("expr");
    let output = bonsai(&[
        "generate",
        path_arg(&path),
        "--bounds",
        "1,1,1",
        "--out",
        path_arg(&out),
    ]);
    assert_usage_error(
        &output,
        &format!("{}: error: cannot create directory", out.display()),
    );
    assert_eq!(stdout(&output), "");
}

#[test]
fn a_missing_grammar_exits_2_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.ebnf");
    for args in [
        vec!["grammar", "check", path_arg(&missing)],
        vec!["generate", path_arg(&missing), "--bounds", "1,1,1"],
    ] {
        let output = bonsai(&args);
        assert_usage_error(
            &output,
            &format!("{}: error: cannot read grammar", missing.display()),
        );
    }
}

/// `grammar check /dev/zero` read until memory ran out: a grammar file is read up to a limit
/// (64 MiB), past which it is refused. The address space is capped (`ulimit -v`) so that a
/// build without the limit fails here instead of taking the machine's memory.
#[test]
fn an_endless_grammar_file_is_refused_at_the_size_limit() {
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2000000; exec \"$0\" grammar check /dev/zero")
        .arg(env!("CARGO_BIN_EXE_bonsai"))
        .output()
        .unwrap();
    assert_usage_error(
        &output,
        "/dev/zero: error: not read: a grammar file may hold at most 64 MiB",
    );
}

#[test]
fn a_closed_stdout_ends_generation_quietly() {
    let path = grammar_path("json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_bonsai"))
        .args(["generate", path_arg(&path), "--bounds", "3,3,3"])
        .args(["--count", "100000000", "--seed", "1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read a little, then hang up, as `| head` does.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
}

/// A split ANTLR grammar (`parser grammar` with `options { tokenVocab = L; }`) in `dir`, and
/// its lexer grammar beside it when `with_lexer`.
fn split_grammar(dir: &Path, with_lexer: bool) -> PathBuf {
    let parser = dir.join("CalcParser.g4");
    std::fs::write(
        &parser,
        "parser grammar CalcParser;\noptions {\n    tokenVocab = CalcLexer;\n}\nsum : NUM ( PLUS NUM )* EOF ;\n",
    )
    .unwrap();
    if with_lexer {
        std::fs::write(
            dir.join("CalcLexer.g4"),
            "lexer grammar CalcLexer;\nNUM : [0-9]+ ;\nPLUS : '+' ;\nWS : [ \\t\\r\\n]+ -> skip ;\n",
        )
        .unwrap();
    }
    parser
}

#[test]
fn a_split_antlr_grammar_checks_imports_converts_and_generates() {
    let dir = tempfile::tempdir().unwrap();
    let parser = split_grammar(dir.path(), true);
    let grammar = path_arg(&parser);
    let check = bonsai(&["grammar", "check", grammar]);
    assert!(check.status.success(), "{}", stderr(&check));
    let ebnf = bonsai(&["grammar", "convert", "--to", "ebnf", grammar]);
    assert!(ebnf.status.success(), "{}", stderr(&ebnf));
    assert!(
        stdout(&ebnf).contains("sum = NUM ( PLUS NUM )*"),
        "{}",
        stdout(&ebnf)
    );
    let seeds = dir.path().join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    std::fs::write(seeds.join("a.txt"), "1+22 + 3\n").unwrap();
    let out = dir.path().join("corpus");
    let import = bonsai(&["import", grammar, path_arg(&seeds), "--out", path_arg(&out)]);
    assert!(import.status.success(), "{}", stderr(&import));
    let report = std::fs::read_to_string(out.join("import-report.json")).unwrap();
    assert!(report.contains("\"accepted\": 1"), "{report}");
    let generated = bonsai(&["generate", grammar, "--bounds", "2,2,2", "--count", "5"]);
    assert!(generated.status.success(), "{}", stderr(&generated));
    for line in stdout(&generated).lines() {
        assert!(
            line.split('+').all(|n| n.trim().parse::<u64>().is_ok()),
            "not a sum of numbers: {line:?}"
        );
    }
}

#[test]
fn a_missing_lexer_grammar_exits_2_naming_the_option_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let parser = split_grammar(dir.path(), false);
    let seeds = dir.path().join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    let out = dir.path().join("corpus");
    for args in [
        vec!["grammar", "check", path_arg(&parser)],
        vec!["grammar", "convert", "--to", "ebnf", path_arg(&parser)],
        vec![
            "import",
            path_arg(&parser),
            path_arg(&seeds),
            "--out",
            path_arg(&out),
        ],
        vec!["generate", path_arg(&parser)],
    ] {
        let output = bonsai(&args);
        assert_usage_error(
            &output,
            "CalcParser.g4:3:5: error: `tokenVocab = CalcLexer`",
        );
        let message = stderr(&output);
        assert!(
            message.contains("names the lexer grammar CalcLexer.g4"),
            "{message}"
        );
        assert!(
            message.contains(&dir.path().join("CalcLexer.g4").display().to_string()),
            "the path looked at: {message}"
        );
    }
}

#[test]
fn unusable_lexer_sets_exit_2_where_they_are_written() {
    let dir = tempfile::tempdir().unwrap();
    for (text, needle) in [
        (
            "grammar U;\ns : A EOF ;\nA : [\\p{Bogus}]+ ;\n",
            "U.g4:3:6: error: the Unicode class \\p{Bogus} cannot be used",
        ),
        (
            "grammar U;\ns : A EOF ;\nA : 'a' [\\uD800-\\uDBFF] ;\n",
            "U.g4:3:9: error: this set holds only UTF-16 surrogates",
        ),
        (
            "grammar U;\ns : A EOF ;\nA : ~'ab' ;\n",
            "U.g4:3:6: error: only single characters can be part of a set or be negated",
        ),
        (
            "grammar U;\ns : A EOF ;\nA : 'a' -> frobnicate ;\n",
            "U.g4:3:12: error: unknown lexer command 'frobnicate'",
        ),
    ] {
        let path = dir.path().join("U.g4");
        std::fs::write(&path, text).unwrap();
        assert_usage_error(&bonsai(&["grammar", "check", path_arg(&path)]), needle);
    }
}
