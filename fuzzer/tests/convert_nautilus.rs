//! `convert::nautilus_rules` checked against LibAFL's Nautilus itself: the rules load into a
//! `NautilusContext` and Nautilus derives exactly the texts Bonsai renders. These tests live in
//! the engine's crate, not beside the converter in `bonsai-grammar`, because only the engine may
//! depend on LibAFL (a dev-dependency with its `nautilus` feature here).

use std::collections::HashSet;
use std::path::PathBuf;

use bonsai::convert::{MAX_INDENT_LEVEL, nautilus_rules};
use bonsai::grammar::Grammar;
use bonsai::sampler::{Bounds, Sample, Sampler};
use bonsai::text::render;
use libafl::common::nautilus::grammartec::tree::{Tree, TreeLike};
use libafl::generators::nautilus::NautilusContext;
use libafl_bolts::rands::StdRand;

fn shipped(name: &str) -> Grammar {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../grammars")
        .join(format!("{name}.ebnf"));
    Grammar::from_file(&path).unwrap()
}

fn bounds(m: u32) -> Bounds {
    Bounds::new(m, 3, 3).unwrap()
}

/// Draws `count` texts from Nautilus on `rules`.
fn nautilus_texts(rules: &[Vec<String>], tree_size: usize, count: usize) -> Vec<String> {
    let context = NautilusContext::new(tree_size, rules);
    let ctx = &context.ctx;
    let start = ctx.nt_id("START");
    let mut rng = StdRand::with_seed(7);
    let mut tree = Tree::from_rule_vec(vec![], ctx);
    (0..count)
        .map(|_| {
            tree.generate_from_nt(&mut rng, start, ctx.get_random_len_for_nt(&start), ctx);
            String::from_utf8(tree.unparse_to_vec(ctx)).expect("formats are UTF-8")
        })
        .collect()
}

