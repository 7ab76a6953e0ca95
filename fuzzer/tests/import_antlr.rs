//! ANTLR4 grammars: the small `.g4` files under grammars/antlr/, and the constructs a real
//! grammar uses, imported, checked and generated from.

mod common;

use bonsai::analysis::Analysis;
use bonsai::convert::to_ebnf;
use bonsai::diagnostic::SourceFile;
use bonsai::grammar::{Grammar, Separator};
use bonsai::import;
use bonsai::sampler::Bounds;
use common::{generate_checked, grammar_file, imported};

const SHIPPED: &[&str] = &["antlr/Json.g4", "antlr/Arith.g4", "antlr/Tiny.g4"];

fn bounds(text: &str) -> Bounds {
    text.parse().unwrap()
}

fn from_text(text: &str) -> import::Imported {
    import::from_source(&SourceFile::new("test.g4", text)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn shipped_files_import_check_and_generate_within_bounds() {
    for name in SHIPPED {
        let imported = import::load(&grammar_file(name)).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            imported.warnings.is_empty(),
            "{name}: {:?}",
            imported.warnings
        );
        let grammar = imported.grammar;
        let warnings = Analysis::new(&grammar)
            .check(&grammar)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        for b in ["1,1,1", "2,2,2", "3,3,3"] {
            let inputs = generate_checked(&grammar, bounds(b), 11, 1000);
            assert_eq!(inputs.len(), 1000);
        }
    }
}

#[test]
fn json_g4_generates_json() {
    let grammar = imported("antlr/Json.g4");
    let mut kinds = std::collections::BTreeSet::new();
    for text in generate_checked(&grammar, bounds("3,3,4"), 3, 1000) {
        // IgnoredAny checks the syntax without serde_json's f64 range limit: `8e801` is JSON.
        serde_json::from_str::<serde::de::IgnoredAny>(&text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        kinds.insert(match value {
            serde_json::Value::Null => "null",
            serde_json::Value::Bool(_) => "bool",
            serde_json::Value::Number(_) => "number",
            serde_json::Value::String(_) => "string",
            serde_json::Value::Array(_) => "array",
            serde_json::Value::Object(_) => "object",
        });
    }
    assert_eq!(kinds.len(), 6, "every kind of JSON value occurs: {kinds:?}");
}

#[test]
fn identifier_tokens_become_pools_and_skipped_rules_the_layout() {
    let arith = imported("antlr/Arith.g4");
    assert_eq!(arith.layout.separator, Separator::Auto);
    let names: Vec<&str> = arith.rules[..arith.named_rules]
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    // The fragment DIGIT is written out inside NUMBER: a fragment is no token.
    assert_eq!(names, ["program", "statement", "expr", "NUMBER"]);
    assert_eq!(arith.pools.len(), 1);
    assert_eq!(arith.pools[0].name, "ID");
    assert_eq!(&arith.pools[0].values[..3], ["A", "B", "C"]);
    // m = 2 allows two identifiers at most in any input.
    for text in generate_checked(&arith, bounds("2,3,3"), 5, 300) {
        let idents: std::collections::BTreeSet<&str> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.starts_with(|c: char| c.is_alphabetic()))
            .collect();
        assert!(idents.len() <= 2, "{text}");
    }
    let tiny = imported("antlr/Tiny.g4");
    // Keywords are literals of the grammar and never identifier values.
    let pool = &tiny.pools[0].values;
    assert!(!pool.iter().any(|v| v == "if" || v == "or"), "{pool:?}");
}

#[test]
fn constructs_map_to_native_ebnf() {
    let imported = from_text(
        r#"
        lexer grammar L;
        options { caseInsensitive = false; }
        tokens { EXTRA }
        A : 'a'..'c' ~[a-z\]] . ;
        B : ('x' | 'yz')+? 'q'?? -> type(EXTRA) ;
        fragment F : [0-9] ;
        NEWLINE : '\n' ;
        WS : [ \t]+ -> skip ;
        COMMENT : '#' ~'\n'* -> channel(HIDDEN) ;
        mode INSIDE;
        C : F+ -> popMode ;
        "#,
    );
    let text = to_ebnf(&imported.grammar);
    let body: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        body.join("\n"),
        r##"%layout auto;
%comment "#";

tokens = ( A | B | NEWLINE_ | C )* ;
A = [a-c] [^\]a-z] [\x{0}-\x{10FFFF}] ;
B = ( "x" | "yz" )+ "q"? ;
NEWLINE_ = "\n" ;
C = [0-9]+ ;
EXTRA = B ;"##
    );
    let messages: Vec<String> = imported.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("test.g4:11:9: warning: lexer modes are flattened")),
        "{messages:?}"
    );
}

