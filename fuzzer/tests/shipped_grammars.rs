//! Every grammar in `grammars/` is clean, generates within bounds, and generates what its
//! language expects: fuzzingbook's exact grammars, parseable JSON, correctly indented
//! ChocoPy and Starlark, SIMPL modules.

mod common;

use std::fmt;
use std::path::PathBuf;

use bonsai::analysis::Analysis;
use bonsai::grammar::{Grammar, Symbol, Terminal};
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use common::{SHIPPED, check_bounds, shipped};
use libafl_bolts::rands::StdRand;
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};

const INPUTS: usize = 1000;

fn bounds(text: &str) -> Bounds {
    text.parse().unwrap()
}

/// `count` inputs at `bounds`, each checked against the bounds, as rendered text.
fn generate(grammar: &Grammar, bounds: Bounds, count: usize, seed: u64) -> Vec<String> {
    let mut sampler = Sampler::new(grammar, bounds).unwrap();
    let mut rng = StdRand::with_seed(seed);
    let mut sample = Sample::default();
    (0..count)
        .map(|i| {
            sampler.generate(&mut rng, &mut sample);
            if let Err(e) = check_bounds(grammar, &sample.tree, bounds) {
                panic!("{} input {i} at {bounds}: {e}", grammar.name);
            }
            render(grammar, &sample.tree)
        })
        .collect()
}

#[test]
fn every_shipped_grammar_checks_without_errors_or_warnings() {
    for name in SHIPPED {
        let grammar = shipped(name);
        let analysis = Analysis::new(&grammar);
        let warnings = analysis.check(&grammar).unwrap_or_else(|e| panic!("{e}"));
        let warnings: Vec<String> = warnings.iter().map(ToString::to_string).collect();
        assert!(warnings.is_empty(), "{name}: {warnings:#?}");
    }
}

#[test]
fn every_shipped_grammar_generates_within_bounds() {
    for name in SHIPPED {
        let grammar = shipped(name);
        for b in ["3,3,3", "1,1,1"] {
            let inputs = generate(&grammar, bounds(b), INPUTS, 1);
            let distinct: std::collections::HashSet<&String> = inputs.iter().collect();
            // A grammar whose inputs all coincide would make every other check here vacuous.
            assert!(distinct.len() > 1, "{name} at {b}: one input only");
        }
    }
}

// ---- fuzzingbook's grammars, exactly ----

/// A fuzzingbook grammar file: the book's dict with its order kept (serde_json's own map
/// sorts keys, and rule order is part of "exactly").
struct BookGrammar {
    start: String,
    rules: Vec<(String, Vec<String>)>,
}

fn read_book_grammar(name: &str) -> BookGrammar {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../grammars/fuzzingbook")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut deserializer = serde_json::Deserializer::from_str(&text);
    let rules = OrderedGrammar::read(&mut deserializer);
    BookGrammar {
        start: value["start"].as_str().unwrap().to_string(),
        rules,
    }
}

/// Reads the top-level object and keeps only `grammar`, in document order.
struct OrderedGrammar;

impl OrderedGrammar {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Vec<(String, Vec<String>)> {
        d.deserialize_map(OrderedGrammar)
            .unwrap_or_else(|_| panic!("bad fuzzingbook file"))
    }
}

impl<'de> Visitor<'de> for OrderedGrammar {
    type Value = Vec<(String, Vec<String>)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a fuzzingbook grammar object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rules = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "grammar" {
                rules = map.next_value_seed(RulesInOrder)?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(rules)
    }
}

struct RulesInOrder;

impl<'de> serde::de::DeserializeSeed<'de> for RulesInOrder {
    type Value = Vec<(String, Vec<String>)>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RulesInOrder {
    type Value = Vec<(String, Vec<String>)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("symbol -> expansions")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rules = Vec::new();
        while let Some(entry) = map.next_entry::<String, Vec<String>>()? {
            rules.push(entry);
        }
        Ok(rules)
    }
}

/// One item of an expansion: a nonterminal or a run of literal text.
#[derive(Debug, PartialEq, Eq)]
enum Item {
    Nonterminal(String),
    Text(String),
}