#[test]
fn a_small_grammar_converts_to_the_expected_rules() {
    let grammar = Grammar::from_text(
        "small",
        r#"
        %layout none;
        list = "[" ( item ( "," item )* )? "]" ;
        item = "{" KEY "}" | ESC ;
        ESC  = "\\" /[ab]/ ;
        %pool KEY = "x" | "y" | "z" ;
        "#,
    )
    .unwrap();
    let rules = nautilus_rules(&grammar, bounds(2)).unwrap();
    let got: Vec<(&str, &str)> = rules
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    // Groups are named after their owner and id, lists recurse to the right, braces are
    // escaped, and the backslash before a reference goes through its own rule.
    let expected = [
        ("List", "[{List_4_opt}]"),
        ("List_4_opt", ""),
        ("List_4_opt", "{List_4}"),
        ("List_4", "{Item}{List_3_list}"),
        ("Item", r"\{{KEY}\}"),
        ("Item", "{ESC}"),
        ("List_3_list", ""),
        ("List_3_list", "{List_3}{List_3_list}"),
        ("KEY", "x"),
        ("KEY", "y"),
        ("ESC", "{Backslash}{Class7}"),
        ("List_3", ",{Item}"),
        ("Class7", "a"),
        ("Class7", "b"),
        ("Backslash", r"\"),
    ];
    assert_eq!(got, expected);
    let texts: HashSet<String> = nautilus_texts(&rules, 30, 2000).into_iter().collect();
    for text in ["[]", "[{x}]", r"[\b]", r"[{y},\a]"] {
        assert!(texts.contains(text), "{text} never generated");
    }
    assert!(
        texts.iter().all(|t| !t.contains('z')),
        "m = 2 allows only x and y"
    );
}

/// A finite language with indentation, glue, lexical rules, a bounded repetition, an
/// optional, a pool and a class, small enough that both generators produce all of it.
const INDENTED: &str = r#"
    %indent "  ";
    program = "if" KEY ":" NEWLINE INDENT stmt{1,2} DEDENT "end" NEWLINE ;
    stmt    = "pass" NEWLINE | "loop" ":" NEWLINE INDENT leaf DEDENT | leaf ;
    leaf    = NAME? GLUE "x" NEWLINE | CALL NEWLINE ;
    NAME    = /[ab]/ ;
    CALL    = "@" NAME "(" ")" ;
    %pool KEY = "p" | "q" | "r" ;
"#;

fn bonsai_texts(grammar: &Grammar, count: usize) -> HashSet<String> {
    let mut sampler = Sampler::new(grammar, Bounds::new(2, 2, 3).unwrap()).unwrap();
    let mut rng = StdRand::with_seed(7);
    let mut sample = Sample::default();
    (0..count)
        .map(|_| {
            sampler.generate(&mut rng, &mut sample);
            render(grammar, &sample.tree)
        })
        .collect()
}

fn assert_same(nautilus: &HashSet<String>, bonsai: &HashSet<String>) {
    let only_nautilus: Vec<&String> = nautilus.difference(bonsai).take(5).collect();
    let only_bonsai: Vec<&String> = bonsai.difference(nautilus).take(5).collect();
    assert!(
        only_nautilus.is_empty() && only_bonsai.is_empty(),
        "only Nautilus: {only_nautilus:?}\nonly Bonsai: {only_bonsai:?}"
    );
}

#[test]
fn nautilus_derives_exactly_what_bonsai_renders_under_every_layout() {
    for layout in [r#"" ""#, "auto", "none", r#"" , ""#] {
        let text = format!("%layout {layout};\n{INDENTED}");
        let grammar = Grammar::from_text("indented", &text).unwrap();
        let rules = nautilus_rules(&grammar, bounds(2)).unwrap();
        let nautilus: HashSet<String> = nautilus_texts(&rules, 40, 30_000).into_iter().collect();
        let bonsai = bonsai_texts(&grammar, 30_000);
        // 2 keys, 11 statements, one or two of them.
        assert_eq!(bonsai.len(), 2 * (11 + 11 * 11), "layout {layout}");
        assert_same(&nautilus, &bonsai);
    }
    let grammar = Grammar::from_text("indented", &format!("%layout auto;\n{INDENTED}")).unwrap();
    let bonsai = bonsai_texts(&grammar, 30_000);
    assert!(bonsai.contains("if p:\n  loop:\n    @a()\n  x\nend\n"));
}

#[test]
fn every_shipped_grammar_converts_and_nautilus_generates_from_it() {
    for name in ["expr", "cgi", "url", "json", "simpl", "chocopy", "starlark"] {
        let rules = nautilus_rules(&shipped(name), bounds(3)).unwrap();
        let texts = nautilus_texts(&rules, 100, 200);
        let distinct: HashSet<&String> = texts.iter().collect();
        assert!(
            distinct.len() > 20,
            "{name}: only {} distinct texts",
            distinct.len()
        );
    }
}

#[test]
fn nautilus_texts_of_the_json_grammar_are_json() {
    let rules = nautilus_rules(&shipped("json"), bounds(3)).unwrap();
    for text in nautilus_texts(&rules, 200, 2000) {
        let parsed = serde_json::from_str::<serde::de::IgnoredAny>(&text);
        assert!(parsed.is_ok(), "{text:?}: {parsed:?}");
    }
}

#[test]
fn indentation_deeper_than_tracked_is_never_generated() {
    let grammar = Grammar::from_text(
        "deep",
        r#"%layout " "; block = "b" NEWLINE INDENT block DEDENT | "x" NEWLINE ;"#,
    )
    .unwrap();
    let rules = nautilus_rules(&grammar, bounds(1)).unwrap();
    let texts = nautilus_texts(&rules, 200, 500);
    let deepest = texts
        .iter()
        .flat_map(|t| t.lines())
        .map(|line| (line.len() - line.trim_start().len()) / 4)
        .max();
    assert_eq!(deepest, Some(usize::from(MAX_INDENT_LEVEL)));
}
