//! The `auto` separator: where a space goes between two tokens.
//!
//! The aim is text a person would write (`f(a, b)`, `x.y`, `[1, 2]`, `{"k": 1}`) without ever
//! gluing two tokens into one: two word characters, or two operator characters, are always
//! kept apart, so `- -1` never becomes `--1` and `a b` never becomes `ab`.

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Keywords that introduce an expression rather than name a function, so `if (x)` keeps its
/// space while `len(x)` and `print(x)` do not. A `match` rather than a list: the layout pass
/// asks for every literal it writes, and this compiles to a switch on the length.
pub fn is_control_keyword(word: &str) -> bool {
    matches!(
        word,
        "if" | "elif"
            | "else"
            | "while"
            | "for"
            | "in"
            | "not"
            | "and"
            | "or"
            | "is"
            | "return"
            | "yield"
            | "await"
            | "lambda"
            | "assert"
            | "del"
            | "case"
            | "switch"
            | "catch"
            | "typeof"
            | "instanceof"
            | "of"
            | "new"
            | "delete"
            | "void"
            | "throw"
            | "then"
            | "do"
            | "when"
            | "match"
            | "with"
            | "except"
            | "raise"
    )
}

/// Whether a space belongs between a token ending in `prev` and one starting with `next`.
/// `after_keyword` says the previous token was a control keyword (see [`is_control_keyword`]),
/// which takes a space before a parenthesis where a name (`f(x)`) does not.
#[inline]
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

/// The classes of a token's last character that [`needs_space`] tells apart: whatever follows,
/// two characters of one class get the same answer. A generator that cannot see the previous
/// token's text (such as a grammar export) can carry this class instead.
pub const SPACING_CLASSES: u8 = 6;

/// The class of `prev`, the last character of a token, among [`SPACING_CLASSES`].
pub fn spacing_class(prev: char) -> u8 {
    match prev {
        '(' | '[' | '{' => 0,
        '.' => 1,
        c if c.is_ascii_digit() => 2,
        c if is_word(c) => 3,
        ')' | ']' | '}' | '"' | '\'' => 4,
        _ => 5,
    }
}

/// [`needs_space`] for a previous token whose last character has the class `class`.
pub fn needs_space_after_class(class: u8, next: char, after_keyword: bool) -> bool {
    const REPRESENTATIVES: [char; SPACING_CLASSES as usize] = ['(', '.', '0', 'a', ')', '+'];
    needs_space(REPRESENTATIVES[class as usize], next, after_keyword)
}

#[cfg(test)]
mod tests {
    use super::{
        SPACING_CLASSES, is_control_keyword, needs_space, needs_space_after_class, spacing_class,
    };

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

    #[test]
    fn the_spacing_class_of_the_previous_character_decides_like_the_character() {
        let chars: Vec<char> = (' '..='~').chain("éß€😀٣\u{a0}".chars()).collect();
        for &prev in &chars {
            let class = spacing_class(prev);
            assert!(class < SPACING_CLASSES);
            for &next in &chars {
                for keyword in [false, true] {
                    assert_eq!(
                        needs_space_after_class(class, next, keyword),
                        needs_space(prev, next, keyword),
                        "{prev:?} then {next:?}"
                    );
                }
            }
        }
    }
}
