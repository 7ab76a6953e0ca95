//! `bonsai grammar convert --to antlr`, checked without Java: each exported grammar is imported
//! back with Bonsai's own ANTLR importer (`bonsai::import::load`), which must then accept the
//! inputs the original grammar generates and refuse what the original refuses of their
//! truncations; and the export must not change from one run to the next.
//!
//! What the re-import cannot express, and so what is not tested here:
//! - The indentation module (`NAMEIndentation.py`) that gives ANTLR's lexer INDENT and DEDENT:
//!   the importer reads their lexer rules as the marker characters the module's tokens carry.
//!   The tests therefore feed the re-imported grammar the token text the module produces
//!   (`module_tokens` mirrors it: indentation gone, a marker where it changes), which checks
//!   that NEWLINE, INDENT and DEDENT sit where the module puts them, not the module itself.
//! - ANTLR's lexer: Bonsai's parser draws each token from the rule its grammar expects, so the
//!   `x_token` rules that accept what ANTLR's longest-match, first-rule lexer reads instead are
//!   tested only as grammar rules, and a tokenization ANTLR would choose differently across
//!   two adjacent tokens goes unnoticed. `scripts/compare-picireny` counts the inputs ANTLR
//!   itself cannot parse.

mod common;

use std::path::{Path, PathBuf};

use bonsai::convert::{AntlrGrammar, DEDENT_MARK, INDENT_MARK, to_antlr};
use bonsai::grammar::Grammar;
use bonsai::parse::Parser;
use common::{generate_checked, grammar_file};

/// The grammars whose export is checked: the ones the comparison with picireny uses
/// (starlark, wgsl, letcalc), and the other shipped ones whose export ANTLR parses (the
/// javascript grammar's template text contains spaces, so ANTLR's longest match reads ordinary
/// code as template text; it would need lexer modes).
const GRAMMARS: &[&str] = &[
    "starlark.ebnf",
    "wgsl.ebnf",
    "../targets/example/letcalc.ebnf",
    "json.ebnf",
    "expr.ebnf",
    "cgi.ebnf",
    "url.ebnf",
    "simpl.ebnf",
    "chocopy.ebnf",
    "planted.ebnf",
];

fn load(relative: &str) -> Grammar {
    bonsai::import::load(&grammar_file(relative))
        .unwrap_or_else(|e| panic!("{relative}: {e}"))
        .grammar
}

/// The ANTLR name of a grammar: its file stem, capitalised.
fn antlr_name(relative: &str) -> String {
    let stem = Path::new(relative).file_stem().unwrap().to_string_lossy();
    let mut chars = stem.chars();
    let first = chars.next().unwrap().to_ascii_uppercase();
    format!("{first}{}", chars.as_str())
}

/// Writes the export into `dir` and imports it back.
fn reimport(exported: &AntlrGrammar, dir: &Path) -> Grammar {
    let path = dir.join(format!("{}.g4", exported.name));
    std::fs::write(&path, &exported.text).unwrap();
    if let Some((module, text)) = &exported.indentation {
        std::fs::write(dir.join(module), text).unwrap();
    }
    bonsai::import::load(&path)
        .unwrap_or_else(|e| panic!("{}: the export does not import: {e}", exported.name))
        .grammar
}

/// The text the indentation module's tokens spell, as the re-import reads it: every line
/// holding a token ends in a line break (the last one too), its indentation is gone, and a
/// line indented deeper than the innermost open level starts with INDENT's marker, a
/// shallower one with DEDENT's for every level it closes; blank lines vanish and the end
/// closes every level. Mirrors `next_token` in fuzzer/grammar/src/convert/antlr_indentation.py.
fn module_tokens(text: &str) -> String {
    let mut out = String::new();
    let mut levels = vec![0usize];
    for line in text.lines() {
        let content = line.trim_start_matches([' ', '\t', '\x0c']);
        if content.trim().is_empty() {
            continue;
        }
        let mut width = 0;
        for c in line[..line.len() - content.len()].chars() {
            width = if c == '\t' {
                (width / 8 + 1) * 8
            } else {
                width + 1
            };
        }
        while width < *levels.last().unwrap() {
            levels.pop();
            out.push(DEDENT_MARK);
        }
        if width > *levels.last().unwrap() {
            levels.push(width);
            out.push(INDENT_MARK);
        }
        out.push_str(content);
        out.push('\n');
    }
    for _ in 1..levels.len() {
        out.push(DEDENT_MARK);
    }
    out
}

/// What the re-imported grammar is asked to read for a text of the original.
fn as_read(exported: &AntlrGrammar, text: &str) -> String {
    match exported.indentation {
        Some(_) => module_tokens(text),
        None => text.to_string(),
    }
}

