//! tree-sitter grammars imported from the grammar crates themselves (dev-dependencies located
//! through `cargo metadata`), and what the original tree-sitter parsers make of the inputs
//! generated from them.

mod common;

use bonsai::analysis::Analysis;
use bonsai::grammar::{LayoutToken, Separator, Terminal};
use bonsai::import;
use bonsai::sampler::Bounds;
use common::tree_sitter_crates::{CRATES, grammar_json, version};
use common::{bonsai, generate_checked};

fn bounds(text: &str) -> Bounds {
    text.parse().unwrap()
}

fn load(package: &str) -> bonsai::grammar::Grammar {
    import::load(&grammar_json(package))
        .unwrap_or_else(|e| panic!("{package}: {e}"))
        .grammar
}

/// `bonsai import` of one Python file named `name` with tree-sitter-python's grammar, which
/// must succeed: the import report, with the directory it lives in.
fn import_python_file(name: &str, file: &str) -> ImportedFile {
    let dir = tempfile::tempdir().unwrap();
    let seeds = dir.path().join("seeds");
    std::fs::create_dir_all(&seeds).unwrap();
    std::fs::write(seeds.join(name), file).unwrap();
    let corpus = dir.path().join("corpus");
    let grammar = grammar_json("tree-sitter-python");
    let (code, _, stderr) = bonsai(&[
        "import".as_ref(),
        grammar.as_os_str(),
        seeds.as_os_str(),
        "--out".as_ref(),
        corpus.as_os_str(),
    ]);
    let report = std::fs::read_to_string(corpus.join("import-report.txt"))
        .unwrap_or_else(|_| panic!("{stderr}"));
    assert_eq!(code, 0, "{report}");
    ImportedFile {
        _dir: dir,
        corpus,
        grammar,
        report,
    }
}

struct ImportedFile {
    _dir: tempfile::TempDir,
    corpus: std::path::PathBuf,
    grammar: std::path::PathBuf,
    report: String,
}