#[test]
fn actions_and_predicates_are_ignored_with_located_warnings() {
    let imported = from_text("grammar G;\n@members { int n; }\ns : {n > 0}? 'a' {n++;} s? ;\n");
    let messages: Vec<String> = imported.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        messages,
        [
            "test.g4:3:5: warning: semantic predicate ignored: generated inputs may include what it would reject",
            "test.g4:3:18: warning: action ignored: a generator cannot run target-language code",
        ]
    );
    assert_eq!(
        imported.grammar.layout.separator,
        Separator::Text(String::new())
    );
}

#[test]
fn a_parser_grammar_reads_its_token_vocabulary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("CalcLexer.g4"),
        "lexer grammar CalcLexer;\nNUM : [0-9]+ ;\nPLUS : '+' ;\nWS : ' '+ -> skip ;\n",
    )
    .unwrap();
    let parser = dir.path().join("CalcParser.g4");
    std::fs::write(
        &parser,
        "parser grammar CalcParser;\noptions { tokenVocab = CalcLexer; }\nsum : NUM ( PLUS NUM )* ;\n",
    )
    .unwrap();
    let grammar: Grammar = import::load(&parser)
        .unwrap_or_else(|e| panic!("{e}"))
        .grammar;
    assert_eq!(grammar.layout.separator, Separator::Auto);
    for text in generate_checked(&grammar, bounds("2,2,2"), 1, 100) {
        assert!(
            text.split(" + ")
                .all(|n| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty()),
            "{text}"
        );
    }
    // A fault inside the vocabulary is reported in its own file.
    std::fs::write(
        dir.path().join("CalcLexer.g4"),
        "lexer grammar CalcLexer;\nNUM : [0-9 ;\n",
    )
    .unwrap();
    let err = import::load(&parser).err().unwrap().to_string();
    assert!(err.contains("CalcLexer.g4:2:7: error:"), "{err}");
}

/// An option that changes the language and that the importer does not act on is named in a
/// warning with its place; options about ANTLR's generated code are not.
#[test]
fn unsupported_grammar_options_are_warned_about() {
    let imported = from_text(
        "grammar G;\noptions { language = Java; superClass = Base; mystery = 3; }\ns : 'a' ;\n",
    );
    let messages: Vec<String> = imported.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].contains("grammar option 'mystery' is not supported")
            && messages[0].contains("test.g4:2:"),
        "{messages:?}"
    );
}

/// Issue 13: an indentation-sensitive grammar in grammars-v4's convention, where the lexer's
/// target code emits INDENT and DEDENT (declared as tokens, without rules) around NEWLINE, reads
/// a file's lines as Python does, and the start is the rule that reads a whole file (the
/// first one ending with EOF), not the first rule.
#[test]
fn declared_indent_and_dedent_tokens_read_blocks_and_the_eof_rule_starts() {
    let imported = from_text(
        r#"grammar Blocks;
tokens { INDENT, DEDENT }
single : stmt NEWLINE ;
program : ( NEWLINE | stmt )* EOF ;
stmt : 'pass' NEWLINE | 'if' name ':' block | name '=' name ( STAR STAR? | POW ) name NEWLINE ;
block : NEWLINE INDENT stmt+ DEDENT ;
name : NAME | '_' ;
NEWLINE : ( '\r'? '\n' ) ' '* { this.onNewLine(); } ;
NAME : [a-z]+ ;
STAR : '*' ;
POW : '**' ;
WS : [ \t]+ -> skip ;
"#,
    );
    let grammar = imported.grammar;
    assert_eq!(grammar.rule(grammar.start).name, "program");
    let pools: Vec<&str> = grammar.pools.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        pools,
        ["NAME"],
        "only the token is a pool; the parser rule keeps its '_'"
    );
    let parser = bonsai::parse::Parser::new(&grammar);
    // `name`, a parser rule, chooses between the NAME pool and `_`; `**` is one operator (a
    // lexer takes the longest), never `*` followed by `*`.
    let text = "if ready:\n    pass\n    if done:\n        _ = x ** y\npass\n";
    let parsed = parser
        .parse_with(text, bonsai::parse::ParseOptions::keeping_words())
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(
        bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words),
        text
    );
    // A dedent where the grammar has none is refused at the line that dedents.
    let error = parser.parse("if ready:\n    pass\n  pass\n").unwrap_err();
    assert_eq!(
        error.line_col("if ready:\n    pass\n  pass\n").0,
        3,
        "{}",
        error.message
    );
}

