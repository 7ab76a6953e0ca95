//! Malformed grammars give their precise first diagnostic, `file:line:col: error: message`,
//! and `bonsai grammar check` exits with code 2. Native `.ebnf` files live in
//! `tests/malformed/` (one fault each, with the expected line in one table); the imported
//! formats (ANTLR4, tree-sitter, fuzzingbook) are written inline.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use bonsai::analysis::Analysis;
use bonsai::grammar::Grammar;
use common::bonsai;

// ---- the native format ----

/// file → position → message of the first diagnostic.
#[rustfmt::skip]
const EXPECTED: &[(&str, &str, &str)] = &[
    ("undefined_symbol.ebnf", "2:13", "undefined symbol 'statment'; did you mean 'statement'?"),
    ("unproductive_start.ebnf", "2:1", "the grammar cannot derive any word: the start rule 'list' never terminates (unproductive rules: list)"),
    ("duplicate_rule.ebnf", "3:1", "'expr' is already defined as a rule on line 1"),
    ("rule_named_like_pool.ebnf", "3:1", "'ID' is already defined as a pool on line 1"),
    ("redefined_newline.ebnf", "2:1", "'NEWLINE' is a built-in layout token and cannot be redefined"),
    ("unterminated_literal.ebnf", "1:12", "unterminated literal; missing closing quote"),
    ("unknown_escape.ebnf", "1:8", r#"unknown escape '\q'; known escapes are \n \t \r \0 \\ \" \' \xHH \u{H..}"#),
    ("invalid_unicode_escape.ebnf", "2:9", r"invalid escape '\u{D800}': not a Unicode scalar value"),
    ("invalid_hex_escape.ebnf", "1:9", r"invalid escape '\xff'; expected two hex digits up to 7f"),
    ("missing_semicolon_at_eof.ebnf", "2:17", "expected ';' to end the rule 'term' before the end of the file"),
    ("missing_semicolon_before_rule.ebnf", "1:21", "expected ';' to end the rule 'expr' before the definition of 'term'"),
    ("missing_equals.ebnf", "1:6", "expected '=' after the rule name 'expr', found name 'term'"),
    ("unterminated_regex.ebnf", "1:10", "unterminated regex; missing closing '/'"),
    // The column is that of the '(' inside the regex, as regex-syntax locates it.
    ("invalid_regex.ebnf", "1:17", "invalid regex: unclosed group"),
    ("regex_anchor.ebnf", "1:15", "anchor '$' is not supported in a regex: a generated token has no surrounding text to anchor to"),
    ("empty_class.ebnf", "1:9", "character class matches no character"),
    ("reversed_range.ebnf", "1:11", "invalid regex: invalid character class range, the start must be <= the end"),
    ("unterminated_class.ebnf", "1:9", "unterminated character class; missing ']'"),
    ("unknown_directive.ebnf", "1:1", "unknown directive '%token'; known directives are %start, %layout, %indent, %depth, %pool, %comment and %reserved"),
    ("bad_depth.ebnf", "1:8", "unknown depth measure 'nested'; expected rule or cycle"),
    ("duplicate_directive.ebnf", "2:1", "'%layout' is given twice"),
    ("undefined_start.ebnf", "1:8", "the start rule 'program' is not defined"),
    ("start_is_pool.ebnf", "1:8", "the start symbol 'ID' is a pool, not a rule"),
    ("duplicate_pool_value.ebnf", "1:39", "pool value \"int\" is listed twice"),
    ("empty_pool.ebnf", "2:7", "pool 'OP' has no values: every word its regex matches is a literal of the grammar"),
    ("bad_layout.ebnf", "1:9", "unknown layout 'tabs'; expected auto, space, none, newline or a quoted separator"),
    ("bad_indent.ebnf", "1:9", "the indentation unit \"->\" must be one or more spaces or tabs"),
    ("unclosed_paren.ebnf", "1:12", "unclosed '(': expected ')' before ';'"),
    ("unmatched_paren.ebnf", "1:12", "unmatched ')' in the rule 'expr'"),
    ("dangling_quantifier.ebnf", "1:14", "'*' has nothing to apply to"),
    ("reversed_count.ebnf", "1:15", "repetition count '{3,1}' has its maximum below its minimum"),
    ("oversized_count.ebnf", "1:15", "repetition count '{1,100000}' is too large; counts are at most 65535"),
    ("unterminated_comment.ebnf", "2:1", "unterminated block comment"),
    ("empty.ebnf", "1:1", "the grammar defines no rules"),
    ("only_comments.ebnf", "1:1", "the grammar defines no rules"),
    ("unexpected_character.ebnf", "1:12", "unexpected character '&'; expected a rule, literal, regex or ';'"),
];

fn malformed_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed")
}