impl ImportedFile {
    /// What the first entry's choices replay to, its final newline taken off.
    fn replayed(&self) -> String {
        let (code, replayed, stderr) = bonsai(&[
            "generate".as_ref(),
            self.grammar.as_os_str(),
            "--replay".as_ref(),
            self.corpus.join("000000.choices").as_os_str(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        replayed.strip_suffix('\n').unwrap_or(&replayed).to_string()
    }
}

#[test]
fn every_grammar_crate_passes_grammar_check() {
    for c in CRATES {
        let path = grammar_json(c.package);
        let (code, stdout, stderr) =
            bonsai(&["grammar".as_ref(), "check".as_ref(), path.as_os_str()]);
        assert_eq!(code, 0, "{} {}: {stderr}", c.package, version(c.package));
        assert!(stdout.contains(": ok"), "{stdout}");
        assert!(!stderr.contains("error"), "{stderr}");
    }
}

#[test]
fn every_import_generates_1000_inputs_within_bounds() {
    for c in CRATES {
        let grammar = load(c.package);
        Analysis::new(&grammar)
            .check(&grammar)
            .unwrap_or_else(|e| panic!("{}: {e}", c.package));
        for (b, count) in [("1,1,1", 200), ("2,2,2", 200), ("3,3,3", 1000)] {
            let inputs = generate_checked(&grammar, bounds(b), 21, count);
            assert_eq!(inputs.len(), count);
        }
    }
}

/// The share of generated inputs that the crate's own parser accepts without an error node.
/// An import cannot reach 100% everywhere: tree-sitter grammars over-approximate (the parser
/// resolves conflicts, precedences and keyword extraction at parse time) and external
/// scanners refuse some token sequences the grammar allows (an f-string interpolation in a
/// plain string). What the figures guard is that imports keep generating mostly valid
/// programs; `cargo test --test import_tree_sitter -- --nocapture` prints them.
#[test]
fn the_original_parsers_accept_most_generated_inputs() {
    for c in CRATES {
        let grammar = load(c.package);
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&(c.language)()).unwrap();
        let inputs = generate_checked(&grammar, bounds("3,3,3"), 7, 300);
        let rejected: Vec<&String> = inputs
            .iter()
            .filter(|text| {
                parser
                    .parse(text, None)
                    .is_none_or(|t| t.root_node().has_error())
            })
            .collect();
        let accepted = inputs.len() - rejected.len();
        println!(
            "{} {}: {accepted}/{} accepted",
            c.package,
            version(c.package),
            inputs.len()
        );
        let floor = if c.package == "tree-sitter-json" {
            300
        } else {
            180
        };
        assert!(
            accepted >= floor,
            "{}: only {accepted}/300 accepted; e.g. {:?}",
            c.package,
            rejected.first()
        );
    }
}

/// tree-sitter-json accepts a little more than JSON: a number may end in `.` (`1.`) and `\u`
/// may go without its four hex digits. Everything else it generates must be JSON.
#[test]
fn tree_sitter_json_generates_json_but_for_its_known_looseness() {
    let grammar = load("tree-sitter-json");
    let loose_number = |t: &str| {
        t.as_bytes()
            .windows(2)
            .any(|w| w[0] == b'.' && !w[1].is_ascii_digit())
            || t.ends_with('.')
    };
    let loose_escape = |t: &str| {
        t.match_indices("\\u").any(|(i, _)| {
            let hex = &t[i + 2..];
            hex.len() < 4 || !hex[..4].chars().all(|c| c.is_ascii_hexdigit())
        })
    };
    let mut strict = 0;
    for text in generate_checked(&grammar, bounds("3,3,3"), 13, 1000) {
        // A document is a sequence of values; IgnoredAny checks syntax without f64 limits.
        let parsed: Result<Vec<serde::de::IgnoredAny>, _> =
            serde_json::Deserializer::from_str(&text)
                .into_iter()
                .collect();
        match parsed {
            Ok(_) => strict += 1,
            Err(e) => assert!(
                loose_number(&text) || loose_escape(&text),
                "not JSON ({e}) for no known reason: {text:?}"
            ),
        }
    }
    assert!(strict >= 800, "only {strict}/1000 are strict JSON");
}

/// Python and Starlark are indentation-sensitive; their scanners' `_indent`, `_dedent` and
/// `_newline` become layout tokens, so blocks come out indented one level deeper than the line
/// that opens them, and no deeper.
#[test]
fn python_and_starlark_blocks_are_indented() {
    for package in ["tree-sitter-python", "tree-sitter-starlark"] {
        let grammar = load(package);
        assert_eq!(grammar.layout.indent, "    ");
        let layout: Vec<LayoutToken> = grammar
            .terminals
            .iter()
            .filter_map(|t| match t {
                Terminal::Layout(l) => Some(*l),
                _ => None,
            })
            .collect();
        for token in [
            LayoutToken::Newline,
            LayoutToken::Indent,
            LayoutToken::Dedent,
        ] {
            assert!(layout.contains(&token), "{package}: no {token:?}");
        }
        let mut nested = 0;
        for text in generate_checked(&grammar, bounds("2,2,4"), 3, 500) {
            let mut previous: Option<(usize, &str)> = None;
            let mut continued = false;
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                // A line after a backslash continues a string or an expression.
                let continuation = std::mem::replace(&mut continued, line.ends_with('\\'));
                if continuation {
                    // The logical line keeps its indentation and now ends here.
                    previous = previous.map(|(indent, _)| (indent, line));
                    continue;
                }
                let indent = line.len() - line.trim_start_matches(' ').len();
                assert_eq!(indent % 4, 0, "{package}: {text}");
                let (before, opener) = previous.unwrap_or((0, ""));
                if indent > before {
                    assert_eq!(indent, before + 4, "{package}: {text}");
                    assert!(opener.trim_end().ends_with(':'), "{package}: {text}");
                    nested += 1;
                }
                previous = Some((indent, line));
            }
        }
        assert!(nested > 50, "{package}: only {nested} indented blocks");
    }
}

#[test]
fn identifiers_are_pools_and_comments_are_not_generated() {
    for c in CRATES.iter().filter(|c| c.package != "tree-sitter-json") {
        let grammar = load(c.package);
        assert_eq!(grammar.layout.separator, Separator::Auto, "{}", c.package);
        let pool = grammar
            .pools
            .iter()
            .find(|p| p.name == "identifier")
            .unwrap_or_else(|| panic!("{}: no identifier pool", c.package));
        for keyword in ["if", "in", "do", "or", "as", "fn"] {
            let literal = Terminal::Literal(keyword.to_string());
            if grammar.terminals.contains(&literal) {
                assert!(
                    !pool.values.contains(&keyword.to_string()),
                    "{}: {keyword}",
                    c.package
                );
            }
        }
        let analysis = Analysis::new(&grammar);
        for (r, rule) in grammar.rules[..grammar.named_rules].iter().enumerate() {
            assert!(
                !rule.name.contains("comment") || !analysis.reachability.rules.contains(r),
                "{}: comments are extras and never generated, but {} is reachable",
                c.package,
                rule.name
            );
        }
    }
}

/// Issue 13: a Python file's strings as they are, through `bonsai import` with the grammar as
/// tree-sitter-python ships it. Its docstrings, words in strings, single-quoted, triple-quoted
/// and prefixed strings, and an f-string whose format has a space that means something, must
/// come back byte for byte: the entry is exact and replays to the file.
#[test]
fn python_strings_of_every_quote_import_exactly() {
    let file = r#""""A module docstring: words, it's "quoted", and a second line.

Another paragraph with {braces} and a \ backslash.
"""
a = 'hello, world'
b = "double with 'inner' quotes" + 'single with "inner" quotes'
c = r'\d+\.\d*' + b"bytes\n\x00" + u"unicode"
d = f"{a!r:>20} and {b} {{literal}}" + F'{c: >8}'
e = '' + ""
def g(h):
    '''A triple single-quoted docstring.

    Spanning "lines", with 'quotes' inside.
    '''
    return "a {h}" + '%s = %r' % (h, a)
"#;
    let imported = import_python_file("strings.py", file);
    let report = &imported.report;
    assert!(
        report.contains("strings.py: accepted as 000000 (exact"),
        "{report}"
    );
    assert_eq!(
        std::fs::read_to_string(imported.corpus.join("000000.txt")).unwrap(),
        file
    );
    assert_eq!(imported.replayed(), file);
}

/// Inside a string, `if`, `def`, `#` and `"""` of another quote are the string's characters:
/// no keyword token, no comment skipped, and the string closes only at its own quote. A real
/// comment after it is still a comment.
#[test]
fn python_string_contents_are_never_keywords_or_comments() {
    let grammar = load("tree-sitter-python");
    let parser = bonsai::parse::Parser::new(&grammar);
    let text = "x = \"if y: # not a comment\"\ny = 'def \"\"\" return'  # a comment\n";
    let parsed = parser
        .parse(text)
        .unwrap_or_else(|e| panic!("{}", e.message));
    for node in parsed.tree.nodes() {
        if let bonsai::tree::NodeKind::Terminal { terminal, .. } = node.kind {
            let terminal = grammar.terminal(terminal);
            for keyword in ["if", "def", "return", ":", "\"\"\""] {
                assert_ne!(terminal, &Terminal::Literal(keyword.into()), "{keyword}");
            }
        }
    }
    let rendered = bonsai::text::render(&grammar, &parsed.tree);
    assert_eq!(
        rendered,
        "x = \"if y: # not a comment\"\ny = 'def \"\"\" return'\n"
    );
    assert_eq!(parsed.comments.len(), 1, "{:?}", parsed.comments);
    assert_eq!(&text[parsed.comments[0].clone()].trim(), &"# a comment");
}

/// Issue 13: a word that begins with a keyword is one identifier, as a tokenizer's longest
/// match reads it: `matches` is not `match` and `es`, `iffy` not `if` and `fy`, `format` not
/// `for` and `mat`. Where the grammar needs the keyword (`if x:`), it is still the keyword.
#[test]
fn python_words_that_begin_with_a_keyword_are_one_identifier() {
    let grammar = load("tree-sitter-python");
    let parser = bonsai::parse::Parser::new(&grammar);
    let text = "matches = iffy + format\nif matches:\n    pass\n";
    let error = parser.parse(text).unwrap_err();
    assert_eq!(error.line_col(text), (1, 1), "{}", error.message);
    assert!(
        error
            .message
            .starts_with("'matches' is not a value of pool"),
        "{}",
        error.message
    );
    let options = bonsai::parse::ParseOptions::renaming_words();
    let parsed = parser
        .parse_with(text, options)
        .unwrap_or_else(|e| panic!("{}", e.message));
    let renamed: Vec<&str> = parsed.renames.iter().map(|r| r.from.as_str()).collect();
    assert_eq!(renamed, ["matches", "iffy", "format"]);
    let literals: Vec<&str> = parsed
        .tree
        .nodes()
        .iter()
        .filter_map(|node| match node.kind {
            bonsai::tree::NodeKind::Terminal { terminal, .. } => match grammar.terminal(terminal) {
                Terminal::Literal(word) if word.chars().all(|c| c.is_ascii_alphabetic()) => {
                    Some(word.as_str())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(literals, ["if", "pass"], "the keywords the grammar needs");
    let rendered = bonsai::text::render(&grammar, &parsed.tree);
    assert_eq!(rendered, "A = B + C\nif A:\n    pass\n");
}

/// Issue 13: Python's soft keywords are names wherever the grammar does not expect the keyword,
/// as tree-sitter lexes them (its `reserved` words are the only ones that never are). A file
/// whose variables are called `match`, `type` and `_`, and that calls `print`, imports exactly
/// and replays to itself; the keywords of a real match statement stay keywords.
#[test]
fn python_soft_keywords_used_as_names_import_exactly() {
    let file = "match = 1\ntype = 2\n_ = f()\nfor _ in x:\n    print(_)\nmatch match:\n    case _:\n        pass\n";
    let imported = import_python_file("soft.py", file);
    let report = &imported.report;
    assert!(
        report.contains("soft.py: accepted as 000000 (exact"),
        "{report}"
    );
    assert_eq!(imported.replayed(), file);

    // The match statement's `match`, `case` and `_` are its literals; the other `match`es and
    // `_`s are the identifier pool's, as is `print` read through `keyword_identifier`'s
    // literal (tree-sitter-python's own way to let `print` be a name).
    let grammar = load("tree-sitter-python");
    let parsed = bonsai::parse::Parser::new(&grammar)
        .parse(file)
        .unwrap_or_else(|e| panic!("{}", e.message));
    let mut literals = Vec::new();
    let mut names = Vec::new();
    for node in parsed.tree.nodes() {
        if let bonsai::tree::NodeKind::Terminal { terminal, value } = node.kind {
            match grammar.terminal(terminal) {
                Terminal::Literal(word)
                    if ["match", "case", "_", "type"].contains(&word.as_str()) =>
                {
                    literals.push(word.clone())
                }
                Terminal::Pool(pool) => {
                    names.push(grammar.pools[pool.index()].values[value as usize].clone())
                }
                _ => {}
            }
        }
    }
    assert_eq!(literals, ["match", "type", "match", "match", "case", "_"]);
    assert_eq!(names, ["_", "f", "_", "x", "_"]);
}

/// With `--rename-pools`, a soft keyword where only a name fits (`x.match`, `def print`) is a
/// name to rename, but never where the grammar expects the keyword: `if` stays reserved, and
/// `print(y)` keeps its literal reading.
#[test]
fn python_soft_keywords_are_renamed_only_where_a_name_is_needed() {
    let grammar = load("tree-sitter-python");
    let parser = bonsai::parse::Parser::new(&grammar);
    let text = "def print(self):\n    return self.match\nprint(y)\nif x:\n    pass\n";
    let options = bonsai::parse::ParseOptions::renaming_words();
    let parsed = parser
        .parse_with(text, options)
        .unwrap_or_else(|e| panic!("{}", e.message));
    let renamed: Vec<&str> = parsed.renames.iter().map(|r| r.from.as_str()).collect();
    assert_eq!(renamed, ["print", "self", "match"]);
    let rendered = bonsai::text::render(&grammar, &parsed.tree);
    assert_eq!(
        rendered,
        "def A(B):\n    return B.C\nprint(y)\nif x:\n    pass\n"
    );
    let if_as_name = "if = 1\n";
    assert!(parser.parse_with(if_as_name, options).is_err());
}

/// Issue 13: a real file's own names are kept, not renamed. A file that names things `total`
/// and `scale` (not values of the identifier pool) imports exactly by default: its choices
/// record the pool values its names stand in for, so m counts its distinct names, and carry
/// the names themselves, so the replay is the file byte for byte. Operators are read as a
/// lexer reads them: `**` is one operator (a derivation as `*` `*` would replay as `* *`,
/// another program), while `from ...pkg import x`, where only `.` is expected, is three dots.
#[test]
fn python_names_of_a_real_file_are_kept_and_operators_read_longest_first() {
    let file = "from ...pkg import total\nscale = total ** 2 * total\nprint(scale)\n";
    let grammar = load("tree-sitter-python");
    let parser = bonsai::parse::Parser::new(&grammar);
    let error = parser.parse(file).unwrap_err();
    assert!(
        error.message.contains("'pkg' is not a value"),
        "{}",
        error.message
    );
    let parsed = parser
        .parse_with(file, bonsai::parse::ParseOptions::keeping_words())
        .unwrap_or_else(|e| panic!("{}", e.message));
    let words: Vec<&str> = parsed
        .words
        .as_slice()
        .iter()
        .map(|w| w.word.as_str())
        .collect();
    assert_eq!(words, ["pkg", "total", "scale"]);
    assert!(parsed.renames.is_empty());
    assert_eq!(parsed.bounds.idents, 3, "one pool value per distinct name");
    // The layout writes the relative import's dots apart; everything else is the file's.
    assert_eq!(
        bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words),
        file.replace("from ...", "from. . .")
    );
    let operators: Vec<&str> = parsed
        .tree
        .nodes()
        .iter()
        .filter_map(|node| match node.kind {
            bonsai::tree::NodeKind::Terminal { terminal, .. } => match grammar.terminal(terminal) {
                Terminal::Literal(op) if op.starts_with(['*', '.']) => Some(op.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(operators, [".", ".", ".", "**", "*"]);

    let file = "import total\nscale = total ** 2 * total\nprint(scale)\n";
    let imported = import_python_file("names.py", file);
    let report = &imported.report;
    assert!(
        report.contains("names.py: accepted as 000000 (exact, bounds 2,")
            && report.contains("; 2 words of its own"),
        "{report}"
    );
    assert_eq!(imported.replayed(), file);

    // Renaming stays available, and says what it changed.
    let renamed = parser
        .parse_with(file, bonsai::parse::ParseOptions::renaming_words())
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert!(renamed.words.is_empty());
    assert_eq!(renamed.renames.len(), 2);
    assert_ne!(bonsai::text::render(&grammar, &renamed.tree), file);
}

/// Issue 13: `\"` inside a Python string is an escape, never a backslash that starts no escape
/// followed by the closing quote. Read the second way, `"a\" # b"` was a string and a comment,
/// and a real file replayed as another program (`"<a href=\"%s#..."` lost its tail).
#[test]
fn python_backslash_quote_never_closes_a_string() {
    let grammar = load("tree-sitter-python");
    let parser = bonsai::parse::Parser::new(&grammar);
    let options = bonsai::parse::ParseOptions::keeping_words();
    let text = "x = \"a\\\" # b\"\n";
    let parsed = parser
        .parse_with(text, options)
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert!(parsed.comments.is_empty(), "{:?}", parsed.comments);
    assert_eq!(
        bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words),
        text
    );
    let unterminated = "x = \"a\\\"\n";
    assert!(parser.parse_with(unterminated, options).is_err());
    // A backslash that starts no escape is the file's, as Python keeps it.
    let kept = "x = \"\\d+\\\\\" + r\"\\w\"\n";
    let parsed = parser
        .parse_with(kept, options)
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(
        bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words),
        kept
    );
}