/// Issue 13: `caseInsensitive = true` is honoured: `SELECT FOO FROM bar;` and `select foo from
/// BAR;` are both sentences of a grammar that spells its keywords in upper case and its names
/// in lower case, and both import exactly; without the option, lower-case keywords are refused.
#[test]
fn case_insensitive_grammars_read_words_in_either_case() {
    let grammar_text = |option: &str| {
        format!(
            "grammar Q;\noptions {{ caseInsensitive = {option}; }}\nq : 'SELECT' ID 'FROM' ID ';' EOF ;\nID : [a-z_]+ ;\nWS : [ \\t\\n]+ -> skip ;\n"
        )
    };
    let imported = from_text(&grammar_text("true"));
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    let grammar = imported.grammar;
    let parser = bonsai::parse::Parser::new(&grammar);
    for text in [
        "SELECT FOO FROM bar;",
        "select foo from BAR;",
        "Select Foo From Bar;",
    ] {
        let parsed = parser
            .parse_with(text, bonsai::parse::ParseOptions::keeping_words())
            .unwrap_or_else(|e| panic!("{text}: {}", e.message));
        assert_eq!(
            bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words),
            text
        );
    }
    let strict = from_text(&grammar_text("false")).grammar;
    let parser = bonsai::parse::Parser::new(&strict);
    assert!(
        parser
            .parse_with(
                "select foo from bar;",
                bonsai::parse::ParseOptions::keeping_words()
            )
            .is_err()
    );
}

/// Issue 31, from grammars-v4's SQLite lexer: a line comment on a hidden channel that ends at
/// a line end or at `EOF` is a comment, and an identifier rule with a class beyond ASCII reads
/// a seed's Unicode names, while the pool's values stay ASCII.
#[test]
fn hidden_line_comments_ending_at_eof_and_unicode_names_are_read() {
    let imported = from_text(
        r#"
        grammar S;
        start : stmt* EOF ;
        stmt : 'SELECT' ID (',' ID)* ';' ;
        ID : [A-Za-z_\u007F-\uFFFF] [A-Za-z_0-9\u007F-\uFFFF]* ;
        LINE_COMMENT : '--' ~[\r\n]* ('\r'? '\n' | EOF) -> channel(HIDDEN) ;
        BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
        SPACES : [ \t\r\n] -> channel(HIDDEN) ;
        "#,
    );
    let grammar = imported.grammar;
    let text = to_ebnf(&grammar);
    assert!(text.contains("%comment \"--\";"), "{text}");
    let pool = grammar.pools.iter().find(|p| p.name == "ID").unwrap();
    assert_eq!(&pool.values[..3], ["A", "B", "C"]);
    assert!(
        pool.values.iter().all(|v| v.is_ascii()),
        "{:?}",
        &pool.values
    );

    let parser = bonsai::parse::Parser::new(&grammar);
    let seed = "SELECT 名, 色; -- names\nSELECT /* x */ b; -- no line end";
    let parsed = parser
        .parse_with(seed, bonsai::parse::ParseOptions::keeping_words())
        .unwrap_or_else(|e| panic!("{:?}: {}", e.line_col(seed), e.message));
    assert_eq!(parsed.comments.len(), 3, "{:?}", parsed.comments);
    let own: Vec<&str> = (parsed.words.as_slice().iter())
        .map(|w| w.word.as_str())
        .collect();
    assert_eq!(own, ["名", "色"], "the seed's names are its own words");
    for text in generate_checked(&grammar, bounds("3,3,3"), 7, 200) {
        assert!(text.is_ascii(), "generation stays ASCII: {text}");
    }
}