fn expected_line(path: &Path, position: &str, message: &str) -> String {
    format!("{}:{position}: error: {message}", path.display())
}

/// The first diagnostic the library gives: from loading, or else from analysis.
fn first_library_diagnostic(path: &Path) -> Option<String> {
    let diagnostics = match Grammar::from_file(path) {
        Err(diagnostics) => diagnostics,
        Ok(grammar) => Analysis::new(&grammar).check(&grammar).err()?,
    };
    diagnostics.0.first().map(ToString::to_string)
}

#[test]
fn every_malformed_grammar_is_in_the_table_and_vice_versa() {
    let mut on_disk: Vec<String> = std::fs::read_dir(malformed_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".ebnf"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = EXPECTED.iter().map(|(f, _, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);
    assert!(listed.len() >= 20);
}

#[test]
fn the_library_gives_the_precise_first_error() {
    let mut wrong = Vec::new();
    for &(file, position, message) in EXPECTED {
        let path = malformed_dir().join(file);
        let expected = expected_line(&path, position, message);
        let actual = first_library_diagnostic(&path);
        if actual.as_deref() != Some(expected.as_str()) {
            wrong.push(format!(
                "{file}\n  expected {expected}\n  actual   {actual:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn grammar_check_prints_the_same_error_and_exits_2() {
    let mut wrong = Vec::new();
    for &(file, position, message) in EXPECTED {
        let path = malformed_dir().join(file);
        let output = Command::new(env!("CARGO_BIN_EXE_bonsai"))
            .args(["grammar", "check"])
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let expected = expected_line(&path, position, message);
        let first = stderr.lines().next().unwrap_or_default();
        if output.status.code() != Some(2) || first != expected || !output.stdout.is_empty() {
            wrong.push(format!(
                "{file}: exit {:?}\n  expected {expected}\n  stderr   {stderr}\n  stdout   {}",
                output.status.code(),
                String::from_utf8_lossy(&output.stdout)
            ));
        }
        assert!(!stderr.contains("panicked"), "{file}: {stderr}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ---- imported formats ----

/// (file name, contents, the start of the expected message after the file name).
const IMPORTED_CASES: &[(&str, &str, &str)] = &[
    // ANTLR4
    (
        "unclosed.g4",
        "grammar G;\ns : 'a' ( b ;\n",
        ":2:9: error: unclosed '('",
    ),
    (
        "undefined.g4",
        "grammar G;\ns : 'a' t ;\n",
        ":2:9: error: undefined symbol 't'",
    ),
    (
        "escape.g4",
        "grammar G;\ns : A ;\nA : [a\\qb] ;\n",
        ":3:7: error: invalid escape '\\q' in a set",
    ),
    (
        "command.g4",
        "grammar G;\ns : A ;\nA : 'a' -> jump ;\n",
        ":3:12: error: unknown lexer command 'jump'",
    ),
    (
        "header.g4",
        "s : 'a' ;\n",
        ":1:1: error: expected 'grammar NAME;'",
    ),
    (
        "literal.g4",
        "grammar G;\ns : 'a\n ;\n",
        ":2:5: error: unterminated literal",
    ),
    // tree-sitter grammar.json
    (
        "syntax.json",
        "{\"name\": \"g\", \"rules\": {\"s\": {\"type\": \"BLANK\"},}}",
        ":1:47: error: invalid JSON: Trailing commas are not allowed",
    ),
    (
        "shape.json",
        "{\"name\": \"g\",\n \"rules\": [1]}",
        ":2:11: error: expected the grammar's rules (an object), found an array",
    ),
    (
        "node.json",
        "{\"name\": \"g\", \"rules\": {\n  \"s\": {\"type\": \"SEQUENCE\", \"members\": []}}}",
        ":2:17: error: unknown tree-sitter rule type 'SEQUENCE'",
    ),
    (
        "symbol.json",
        "{\"name\": \"g\", \"rules\": {\n  \"s\": {\"type\": \"SYMBOL\", \"name\": \"t\"}}}",
        ":2:35: error: undefined symbol 't'",
    ),
    (
        "regex.json",
        "{\"name\": \"g\", \"rules\": {\n  \"s\": {\"type\": \"PATTERN\", \"value\": \"a\\\\d(\"}}}",
        ":2:42: error: invalid regex: unclosed group",
    ),
    (
        "backref.json",
        "{\"name\": \"g\", \"rules\": {\n  \"s\": {\"type\": \"PATTERN\", \"value\": \"(a)\\\\1\"}}}",
        ":2:41: error: unsupported regex: backreferences",
    ),
    (
        "notype.json",
        "{\"name\": \"g\", \"rules\": {\n  \"s\": {\"value\": \"x\"}}}",
        ":2:8: error: a rule node has no \"type\" property",
    ),
    // fuzzingbook
    (
        "fb_syntax.json",
        "{\"<start>\": [\"a\"\n \"b\"]}",
        ":1:17: error: invalid JSON: Expected comma",
    ),
    (
        "fb_shape.json",
        "{\"<start>\": [\"<x>\"],\n \"<x>\": \"a\"}",
        ":2:9: error: the expansions of <x> must be a list of strings",
    ),
    (
        "fb_undefined.json",
        "{\"<start>\": [\"a <y> b\"]}",
        ":1:17: error: undefined nonterminal '<y>'",
    ),
    (
        "fb_key.json",
        "{\"<start>\": [\"a\"], \"digit\": [\"1\"]}",
        ":1:20: error: \"digit\" is not a nonterminal",
    ),
    (
        "fb_start.json",
        "{\"start\": \"<s>\", \"grammar\": {\"<start>\": [\"a\"]}}",
        ":1:11: error: the start symbol \"<s>\" is not defined",
    ),
    (
        "fb_number.json",
        "{\"<start>\": [\"a\", 7]}",
        ":1:19: error: an expansion must be a string, found a number",
    ),
    (
        "fb_empty.json",
        "{\"<start>\": []}",
        ":1:2: error: <start> has no expansions",
    ),
    (
        "unknown.json",
        "{\"a\": 1}",
        ":1:1: error: not a grammar this tool reads",
    ),
];

#[test]
fn malformed_files_give_located_errors_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (name, text, expected) in IMPORTED_CASES {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (code, stdout, stderr) =
            bonsai(&["grammar".as_ref(), "check".as_ref(), path.as_os_str()]);
        let wanted = format!("{}{expected}", path.display());
        if code != 2 || !stdout.is_empty() || !stderr.lines().any(|l| l.starts_with(&wanted)) {
            failures.push(format!(
                "{name} (exit {code}): expected\n  {wanted}\ngot\n  {stderr}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_command_reads_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.json");
    std::fs::write(&path, r#"{"<start>": ["<d><d>"], "<d>": ["0", "1"]}"#).unwrap();
    let (code, stdout, stderr) = bonsai(&[
        "generate".as_ref(),
        path.as_os_str(),
        "--bounds".as_ref(),
        "1,1,1".as_ref(),
        "--count".as_ref(),
        "20".as_ref(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 20);
    assert!(
        lines
            .iter()
            .all(|l| l.len() == 2 && l.chars().all(|c| c == '0' || c == '1'))
    );
}
