//! Which literals are keywords: words that are whole tokens of the language, which a pool
//! value must never be and a seed's identifier can never be read as.
//!
//! A literal is a whole token where a non-lexical rule uses it (`stmt = "if" ...`) and where it
//! alone is an alternative of a named lexical rule (ANTLR's `IF : 'if' ;`). A literal that is
//! only a piece of a longer lexical token (the `x` of an escape `"\\" "x" HEX HEX`, the `0x` of
//! a number) is not: `x` stays a fine identifier.

use std::collections::HashSet;

use super::{Rule, Symbol, Terminal};

pub(crate) fn keywords<'g>(
    rules: &[Rule],
    named_rules: usize,
    terminals: &'g [Terminal],
) -> HashSet<&'g str> {
    let literal = |symbol: &Symbol| match symbol {
        Symbol::Terminal(t) => match &terminals[t.index()] {
            Terminal::Literal(text) => Some(text.as_str()),
            _ => None,
        },
        _ => None,
    };
    let mut words = HashSet::new();
    for (r, rule) in rules.iter().enumerate() {
        for alternative in &rule.alternatives {
            if !rule.lexical {
                words.extend(alternative.symbols.iter().filter_map(literal));
            } else if r < named_rules
                && let [only] = alternative.symbols.as_slice()
                && let Some(word) = literal(only)
            {
                words.insert(word);
            }
        }
    }
    words
}

/// The keywords that `reserved` (the grammar's `%reserved` list, if any) keeps: all of them
/// when the grammar does not say.
pub(crate) fn reserved<'g>(
    keywords: HashSet<&'g str>,
    reserved: Option<&[String]>,
) -> HashSet<&'g str> {
    match reserved {
        Some(words) => keywords
            .into_iter()
            .filter(|k| words.iter().any(|w| w == k))
            .collect(),
        None => keywords,
    }
}

#[cfg(test)]
mod tests {
    use crate::grammar::Grammar;

    /// Issue 13: `x` of an escape made `x` a keyword, so no pool had it and a seed declaring a
    /// variable `x` was refused while `y` was accepted (the parse is tested in
    /// tests/parse_cases.rs).
    #[test]
    fn a_literal_inside_a_longer_token_is_no_keyword() {
        let grammar = Grammar::from_text(
            "escapes",
            r#"
            stmt = "let" NAME "=" STRING ";" | IF ;
            IF = "if" ;
            STRING = "\"" ( /[a-w]/ | "\\" "x" /[0-9]/ )* "\"" ;
            %pool NAME = /[a-z]/ ;
            "#,
        )
        .unwrap();
        let keywords = grammar.keywords();
        for word in ["let", "=", ";", "if"] {
            assert!(keywords.contains(word), "{word}");
        }
        assert!(!keywords.contains("x"));
        assert!(!keywords.contains("\\"));
        assert!(grammar.pools[0].values.iter().any(|v| v == "x"));
        assert!(!grammar.pools[0].values.iter().any(|v| v == "if"));
    }

    /// With `%reserved`, only the reserved keywords stay out of a pool: Python's `_` (the
    /// match statement's wildcard) is a name too, while `if` never is.
    #[test]
    fn only_reserved_keywords_stay_out_of_pools() {
        let text = |reserved: &str| {
            format!(
                r#"
                stmt = "if" NAME ":" | "case" "_" ":" | NAME "=" NAME ;
                %pool NAME = /[_a-z]/ ;
                {reserved}
                "#
            )
        };
        let soft = Grammar::from_text("soft", &text(r#"%reserved "if" ;"#)).unwrap();
        assert_eq!(
            soft.reserved_keywords().into_iter().collect::<Vec<_>>(),
            ["if"]
        );
        assert!(soft.pools[0].values.iter().any(|v| v == "_"));
        let all = Grammar::from_text("all", &text("")).unwrap();
        assert!(all.reserved_keywords().contains("_"));
        assert!(!all.pools[0].values.iter().any(|v| v == "_"));
    }
}