/// Splits an expansion as fuzzingbook does: `<name>` with no `<`, `>` or space inside is a
/// nonterminal, everything else is text.
fn book_expansion(expansion: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut text = String::new();
    let mut rest = expansion;
    while let Some(c) = rest.chars().next() {
        if c == '<'
            && let Some(end) = rest[1..].find(['<', '>', ' '])
            && rest[1 + end..].starts_with('>')
        {
            if !text.is_empty() {
                items.push(Item::Text(std::mem::take(&mut text)));
            }
            items.push(Item::Nonterminal(rest[..end + 2].to_string()));
            rest = &rest[end + 2..];
            continue;
        }
        text.push(c);
        rest = &rest[c.len_utf8()..];
    }
    if !text.is_empty() {
        items.push(Item::Text(text));
    }
    items
}

/// The same items read off one of our alternatives; adjacent literals merge, as they would in
/// the book's string.
fn our_alternative(grammar: &Grammar, symbols: &[Symbol]) -> Vec<Item> {
    let mut items = Vec::new();
    for symbol in symbols {
        match *symbol {
            Symbol::Rule(r) => items.push(Item::Nonterminal(grammar.rule(r).name.clone())),
            Symbol::Terminal(t) => match grammar.terminal(t) {
                Terminal::Literal(s) => match items.last_mut() {
                    Some(Item::Text(text)) => text.push_str(s),
                    _ => items.push(Item::Text(s.clone())),
                },
                other => panic!("fuzzingbook grammars have only literals, found {other:?}"),
            },
            other => panic!("fuzzingbook grammars have no EBNF operators, found {other:?}"),
        }
    }
    items
}

fn assert_is_the_book_grammar(name: &str) {
    let book = read_book_grammar(name);
    let ours = shipped(name);
    assert_eq!(
        ours.rule(ours.start).name,
        book.start,
        "{name}: start symbol"
    );
    assert_eq!(
        ours.rules.len(),
        ours.named_rules,
        "{name}: groups are not in the book"
    );
    let our_names: Vec<&str> = ours.rules.iter().map(|r| r.name.as_str()).collect();
    let book_names: Vec<&str> = book.rules.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(our_names, book_names, "{name}: rules and their order");
    for ((rule_name, expansions), rule) in book.rules.iter().zip(&ours.rules) {
        let theirs: Vec<Vec<Item>> = expansions.iter().map(|e| book_expansion(e)).collect();
        let mine: Vec<Vec<Item>> = rule
            .alternatives
            .iter()
            .map(|a| our_alternative(&ours, &a.symbols))
            .collect();
        assert_eq!(mine, theirs, "{name}: rule {rule_name}");
    }
}

#[test]
fn book_expansions_are_split_as_fuzzingbook_splits_them() {
    use Item::{Nonterminal as N, Text as T};
    assert_eq!(
        book_expansion("<term> + <expr>"),
        [N("<term>".into()), T(" + ".into()), N("<expr>".into())]
    );
    assert_eq!(
        book_expansion("%<hexdigit><hexdigit>"),
        [
            T("%".into()),
            N("<hexdigit>".into()),
            N("<hexdigit>".into())
        ]
    );
    assert_eq!(book_expansion(""), []);
    assert_eq!(book_expansion("a < b > c"), [T("a < b > c".into())]);
}

#[test]
fn expr_is_fuzzingbooks_expr_grammar() {
    assert_is_the_book_grammar("expr");
}

#[test]
fn cgi_is_fuzzingbooks_cgi_grammar() {
    assert_is_the_book_grammar("cgi");
}

#[test]
fn url_is_fuzzingbooks_url_grammar() {
    assert_is_the_book_grammar("url");
}

// ---- what each language expects of its inputs ----

/// Whether `text` is one JSON value by RFC 8259's syntax. Parsing into `IgnoredAny` checks
/// the syntax without serde_json's own limit on number range (`1E999` is JSON, but does not
/// fit an f64), which RFC 8259 leaves to each implementation.
fn json_syntax(text: &str) -> Result<(), serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    serde::de::IgnoredAny::deserialize(&mut deserializer)?;
    deserializer.end()
}