/// Issue 13, on tree-sitter-javascript: a string is one run of text (`'./a b'` is not written
/// `'./a b '`), a template keeps the spaces around its substitutions, a statement that ends
/// at a line break, where the scanner inserts the semicolon, is read, and so is a reserved word
/// where the grammar's reserved context allows it (`exports.default`). Each replays to a text
/// that differs from the file in layout only.
#[test]
fn javascript_strings_templates_and_line_end_semicolons_keep_their_meaning() {
    let grammar = load("tree-sitter-javascript");
    let parser = bonsai::parse::Parser::new(&grammar);
    let options = bonsai::parse::ParseOptions::keeping_words();
    let file = "var m = require('./a b')\nvar t = `x ${m + 1} y`\nfunction f() {\n  return \"\"\n}\nexports.default = {if: m.if}\n";
    let parsed = parser
        .parse_with(file, options)
        .unwrap_or_else(|e| panic!("{}", e.message));
    let text = bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words);
    assert!(text.contains("require('./a b')"), "{text}");
    assert!(text.contains("`x ${m + 1} y`"), "{text}");
    assert!(text.contains("return \"\""), "{text}");
    // A reserved word is a property name where the grammar's `properties` set does not reserve
    // it.
    assert!(text.contains("exports.default = {if: m.if}"), "{text}");
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    assert_eq!(squeeze(&text), squeeze(file), "{text}");
    // Generated strings and templates close right after their last piece: GLUE stands
    // before every closing quote.
    let glue = |symbol: &bonsai::grammar::Symbol| {
        matches!(symbol, bonsai::grammar::Symbol::Terminal(t)
            if *grammar.terminal(*t) == Terminal::Layout(bonsai::grammar::LayoutToken::Glue))
    };
    for name in ["string", "template_string"] {
        let rule = grammar
            .rules
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no rule {name}"));
        for alternative in &rule.alternatives {
            let symbols = &alternative.symbols;
            assert!(symbols.len() >= 3, "{name}: {symbols:?}");
            assert!(glue(&symbols[symbols.len() - 2]), "{name}: {symbols:?}");
        }
    }
}

