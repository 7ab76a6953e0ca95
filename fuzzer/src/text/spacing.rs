//! The `auto` separator: where a space goes between two tokens.
//!
//! The aim is text a person would write (`f(a, b)`, `x.y`, `[1, 2]`, `{"k": 1}`) without ever
//! gluing two tokens into one: two word characters, or two operator characters, are always
//! kept apart, so `- -1` never becomes `--1` and `a b` never becomes `ab`.

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Keywords that introduce an expression rather than name a function, so `if (x)` keeps its
/// space while `len(x)` and `print(x)` do not.
const CONTROL_KEYWORDS: &[&str] = &[
    "if",
    "elif",
    "else",
    "while",
    "for",
    "in",
    "not",
    "and",
    "or",
    "is",
    "return",
    "yield",
    "await",
    "lambda",
    "assert",
    "del",
    "case",
    "switch",
    "catch",
    "typeof",
    "instanceof",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "then",
    "do",
    "when",
    "match",
    "with",
    "except",
    "raise",
];

pub fn is_control_keyword(word: &str) -> bool {
    CONTROL_KEYWORDS.contains(&word)
}

/// Whether a space belongs between a token ending in `prev` and one starting with `next`.
/// `after_keyword` says the previous token was a control keyword (see [`is_control_keyword`]),
/// which takes a space before a parenthesis where a name (`f(x)`) does not.
pub fn needs_space(prev: char, next: char, after_keyword: bool) -> bool {
    if matches!(next, ')' | ']' | '}' | ',' | ';' | ':') {
        return false;
    }
    if matches!(prev, '(' | '[' | '{') {
        return false;
    }
    if next == '.' {
        // `1 .x` must not become the float `1.`
        return prev.is_ascii_digit() || prev == '.';
    }
    if prev == '.' {
        return next.is_ascii_digit() || next == '.';
    }
    if matches!(next, '(' | '[') {
        // calls and subscripts: `f(x)`, `a[1]`, `g()(x)`
        return after_keyword || !(is_word(prev) || matches!(prev, ')' | ']' | '}' | '"' | '\''));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::{is_control_keyword, needs_space};

    fn join(tokens: &[&str]) -> String {
        let mut out = String::new();
        let mut keyword = false;
        for t in tokens {
            if let (Some(p), Some(n)) = (out.chars().last(), t.chars().next())
                && needs_space(p, n, keyword)
            {
                out.push(' ');
            }
            out.push_str(t);
            keyword = is_control_keyword(t);
        }
        out
    }

    #[test]
    fn reads_like_hand_written_code() {
        assert_eq!(join(&["f", "(", "a", ",", "b", ")"]), "f(a, b)");
        assert_eq!(join(&["x", "=", "[", "1", ",", "2", "]"]), "x = [1, 2]");
        assert_eq!(join(&["{", "\"k\"", ":", "1", "}"]), "{\"k\": 1}");
        assert_eq!(join(&["a", ".", "b"]), "a.b");
        assert_eq!(
            join(&["def", "f", "(", "a", ":", "int", ")", "->", "int", ":"]),
            "def f(a: int) -> int:"
        );
    }

    #[test]
    fn never_glues_tokens_together() {
        assert_eq!(join(&["a", "-", "-", "1"]), "a - - 1");
        assert_eq!(join(&["x", "=", "=", "y"]), "x = = y");
        assert_eq!(join(&["1", ".", "x"]), "1 .x");
        assert_eq!(join(&["not", "x"]), "not x");
    }

    #[test]
    fn keywords_keep_their_space_before_parentheses() {
        assert_eq!(join(&["if", "(", "c", ")"]), "if (c)");
        assert_eq!(join(&["while", "(", "(", "c", ")", ")"]), "while ((c))");
        assert_eq!(join(&["f", "(", "c", ")"]), "f(c)");
        assert_eq!(join(&["len", "(", "c", ")"]), "len(c)");
    }
}