#[test]
fn the_json_syntax_check_refuses_what_is_not_json() {
    assert!(json_syntax(r#"{"a": [1, -0.5e+3, 1E999, "\u00e9\n"]}"#).is_ok());
    for bad in [
        "- 1",
        "01",
        r#"" a"#,
        r#""\q""#,
        r#""\u00g0""#,
        "[1,]",
        "{\"a\" 1}",
        "1 2",
    ] {
        assert!(json_syntax(bad).is_err(), "{bad}");
    }
}

#[test]
fn json_inputs_parse_as_json() {
    let grammar = shipped("json");
    let mut parsed_as_values = 0;
    for b in ["3,3,3", "1,1,1"] {
        for text in generate(&grammar, bounds(b), INPUTS, 2) {
            if let Err(e) = json_syntax(&text) {
                panic!("not JSON at {b} ({e}): {text}");
            }
            parsed_as_values +=
                usize::from(serde_json::from_str::<serde_json::Value>(&text).is_ok());
        }
    }
    // Only numbers beyond f64 keep an input from loading as a serde_json value.
    assert!(parsed_as_values > INPUTS, "{parsed_as_values}");
}

/// Checks the layout of an indentation-sensitive program and returns the level of each line:
/// indentation is made of whole units, a line ending in ':' opens a block one level deeper,
/// and a line is deeper than the one before only when that one ends in ':' (elsewhere Python
/// reports an unexpected indent).
fn check_indentation(text: &str, unit: &str) -> Result<Vec<usize>, String> {
    let mut levels = Vec::new();
    let mut previous: Option<(usize, &str)> = None;
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        let body = line.trim_start_matches(' ');
        let spaces = line.len() - body.len();
        if body.is_empty() || body.starts_with(char::is_whitespace) {
            return Err(format!(
                "line {number} is blank or indented by tabs: {line:?}"
            ));
        }
        if spaces % unit.len() != 0 {
            return Err(format!(
                "line {number} is indented by {spaces} spaces: {line:?}"
            ));
        }
        let level = spaces / unit.len();
        match previous {
            None if level != 0 => return Err(format!("the first line is indented: {line:?}")),
            Some((before, prev)) if prev.ends_with(':') && level != before + 1 => {
                return Err(format!(
                    "line {number} follows a ':' at level {before} but is at level {level}"
                ));
            }
            Some((before, prev)) if level > before && !prev.ends_with(':') => {
                return Err(format!(
                    "line {number} is deeper (level {level}) than the line before (level {before}), which opens no block"
                ));
            }
            _ => {}
        }
        levels.push(level);
        previous = Some((level, line));
    }
    if let Some((_, last)) = previous
        && last.ends_with(':')
    {
        return Err("the program ends with an open block".into());
    }
    Ok(levels)
}

/// The level each line should have according to the derivation tree: INDENT and DEDENT
/// tokens counted up to the first token of the line. This is independent of the layout pass,
/// so it also catches a DEDENT that the text ignores (which leaves valid but different code).
fn levels_in_tree(grammar: &Grammar, tree: &bonsai::tree::DerivationTree) -> Vec<usize> {
    use bonsai::grammar::LayoutToken;
    use bonsai::tree::NodeKind;
    let (mut level, mut line_start, mut levels) = (0usize, true, Vec::new());
    for node in tree.nodes() {
        let NodeKind::Terminal { terminal, .. } = node.kind else {
            continue;
        };
        match grammar.terminal(terminal) {
            Terminal::Layout(LayoutToken::Indent) => level += 1,
            Terminal::Layout(LayoutToken::Dedent) => level -= 1,
            Terminal::Layout(LayoutToken::Newline) => line_start = true,
            Terminal::Literal(s) if s.is_empty() => {}
            _ => {
                if line_start {
                    levels.push(level);
                }
                line_start = false;
            }
        }
    }
    levels
}

#[test]
fn the_indentation_check_catches_bad_layouts() {
    let unit = "    ";
    assert_eq!(
        check_indentation("if x:\n    pass\nelse:\n    y\nz\n", unit),
        Ok(vec![0, 1, 0, 1, 0])
    );
    assert!(check_indentation("if x:\npass\n", unit).is_err());
    assert!(check_indentation("if x:\n        pass\n", unit).is_err());
    assert!(check_indentation("x\n    y\n", unit).is_err());
    assert!(check_indentation("x\n\ty\n", unit).is_err());
    assert!(check_indentation("x\n   y\n", unit).is_err());
    assert!(check_indentation("    x\n", unit).is_err());
    assert!(check_indentation("if x:\n", unit).is_err());
}

fn assert_indented(name: &str) {
    let grammar = shipped(name);
    let unit = grammar.layout.indent.clone();
    let (mut blocks, mut dedents) = (0, 0);
    for b in ["3,3,3", "1,1,1"] {
        let mut sampler = Sampler::new(&grammar, bounds(b)).unwrap();
        let mut rng = StdRand::with_seed(3);
        let mut sample = Sample::default();
        for _ in 0..INPUTS {
            sampler.generate(&mut rng, &mut sample);
            let text = render(&grammar, &sample.tree);
            let levels = check_indentation(&text, &unit)
                .unwrap_or_else(|e| panic!("{name} at {b}: {e}\n{text}"));
            assert_eq!(
                levels,
                levels_in_tree(&grammar, &sample.tree),
                "{name} at {b}:\n{text}"
            );
            blocks += text.lines().filter(|l| l.ends_with(':')).count();
            dedents += levels.windows(2).filter(|w| w[1] < w[0]).count();
        }
    }
    // Enough nesting that a wrong INDENT or DEDENT could not go unnoticed.
    assert!(
        blocks > 100 && dedents > 100,
        "{name}: {blocks} blocks, {dedents} dedents"
    );
}

#[test]
fn chocopy_programs_are_correctly_indented() {
    assert_indented("chocopy");
}

#[test]
fn starlark_programs_are_correctly_indented() {
    assert_indented("starlark");
}

/// Words, numbers and single punctuation characters.
fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[test]
fn simpl_inputs_are_modules() {
    let grammar = shipped("simpl");
    for b in ["3,3,3", "1,1,1"] {
        for text in generate(&grammar, bounds(b), INPUTS, 4) {
            // module [N] ID = begin ... end.
            let t = tokens(&text);
            let shape = t.len() >= 9
                && t[0] == "module"
                && t[1] == "["
                && t[2].chars().all(|c| c.is_ascii_digit())
                && !t[2].starts_with('0')
                && t[3] == "]"
                && t[4].len() == 1
                && t[4].chars().all(|c| c.is_ascii_lowercase())
                && t[5] == "="
                && t[6] == "begin"
                && t[t.len() - 2] == "end"
                && t[t.len() - 1] == ".";
            assert!(shape, "not a SIMPL module at {b}: {text}");
            // Every begin has its end, properly nested, the module's own last.
            let mut open = 0i32;
            for (i, token) in t.iter().enumerate().skip(6) {
                match token.as_str() {
                    "begin" => open += 1,
                    "end" => open -= 1,
                    _ => {}
                }
                let closed_early = open == 0 && i < t.len() - 2;
                assert!(open >= 0 && !closed_early, "unbalanced at {b}: {text}");
            }
            assert_eq!(open, 0, "unbalanced at {b}: {text}");
        }
    }
}

#[test]
fn the_worked_example_in_the_grammar_reference_is_a_clean_grammar() {
    let readme = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../grammars/README.md"),
    )
    .unwrap();
    let start = readme.find("```ebnf\n").expect("an ebnf example") + "```ebnf\n".len();
    let example = &readme[start..start + readme[start..].find("```").unwrap()];
    let grammar = Grammar::from_text("tiny", example).unwrap_or_else(|e| panic!("{e}"));
    let analysis = Analysis::new(&grammar);
    assert_eq!(analysis.check(&grammar), Ok(vec![]));
    // The page says NAME's first two values are a and b, and keywords are never names.
    let name = &grammar.pools[0];
    assert_eq!(name.values[..2], ["a", "b"]);
    assert!(
        !name
            .values
            .iter()
            .any(|v| ["let", "while", "print"].contains(&v.as_str()))
    );
    for text in generate(&grammar, bounds("2,2,3"), 200, 4) {
        check_indentation(&text, "  ").unwrap_or_else(|e| panic!("{e}\n{text}"));
    }
}