#[test]
fn every_exported_grammar_accepts_what_the_original_generates() {
    for &relative in GRAMMARS {
        let original = load(relative);
        let exported = to_antlr(&original, &antlr_name(relative)).unwrap_or_else(|e| panic!("{e}"));
        let dir = tempfile::tempdir().unwrap();
        let again = reimport(&exported, dir.path());
        let parser = Parser::new(&again);
        let mut inputs = Vec::new();
        for (bounds, seed) in [("1,1,1", 11), ("2,2,2", 12), ("3,3,3", 13)] {
            inputs.extend(generate_checked(
                &original,
                bounds.parse().unwrap(),
                seed,
                100,
            ));
        }
        for text in &inputs {
            let read = as_read(&exported, text);
            if let Err(e) = parser.accepts(&read) {
                panic!(
                    "{relative}: the export refuses a generated input: {e:?}\n--- input\n{text}\n--- as read\n{read:?}\n--- grammar\n{}",
                    exported.text
                );
            }
        }
    }
}

#[test]
fn every_exported_grammar_refuses_the_truncations_the_original_refuses() {
    for &relative in GRAMMARS {
        let original = load(relative);
        let exported = to_antlr(&original, &antlr_name(relative)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let again = reimport(&exported, dir.path());
        let (strict, lenient) = (Parser::new(&original), Parser::new(&again));
        let mut refused = 0;
        for text in generate_checked(&original, "2,2,2".parse().unwrap(), 21, 60) {
            // Cut after a character (not inside one), at about two thirds.
            let cut = text
                .char_indices()
                .map(|(i, c)| i + c.len_utf8())
                .find(|&i| i >= text.len() * 2 / 3)
                .unwrap_or(text.len());
            let truncated = &text[..cut];
            if strict.accepts(truncated).is_ok() {
                continue;
            }
            refused += 1;
            assert!(
                lenient.accepts(&as_read(&exported, truncated)).is_err(),
                "{relative}: the export accepts a truncation the original refuses:\n{truncated}"
            );
        }
        assert!(
            refused > 0,
            "{relative}: no truncation was refused, nothing was checked"
        );
    }
}

#[test]
fn the_export_is_the_same_every_time() {
    for &relative in GRAMMARS {
        let name = antlr_name(relative);
        let first = to_antlr(&load(relative), &name).unwrap();
        let second = to_antlr(&load(relative), &name).unwrap();
        assert_eq!(first, second, "{relative}");
    }
}

fn convert(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let mut all: Vec<&std::ffi::OsStr> = vec!["grammar".as_ref(), "convert".as_ref()];
    all.extend_from_slice(args);
    common::bonsai(&all)
}

#[test]
fn grammar_convert_writes_the_grammar_and_its_module() {
    let dir = tempfile::tempdir().unwrap();
    let starlark = grammar_file("starlark.ebnf");
    let out: PathBuf = dir.path().join("Starlark.g4");
    let args = [
        starlark.as_os_str(),
        "--to".as_ref(),
        "antlr".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ];
    let (code, _, stderr) = convert(&args);
    assert_eq!(code, 0, "{stderr}");
    let first = std::fs::read(&out).unwrap();
    let module = std::fs::read(dir.path().join("StarlarkIndentation.py")).unwrap();
    assert!(stderr.contains("StarlarkIndentation.py") && stderr.contains("bonsai_start"));
    // Deterministic through the command line too.
    let (code, _, _) = convert(&args);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read(&out).unwrap(), first);
    assert_eq!(
        std::fs::read(dir.path().join("StarlarkIndentation.py")).unwrap(),
        module
    );

    // Without INDENT/DEDENT the grammar alone goes to stdout.
    let json = grammar_file("json.ebnf");
    let (code, stdout, stderr) = convert(&[json.as_os_str(), "--to".as_ref(), "antlr".as_ref()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("grammar json;") && stdout.contains("bonsai_start : json EOF ;"));
}

#[test]
fn grammar_convert_to_antlr_refuses_what_it_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let starlark = grammar_file("starlark.ebnf");
    // An indentation grammar needs a file to put its module beside.
    let (code, stdout, stderr) =
        convert(&[starlark.as_os_str(), "--to".as_ref(), "antlr".as_ref()]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("--out") && stderr.contains("INDENT"),
        "{stderr}"
    );
    // ANTLR names a grammar after its file.
    for bad in ["star-lark.g4", "Starlark.txt", "1st.g4"] {
        let out = dir.path().join(bad);
        let (code, _, stderr) = convert(&[
            starlark.as_os_str(),
            "--to".as_ref(),
            "antlr".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(code, 2, "{bad}");
        assert!(
            stderr.contains(bad) && stderr.contains("NAME.g4"),
            "{stderr}"
        );
        assert!(!out.exists());
    }
    // Left recursion ANTLR cannot take is reported where the grammar is.
    let grammar = dir.path().join("lr.ebnf");
    std::fs::write(&grammar, "a = \"x\"? b ;\nb = a \"y\" | \"z\" ;\n").unwrap();
    let (code, _, stderr) = convert(&[grammar.as_os_str(), "--to".as_ref(), "antlr".as_ref()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("lr.ebnf") && stderr.contains("left-recursive"),
        "{stderr}"
    );
}