/// Issue 13: tree-sitter takes a keyword only where the parse state expects it, unless the
/// grammar's global `reserved` set says otherwise. tree-sitter-starlark has none, so its
/// `eq` (from `assert.eq`), `type` and `_` are names elsewhere: these Starlark lines from real
/// test files import with their text kept.
#[test]
fn starlark_literals_are_names_where_the_grammar_does_not_expect_them() {
    let grammar = load("tree-sitter-starlark");
    let parser = bonsai::parse::Parser::new(&grammar);
    let text = "asserts.eq(x.type, 2)\n_, b = c\n";
    let parsed = parser
        .parse_with(text, bonsai::parse::ParseOptions::keeping_words())
        .unwrap_or_else(|e| panic!("{}", e.message));
    let words: Vec<&str> = parsed
        .words
        .as_slice()
        .iter()
        .map(|w| w.word.as_str())
        .collect();
    for name in ["asserts", "eq", "type"] {
        assert!(words.contains(&name), "{name} is not a name: {words:?}");
    }
    let rendered = bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words);
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    assert_eq!(squeeze(&rendered), squeeze(text), "{rendered}");
    // Where the grammar expects the literal, it is the literal.
    let statement = "if eq:\n    pass\n";
    let parsed = parser
        .parse_with(statement, bonsai::parse::ParseOptions::keeping_words())
        .unwrap_or_else(|e| panic!("{}", e.message));
    let words: Vec<&str> = parsed
        .words
        .as_slice()
        .iter()
        .map(|w| w.word.as_str())
        .collect();
    assert_eq!(words, ["eq"]);
}

