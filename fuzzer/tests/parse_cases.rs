//! Hand-written texts per shipped grammar: what is accepted, and where and why the rest is
//! rejected.

mod common;

use bonsai::parse::{ParseOptions, Parser};
use common::shipped;

fn accepts(grammar: &str, text: &str) {
    let grammar = shipped(grammar);
    let parser = Parser::new(&grammar);
    if let Err(e) = parser.parse(text) {
        panic!("{} rejected {text:?}: {e}", grammar.name);
    }
}

/// The text is rejected at `line:col` with a message containing `message`.
fn rejects(grammar: &str, text: &str, line: usize, col: usize, message: &str) {
    let grammar = shipped(grammar);
    let parser = Parser::new(&grammar);
    let error = match parser.parse(text) {
        Ok(_) => panic!("{} accepted {text:?}", grammar.name),
        Err(e) => e,
    };
    assert_eq!(
        error.line_col(text),
        (line, col),
        "{}: {text:?}: {}",
        grammar.name,
        error.message
    );
    assert!(
        error.message.contains(message),
        "{}: {text:?}: {:?} does not mention {message:?}",
        grammar.name,
        error.message
    );
}

#[test]
fn json() {
    accepts(
        "json",
        "{\"a\": [1, -2.5e+3, \"x\\n\\u00e9\"], \"b\": null}",
    );
    accepts("json", "\n  [ true ,false,\n\tnull ]  \n");
    accepts("json", "\"é€😀\"");
    rejects(
        "json",
        "[1, 2}",
        1,
        6,
        "unexpected '}'; expected one of: \",\"",
    );
    rejects("json", "{\"a\": tru}", 1, 7, "unexpected 'tru'");
    rejects("json", "\"abc", 1, 5, "unexpected end of input");
    rejects("json", "[01]", 1, 3, "unexpected '1'");
    rejects("json", "[1,\n 2,\n ]", 3, 2, "expected one of: \"[\"");
    rejects("json", "{\"a\": 1} x", 1, 10, "expected end of input");
    rejects(
        "json",
        "{\"key\": 1}",
        1,
        2,
        "'\"key\"' is not a value of pool KEY",
    );
    rejects("json", "\"a b\" \"", 1, 7, "expected end of input");
}

#[test]
fn expr() {
    accepts("expr", "1 + (2 * -3.5) / 4");
    // Whitespace is tolerated between tokens, even where the grammar's layout puts none.
    accepts("expr", "1 +  2");
    rejects("expr", "1 + (2 * 3", 1, 11, "expected one of: \" * \"");
    rejects("expr", "1 +2", 1, 3, "unexpected '+'");
    rejects("expr", "", 1, 1, "unexpected end of input");
}

#[test]
fn url_and_cgi() {
    accepts(
        "url",
        "https://user:password@www.google.com:8080/x12?abc=def&x01=99",
    );
    rejects(
        "url",
        "htp://x",
        1,
        1,
        "expected one of: \"ftp\", \"ftps\", \"http\", \"https\"",
    );
    rejects("url", "http://cispa.saarland:/", 1, 23, "unexpected '/'");
    accepts("cgi", "a+%2f-_");
    rejects("cgi", "ab%2g", 1, 5, "unexpected 'g'");
}

#[test]
fn simpl() {
    accepts(
        "simpl",
        "module [1] a = begin var b: int; b = 2; if b = 1 then b = b + 1 else begin end; end.",
    );
    rejects("simpl", "module[1] a = begin end", 1, 24, "expected \".\"");
    rejects(
        "simpl",
        "module [1] a = begin b = 2 end.",
        1,
        28,
        "expected one of: \"+\", \";\", \"=\"",
    );
}

#[test]
fn chocopy_reads_line_structure() {
    accepts(
        "chocopy",
        "x: int = 1\ndef f(a: int) -> int:\n    global x\n    return a + x\n\nif f(x) > 1:\n    print(x)\nelse:\n    pass\n",
    );
    // No final line break, blank lines with spaces, tabs for indentation.
    accepts("chocopy", "while True:\n\tpass\n   \n\tpass");
    rejects("chocopy", "if a:\npass\n", 2, 1, "expected INDENT");
    rejects(
        "chocopy",
        "if a:\n    pass\n  pass\n",
        3,
        3,
        "unindent does not match",
    );
    rejects(
        "chocopy",
        "x: int = 1\n    y = 2\n",
        2,
        5,
        "unexpected indentation",
    );
    rejects(
        "chocopy",
        "foo = 1\n",
        1,
        1,
        "'foo' is not a value of pool ID",
    );
}

#[test]
fn starlark() {
    accepts(
        "starlark",
        "def f(a: int, b: list[str], c: str = \"x\") -> int:\n    for x in range(a):\n        b.append(str(x))\n    return len(b)\ndef g(a: int, b: int, c: int):\n    pass\n",
    );
    rejects(
        "starlark",
        "def f(a int):\n    pass\n",
        1,
        9,
        "unexpected 'int'; expected \":\"",
    );
    // Inside brackets the line goes on (as in Python), so an unclosed one ends the input.
    rejects(
        "starlark",
        "def f(a: int, b: int, c: int) -> int:\n    return (a\n",
        3,
        1,
        "unexpected end of line",
    );
}

#[test]
fn renaming_pool_words_is_consistent_and_avoids_used_values() {
    let grammar = shipped("chocopy");
    let parser = Parser::new(&grammar);
    let text = "total = a\nb = total + count\n";
    let options = ParseOptions::renaming_words();
    let parsed = parser.parse_with(text, options).unwrap();
    let renamed = bonsai::text::render(&grammar, &parsed.tree);
    assert_eq!(renamed, "c = a\nb = c + d\n");
    let pairs: Vec<(&str, &str)> = parsed
        .renames
        .iter()
        .map(|r| (r.from.as_str(), r.to.as_str()))
        .collect();
    assert_eq!(pairs, [("total", "c"), ("count", "d")]);
    assert_eq!(parsed.bounds.idents, 4);
}

