//! Malformed grammar files of every format: `bonsai grammar check` exits with code 2 and says
//! where the fault is, as `file:line:col: error: ...`.

mod common;

use common::bonsai;

/// (file name, contents, the start of the expected message after the file name).
const CASES: &[(&str, &str, &str)] = &[
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
    for (name, text, expected) in CASES {
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