/// Issue 13: a seed's non-ASCII characters in strings are read and kept (`ß`, `一月`, `–`),
/// while generation still draws printable ASCII: a class holds every character a parser
/// must accept, and fresh draws (and havoc's raw values) pick its printable ones.
#[test]
fn non_ascii_string_contents_are_kept_and_never_generated() {
    for (package, text) in [
        (
            "tree-sitter-python",
            "x = 'Straße – 一月'\ny = \"\"\"ü\n\"\"\"\n",
        ),
        ("tree-sitter-javascript", "var m = 'Straße – 一月';\n"),
    ] {
        let grammar = load(package);
        let parser = bonsai::parse::Parser::new(&grammar);
        let parsed = parser
            .parse_with(text, bonsai::parse::ParseOptions::keeping_words())
            .unwrap_or_else(|e| panic!("{package}: {}", e.message));
        let rendered = bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words);
        let squeeze = |s: &str| s.split_whitespace().collect::<String>();
        assert_eq!(squeeze(&rendered), squeeze(text), "{package}");
        let bounds: Bounds = "3,4,6".parse().unwrap();
        let mut sampler = bonsai::sampler::Sampler::new(&grammar, bounds).unwrap();
        let mut rng = libafl_bolts::rands::StdRand::with_seed(3);
        let mut sample = bonsai::sampler::Sample::default();
        for _ in 0..300 {
            sampler.generate(&mut rng, &mut sample);
            let text = bonsai::text::render(&grammar, &sample.tree);
            assert!(text.is_ascii(), "{package}: {text:?}");
        }
        // Raw values as havoc writes them replay to printable characters too.
        let raw: Vec<u32> = (0..400u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let _ = sampler.sample(&raw, bonsai::choice::Replay::Repair, &mut rng, &mut sample);
        let text = bonsai::text::render(&grammar, &sample.tree);
        assert!(text.is_ascii(), "{package}: {text:?}");
    }
}