fn round_trip(grammar: &bonsai::grammar::Grammar, text: &str) -> String {
    let parser = Parser::new(grammar);
    let parsed = parser
        .parse(text)
        .unwrap_or_else(|e| panic!("{text:?} rejected: {e}"));
    bonsai::text::render(grammar, &parsed.tree)
}

/// Of several derivations, the one the layout pass could have printed wins: touching tokens
/// are read as one token where the renderer would have separated two.
#[test]
fn ambiguous_tokenizations_resolve_as_the_renderer_prints() {
    let grammar = bonsai::grammar::Grammar::from_text(
        "t",
        "s = e ; e = ID | e \"*\" e | e \"**\" e | \"*\" e | \"pass\" | ID \"as\" ID ;\n%pool ID = /[a-z]/ ;",
    )
    .unwrap();
    assert_eq!(round_trip(&grammar, "a ** b"), "a ** b");
    assert_eq!(round_trip(&grammar, "a * * b"), "a * * b");
    assert_eq!(round_trip(&grammar, "pass"), "pass");
    assert_eq!(round_trip(&grammar, "p as s"), "p as s");
    // Hand-written text that the renderer would space differently still parses.
    assert_eq!(round_trip(&grammar, "a*b"), "a * b");
}

#[test]
fn glue_forbids_whitespace_and_newline_reads_line_breaks() {
    let glued = bonsai::grammar::Grammar::from_text(
        "t",
        "s = ID GLUE \"(\" \")\" | ID \"[\" \"]\" ;\n%pool ID = /[a-z]/ ;",
    )
    .unwrap();
    assert_eq!(round_trip(&glued, "f()"), "f()");
    assert_eq!(round_trip(&glued, "f [ ]"), "f[]");
    let parser = Parser::new(&glued);
    // After a space only the unglued alternative is left.
    let error = parser.parse("f ()").unwrap_err();
    assert_eq!(error.line_col("f ()"), (1, 3), "{}", error.message);
    assert!(
        error.message.contains("expected \"[\""),
        "{}",
        error.message
    );

    let lines = bonsai::grammar::Grammar::from_text(
        "t",
        "prog = ( stmt NEWLINE )* ; stmt = ID \"=\" ID ;\n%pool ID = /[a-z]/ ;",
    )
    .unwrap();
    assert_eq!(round_trip(&lines, "a = b\nb = a\n"), "a = b\nb = a\n");
    // A blank line is whitespace where no NEWLINE is expected; the CRLF is one NEWLINE.
    assert_eq!(round_trip(&lines, "a = b\r\n\n  b = a\n"), "a = b\nb = a\n");
    let parser = Parser::new(&lines);
    let error = parser.parse("a = b b = a\n").unwrap_err();
    assert_eq!(error.line_col("a = b b = a\n"), (1, 7), "{}", error.message);
    assert!(
        error.message.contains("expected NEWLINE"),
        "{}",
        error.message
    );
}

/// A separator that is more than whitespace is skipped between tokens like whitespace.
#[test]
fn custom_separators_are_skipped_between_tokens() {
    let grammar = bonsai::grammar::Grammar::from_text(
        "t",
        "%layout \" | \";\ns = ID+ ;\n%pool ID = /[a-z]/ ;",
    )
    .unwrap();
    assert_eq!(round_trip(&grammar, "a | b | c"), "a | b | c");
    assert_eq!(round_trip(&grammar, "a  |  b"), "a | b");
}

/// A literal that is only a piece of a longer token (the `x` of an escape) is no keyword: a
/// seed may name a variable `x` as well as `y` (issue 13).
#[test]
fn identifiers_equal_to_a_piece_of_a_token_are_identifiers() {
    let grammar = bonsai::grammar::Grammar::from_text(
        "escapes",
        r#"
        stmt = "let" NAME "=" STRING ";" ;
        STRING = "\"" ( /[a-w]/ | "\\" "x" /[0-9]/ )* "\"" ;
        %pool NAME = /[a-z]/ ;
        "#,
    )
    .unwrap();
    let parser = Parser::new(&grammar);
    for text in [r#"let x = "a\x1";"#, r#"let y = "a";"#] {
        if let Err(e) = parser.parse(text) {
            panic!("{text}: {e}");
        }
    }
}

/// Issue 13, in a native grammar (no `%reserved`, so every keyword is reserved): a word that
/// begins with a keyword is one name (`iffy`, `notable`, `format`), never the keyword and the
/// rest of the word; the keyword itself is still read where the grammar needs it, and never
/// as a name.
#[test]
fn words_that_begin_with_a_keyword_are_one_name_in_native_grammars() {
    rejects(
        "chocopy",
        "iffy = 1\n",
        1,
        1,
        "'iffy' is not a value of pool ID",
    );
    let grammar = shipped("chocopy");
    let parser = Parser::new(&grammar);
    let options = ParseOptions::renaming_words();
    let text = "iffy = notable\nif iffy:\n    format = not iffy\n";
    let parsed = parser
        .parse_with(text, options)
        .unwrap_or_else(|e| panic!("{e}"));
    let renamed: Vec<&str> = parsed.renames.iter().map(|r| r.from.as_str()).collect();
    assert_eq!(renamed, ["iffy", "notable", "format"]);
    assert_eq!(
        bonsai::text::render(&grammar, &parsed.tree),
        "a = b\nif a:\n    c = not a\n"
    );
    assert!(parser.parse_with("if = 1\n", options).is_err());
}
