//! The grammar analysis on small grammars whose answers were worked out by hand (each answer is
//! derived in a comment next to it).

use std::collections::BTreeSet;

use bonsai::analysis::{Analysis, Heights, NO_YIELD, UNREACHABLE_HEIGHT};
use bonsai::grammar::{Grammar, RuleId, Terminal};
use fixedbitset::FixedBitSet;

const INF: u32 = UNREACHABLE_HEIGHT;

fn grammar(text: &str) -> Grammar {
    Grammar::from_text("t", text).unwrap_or_else(|e| panic!("{e}"))
}

fn rule(g: &Grammar, name: &str) -> RuleId {
    let index = g.rules[..g.named_rules]
        .iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("no rule {name}"));
    RuleId(index as u32)
}

fn literal(g: &Grammar, text: &str) -> usize {
    g.terminals
        .iter()
        .position(|t| *t == Terminal::Literal(text.to_string()))
        .unwrap_or_else(|| panic!("no literal {text:?}"))
}

/// A terminal set as readable names; `$` is the boundary bit (end of input for first and
/// follow, beginning of input for last and precede).
fn names(g: &Grammar, set: &FixedBitSet) -> BTreeSet<String> {
    set.ones()
        .map(|t| match g.terminals.get(t) {
            None => "$".to_string(),
            Some(Terminal::Literal(s)) => s.clone(),
            Some(Terminal::Pool(p)) => g.pools[p.index()].name.clone(),
            Some(Terminal::Layout(token)) => token.name().to_string(),
            Some(Terminal::Class(_)) => "<class>".to_string(),
        })
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// A bracketed list of items, then an optional "!".
const LISTS: &str = r#"
    s    = list tail ;
    list = "[" item* "]" | ;
    item = "a" | "b" "," ;
    tail = "!"? ;
"#;

#[test]
fn nullable_rules() {
    let g = grammar(LISTS);
    let a = Analysis::new(&g);
    // list has an empty alternative, tail is an optional, so s = list tail is nullable too;
    // item always produces a terminal.
    for (name, nullable) in [("s", true), ("list", true), ("tail", true), ("item", false)] {
        assert_eq!(
            a.nullable.contains(rule(&g, name).index()),
            nullable,
            "{name}"
        );
    }
}

#[test]
fn layout_tokens_are_not_nullable() {
    // INDENT renders no text but a parser sees it.
    let g = grammar("s = INDENT t DEDENT ; t = \"x\"? ;");
    let a = Analysis::new(&g);
    assert!(!a.nullable.contains(rule(&g, "s").index()));
    assert!(a.nullable.contains(rule(&g, "t").index()));
    assert_eq!(names(&g, a.first(rule(&g, "s"))), set(&["INDENT"]));
}

#[test]
fn glue_is_transparent_to_nullable_first_and_follow() {
    // GLUE only tells the layout pass to omit a separator; "a" is still followed by "b".
    let g = grammar(r#"s = "a" GLUE t ; t = GLUE "b" | GLUE ;"#);
    let a = Analysis::new(&g);
    assert!(a.nullable.contains(rule(&g, "t").index()));
    assert_eq!(names(&g, a.first(rule(&g, "t"))), set(&["b"]));
    assert_eq!(names(&g, a.first(rule(&g, "s"))), set(&["a"]));
    let follow = |t: &str| names(&g, &a.forward.terminal_neighbour[literal(&g, t)]);
    assert_eq!(follow("a"), set(&["b", "$"]));
    let precede = |t: &str| names(&g, &a.backward.terminal_neighbour[literal(&g, t)]);
    assert_eq!(precede("b"), set(&["a"]));
    assert_eq!(names(&g, a.last(rule(&g, "s"))), set(&["a", "b"]));
}

#[test]
fn first_sets_look_through_nullable_prefixes() {
    let g = grammar(LISTS);
    let a = Analysis::new(&g);
    assert_eq!(names(&g, a.first(rule(&g, "item"))), set(&["a", "b"]));
    assert_eq!(names(&g, a.first(rule(&g, "list"))), set(&["["]));
    assert_eq!(names(&g, a.first(rule(&g, "tail"))), set(&["!"]));
    // list is nullable, so s can also begin with what tail begins with.
    assert_eq!(names(&g, a.first(rule(&g, "s"))), set(&["[", "!"]));
}

#[test]
fn follow_sets_cross_repetitions_and_reach_the_end_of_input() {
    let g = grammar(LISTS);
    let a = Analysis::new(&g);
    // The start rule is followed by the end of input only.
    assert_eq!(names(&g, a.follow(rule(&g, "s"))), set(&["$"]));
    // item* is followed by "]", and an item by the next item.
    assert_eq!(names(&g, a.follow(rule(&g, "item"))), set(&["a", "b", "]"]));
    // list is followed by tail, which may be empty, so also by whatever follows s.
    assert_eq!(names(&g, a.follow(rule(&g, "list"))), set(&["!", "$"]));
    assert_eq!(names(&g, a.follow(rule(&g, "tail"))), set(&["$"]));
    // Terminals: "[" is followed by a first item or by "]"; "," ends an item.
    let follow = |t: &str| names(&g, &a.forward.terminal_neighbour[literal(&g, t)]);
    assert_eq!(follow("["), set(&["a", "b", "]"]));
    assert_eq!(follow(","), set(&["a", "b", "]"]));
    assert_eq!(follow("b"), set(&[","]));
    assert_eq!(follow("]"), set(&["!", "$"]));
    assert_eq!(follow("!"), set(&["$"]));
}

#[test]
fn follow_of_a_separated_list_at_the_end_of_a_rule() {
    // args = "a" ( "," "a" )* ; inside call = "f" "(" args ")" ;
    let g = grammar(r#"call = "f" "(" args ")" ; args = "a" ( "," "a" )* ;"#);
    let a = Analysis::new(&g);
    let follow = |t: &str| names(&g, &a.forward.terminal_neighbour[literal(&g, t)]);
    assert_eq!(follow("a"), set(&[",", ")"]));
    assert_eq!(follow(","), set(&["a"]));
    assert_eq!(follow(")"), set(&["$"]));
    assert_eq!(names(&g, a.follow(rule(&g, "args"))), set(&[")"]));
}

#[test]
fn last_sets_are_first_sets_read_backwards() {
    let g = grammar(LISTS);
    let a = Analysis::new(&g);
    assert_eq!(names(&g, a.last(rule(&g, "item"))), set(&["a", ","]));
    assert_eq!(names(&g, a.last(rule(&g, "list"))), set(&["]"]));
    // tail is nullable, so s can also end with what list ends with.
    assert_eq!(names(&g, a.last(rule(&g, "s"))), set(&["!", "]"]));
}

#[test]
fn precede_sets_are_follow_sets_read_backwards() {
    let g = grammar(LISTS);
    let a = Analysis::new(&g);
    // `$` is the beginning of input here.
    assert_eq!(names(&g, a.precede(rule(&g, "s"))), set(&["$"]));
    assert_eq!(names(&g, a.precede(rule(&g, "list"))), set(&["$"]));
    // An item comes after "[" or after the previous item.
    assert_eq!(
        names(&g, a.precede(rule(&g, "item"))),
        set(&["[", "a", ","])
    );
    // list may be empty, so tail may start the input.
    assert_eq!(names(&g, a.precede(rule(&g, "tail"))), set(&["]", "$"]));
    let precede = |t: &str| names(&g, &a.backward.terminal_neighbour[literal(&g, t)]);
    assert_eq!(precede("]"), set(&["[", "a", ","]));
    assert_eq!(precede("!"), set(&["]", "$"]));
    assert_eq!(precede(","), set(&["b"]));
}

/// Expressions with parentheses, a right-recursive sum and two atoms of different lengths.
const EXPRESSIONS: &str = r#"
    s = "(" s ")" | e ;
    e = t "+" e | t ;
    t = "x" | "long" ;
"#;

#[test]
fn minimal_heights_of_rules_and_alternatives() {
    let g = grammar(EXPRESSIONS);
    let h = Analysis::new(&g).heights;
    let (s, e, t) = (rule(&g, "s"), rule(&g, "e"), rule(&g, "t"));
    // t: a terminal under the rule node: height 1.
    assert_eq!(h.rule[t.index()], 1);
    assert_eq!(h.alternative[t.index()], [1, 1]);
    // e: alternative 1 is t, 1 + 1 = 2; alternative 0 needs e itself, 1 + max(1, 2) = 3.
    assert_eq!(h.rule[e.index()], 2);
    assert_eq!(h.alternative[e.index()], [3, 2]);
    // s: alternative 1 is e, 1 + 2 = 3; alternative 0 needs s, 1 + 3 = 4.
    assert_eq!(h.rule[s.index()], 3);
    assert_eq!(h.alternative[s.index()], [4, 3]);
}

#[test]
fn heights_of_repetitions_and_optionals() {
    // A repetition with a minimum needs its body (group rules count as a level); an
    // optional or a `*` can be left empty.
    let g = grammar(
        r#"
        plus  = v+ ;
        star  = v* ;
        opt   = v? "k" ;
        twice = v{2} ;
        v     = "k" ;
        "#,
    );
    let h = Analysis::new(&g).heights;
    let height = |name: &str| h.rule[rule(&g, name).index()];
    assert_eq!(height("v"), 1);
    assert_eq!(height("plus"), 2);
    assert_eq!(height("star"), 1);
    assert_eq!(height("opt"), 1);
    assert_eq!(height("twice"), 2);
}

#[test]
fn forbidden_rules_get_alternative_heights_but_no_rule_height() {
    let g = grammar(EXPRESSIONS);
    let (s, e, t) = (rule(&g, "s"), rule(&g, "e"), rule(&g, "t"));
    let mut forbidden = FixedBitSet::with_capacity(g.rules.len());
    forbidden.insert(e.index());
    let h = Heights::compute(&g, &forbidden);
    // e may not occur below, so its recursive alternative is closed; its other one is not.
    assert_eq!(h.rule[e.index()], INF);
    assert_eq!(h.alternative[e.index()], [INF, 2]);
    assert!(!h.is_productive(e.index()));
    // s needs e (or s, which needs e): nothing is left.
    assert_eq!(h.rule[s.index()], INF);
    assert_eq!(h.alternative[s.index()], [INF, INF]);
    assert_eq!(h.rule[t.index()], 1);

    let mut forbidden = FixedBitSet::with_capacity(g.rules.len());
    forbidden.insert(s.index());
    let h = Heights::compute(&g, &forbidden);
    // The s being expanded may still close through e, but may not nest another s.
    assert_eq!(h.rule[s.index()], INF);
    assert_eq!(h.alternative[s.index()], [INF, 3]);
    assert_eq!(h.rule[e.index()], 2);
    assert_eq!(
        Heights::compute(&g, &FixedBitSet::with_capacity(g.rules.len())),
        Heights::unrestricted(&g)
    );
}

#[test]
fn minimal_yields_of_rules_and_alternatives() {
    let g = grammar(EXPRESSIONS);
    let y = Analysis::new(&g).min_yield;
    let (s, e, t) = (rule(&g, "s"), rule(&g, "e"), rule(&g, "t"));
    // t: "x" (1) or "long" (4).
    assert_eq!(y.alternative[t.index()], [1, 4]);
    assert_eq!(
        (y.rule[t.index()], y.best_alternative[t.index()]),
        (1, Some(0))
    );
    // e: t "+" e is 1 + 1 + 1 = 3; t is 1.
    assert_eq!(y.alternative[e.index()], [3, 1]);
    assert_eq!(
        (y.rule[e.index()], y.best_alternative[e.index()]),
        (1, Some(1))
    );
    // s: "(" s ")" is 1 + 1 + 1 = 3; e is 1.
    assert_eq!(y.alternative[s.index()], [3, 1]);
    assert_eq!(
        (y.rule[s.index()], y.best_alternative[s.index()]),
        (1, Some(1))
    );
}

#[test]
fn minimal_yields_count_pools_repetitions_and_layout() {
    let g = grammar(
        r#"
        s    = ID "=" NUM{2} NEWLINE INDENT "pass" DEDENT ;
        NUM  = /[0-9]/ ;
        %pool ID = "long" | "id" ;
        "#,
    );
    let y = Analysis::new(&g).min_yield;
    // ID: shortest value "id" (2); "=" 1; NUM{2}: 2; NEWLINE 1; INDENT, DEDENT 0; "pass" 4.
    assert_eq!(y.rule[rule(&g, "s").index()], 2 + 1 + 2 + 1 + 4);
    assert_eq!(y.rule[rule(&g, "NUM").index()], 1);
}

#[test]
fn the_best_alternative_is_the_first_of_equally_short_ones() {
    // Both alternatives of r yield two characters; the first must win even though the
    // second is known to be short before q has been computed.
    let g = grammar(r#"r = q | "ab" ; q = "a" "b" ;"#);
    let y = Analysis::new(&g).min_yield;
    let r = rule(&g, "r");
    assert_eq!(y.alternative[r.index()], [2, 2]);
    assert_eq!(y.best_alternative[r.index()], Some(0));
}

#[test]
fn unproductive_rules_have_no_height_and_no_yield() {
    let g = grammar(r#"s = "x" | loop ; loop = "(" loop ")" ;"#);
    let a = Analysis::new(&g);
    let l = rule(&g, "loop");
    assert_eq!(a.heights.rule[l.index()], INF);
    assert_eq!(a.min_yield.rule[l.index()], NO_YIELD);
    assert_eq!(a.min_yield.best_alternative[l.index()], None);
    let s = rule(&g, "s");
    assert_eq!(a.heights.alternative[s.index()], [1, INF]);
    assert_eq!(a.min_yield.alternative[s.index()], [1, NO_YIELD]);
}

/// A start rule with a dead alternative, an unreachable rule, and pools used and unused.
const DEAD_PARTS: &str = "start = a | b ;
a = \"x\" R ;
b = b \"y\" ;
c = \"z\" Q ;
d = d ;
%pool R = \"r\" ;
%pool P = \"p\" ;
%pool Q = \"q\" ;
";

#[test]
fn reachability_of_rules_and_pools() {
    let g = grammar(DEAD_PARTS);
    let a = Analysis::new(&g);
    let reachable: BTreeSet<&str> = a
        .reachability
        .rules
        .ones()
        .filter(|&r| r < g.named_rules)
        .map(|r| g.rules[r].name.as_str())
        .collect();
    assert_eq!(reachable, BTreeSet::from(["start", "a", "b"]));
    let pools: BTreeSet<&str> = a
        .reachability
        .pools
        .ones()
        .map(|p| g.pools[p].name.as_str())
        .collect();
    // Q is only used by the unreachable rule c.
    assert_eq!(pools, BTreeSet::from(["R"]));
}

#[test]
fn dead_parts_are_warnings_with_their_positions() {
    let g = grammar(DEAD_PARTS);
    let warnings: Vec<String> = Analysis::new(&g)
        .check(&g)
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    // d is both unreachable and unproductive: being unreachable is what matters.
    assert_eq!(
        warnings,
        [
            "t.ebnf:3:1: warning: rule 'b' cannot derive any word and will never be chosen",
            "t.ebnf:4:1: warning: rule 'c' is unreachable from the start rule 'start'",
            "t.ebnf:5:1: warning: rule 'd' is unreachable from the start rule 'start'",
            "t.ebnf:7:7: warning: pool 'P' is never used",
            "t.ebnf:8:7: warning: pool 'Q' is never used",
        ]
    );
}

#[test]
fn a_clean_grammar_has_no_warnings() {
    let g = grammar(EXPRESSIONS);
    assert_eq!(Analysis::new(&g).check(&g), Ok(vec![]));
}

#[test]
fn an_unproductive_start_is_an_error_naming_the_reachable_culprits() {
    // u is unproductive but unreachable; it is not blamed.
    let g = grammar("s = \"(\" s \")\" | t ;\nt = \"[\" s \"]\" ;\nu = u ;\n");
    let errors = Analysis::new(&g).check(&g).unwrap_err();
    assert_eq!(
        errors.to_string(),
        "t.ebnf:1:1: error: the grammar cannot derive any word: the start rule 's' never terminates (unproductive rules: s, t)"
    );
}