/// Issue 13: a triple-quoted string is one string, never an empty string, a string and an
/// operator (`""` `"a "` `**` `" b"` `""` is another Python program). Found by the import
/// table's meaning check on the stdlib's `util.py`; the slice makes the parse fall back from
/// the renderer's own layout, where the two readings used to compete.
#[test]
fn python_triple_quotes_open_one_string() {
    let grammar = load("tree-sitter-python");
    let parser = bonsai::parse::Parser::new(&grammar);
    let text = "z = a[1:2]\nmsg = \"\"\"a \"**\" b\"\"\"\n";
    let parsed = parser
        .parse_with(text, bonsai::parse::ParseOptions::keeping_words())
        .unwrap_or_else(|e| panic!("{}", e.message));
    let rendered = bonsai::text::render_words(&grammar, &parsed.tree, &parsed.words);
    assert!(
        rendered.contains("msg = \"\"\"a \"**\" b\"\"\""),
        "{rendered}"
    );
}

/// Issue 31: `grammar check` and `import` read a declaration of external tokens beside the
/// grammar; a declaration naming no external of the grammar stops them with exit code 2 and
/// the declaration's file, line and column; the import report names the externals left
/// without a reading.
#[test]
fn a_declaration_of_externals_is_read_checked_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let grammar = dir.path().join("grammar.json");
    std::fs::write(
        &grammar,
        r#"{"name": "t", "rules": {"file": {"type": "REPEAT1", "content": {"type": "CHOICE", "members": [
  {"type": "SEQ", "members": [{"type": "STRING", "value": "cat"}, {"type": "SYMBOL", "name": "heredoc_start"}]},
  {"type": "SEQ", "members": [{"type": "STRING", "value": "echo"}, {"type": "SYMBOL", "name": "regex"}]}]}}},
  "externals": [{"type": "SYMBOL", "name": "heredoc_start"}, {"type": "SYMBOL", "name": "regex"}]}"#,
    )
    .unwrap();
    let declaration = dir.path().join("grammar.externals.ebnf");
    std::fs::write(&declaration, "heredoc_start = \"<<\" /[A-Z]+/ ;\n").unwrap();
    let (code, stdout, stderr) =
        bonsai(&["grammar".as_ref(), "check".as_ref(), grammar.as_os_str()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("externals: 1 without a reading (regex)"),
        "{stdout}"
    );

    let seeds = dir.path().join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    std::fs::write(seeds.join("a.sh"), "cat <<EOF\n").unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = bonsai(&[
        "import".as_ref(),
        grammar.as_os_str(),
        seeds.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("import-report.json")).unwrap())
            .unwrap();
    assert_eq!(report["accepted"], 1, "{report}");
    assert_eq!(report["unread_externals"], serde_json::json!(["regex"]));

    std::fs::write(
        &declaration,
        "heredoc_start = \"<<\" ;\nheredoc_body = /[a-z/ ;\n",
    )
    .unwrap();
    let (code, _, stderr) = bonsai(&["grammar".as_ref(), "check".as_ref(), grammar.as_os_str()]);
    assert_eq!(code, 2, "{stderr}");
    let at = format!(
        "{}:2:1: error: 'heredoc_body' is not an external token",
        declaration.display()
    );
    assert!(stderr.contains(&at), "{stderr}");
}
