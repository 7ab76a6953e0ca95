//! JSON grammar files read with the position of every value, so that a wrong shape (a number
//! where a list of expansions belongs, an unknown tree-sitter node type) is reported at its
//! line and column, not just "invalid grammar".

use jsonc_parser::ast::{Object, StringLit, Value};
use jsonc_parser::common::{Range, Ranged};
use jsonc_parser::{CollectOptions, ParseOptions};

use crate::diagnostic::{Diagnostic, SourceFile, Span};

/// Parses strict JSON: grammar files are machine-written, so comments, trailing commas and
/// the other JSON5 liberties are more likely a corrupt file than an intent.
pub fn parse(source: &SourceFile) -> Result<Value<'_>, Diagnostic> {
    let strict = ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let result = jsonc_parser::parse_to_ast(&source.text, &CollectOptions::default(), &strict)
        .map_err(|e| source.error(span(e.range()), format!("invalid JSON: {}", e.kind())))?;
    result
        .value
        .ok_or_else(|| source.error(Span::new(0, 0), "the file holds no JSON value"))
}

pub fn span(range: Range) -> Span {
    Span::new(range.start, range.end)
}

pub fn span_of(value: &impl Ranged) -> Span {
    span(value.range())
}

/// What a value is, for messages such as "expected a string, found an array".
pub fn describe(value: &Value) -> &'static str {
    match value {
        Value::StringLit(_) => "a string",
        Value::NumberLit(_) => "a number",
        Value::BooleanLit(_) => "a boolean",
        Value::Object(_) => "an object",
        Value::Array(_) => "an array",
        Value::NullKeyword(_) => "null",
    }
}

pub fn expect_object<'v, 'a>(
    source: &SourceFile,
    value: &'v Value<'a>,
    what: &str,
) -> Result<&'v Object<'a>, Diagnostic> {
    value.as_object().ok_or_else(|| {
        source.error(
            span_of(value),
            format!("expected {what} (an object), found {}", describe(value)),
        )
    })
}

pub fn expect_string<'v, 'a>(
    source: &SourceFile,
    value: &'v Value<'a>,
    what: &str,
) -> Result<&'v StringLit<'a>, Diagnostic> {
    value.as_string_lit().ok_or_else(|| {
        source.error(
            span_of(value),
            format!("expected {what} (a string), found {}", describe(value)),
        )
    })
}

/// The value of a required property, or an error at the object that lacks it.
pub fn required<'v, 'a>(
    source: &SourceFile,
    object: &'v Object<'a>,
    key: &str,
    what: &str,
) -> Result<&'v Value<'a>, Diagnostic> {
    object
        .get(key)
        .map(|p| &p.value)
        .ok_or_else(|| source.error(span_of(object), format!("{what} has no \"{key}\" property")))
}

/// The file offset of byte `at` of a string's decoded value, so that a fault found inside the
/// decoded text (an undefined `<name>`, a bad regex) points at the right column even when the
/// literal holds escapes such as `\\d` or `\"`.
pub fn offset_in_string(source: &SourceFile, literal: &StringLit, at: usize) -> usize {
    let range = literal.range;
    let raw = &source.text[range.start + 1..range.end.saturating_sub(1).max(range.start + 1)];
    let mut decoded = 0;
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if decoded >= at {
            return range.start + 1 + i;
        }
        if c != '\\' {
            decoded += c.len_utf8();
            continue;
        }
        match chars.next() {
            Some((_, 'u')) => {
                let hex: String = (0..4)
                    .filter_map(|_| chars.next().map(|(_, c)| c))
                    .collect();
                let unit = u32::from_str_radix(&hex, 16).unwrap_or(0);
                if (0xD800..0xDC00).contains(&unit) {
                    // A surrogate pair: `\uD83D\uDE00` decodes to one four-byte character.
                    for _ in 0..6 {
                        chars.next();
                    }
                    decoded += 4;
                } else {
                    decoded += char::from_u32(unit).map_or(3, char::len_utf8);
                }
            }
            Some(_) => decoded += 1,
            None => {}
        }
    }
    range.end.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_inside_strings_skip_escapes() {
        let text = r#"{"k": "a\\d\"<x>\u00e9z"}"#;
        let source = SourceFile::new("t.json", text);
        let value = parse(&source).unwrap();
        let lit = value.as_object().unwrap().get_string("k").unwrap().clone();
        assert_eq!(lit.value, "a\\d\"<x>éz");
        let decoded = lit.value.to_string();
        for needle in ["<x>", "z", "d"] {
            let at = decoded.find(needle).unwrap();
            let offset = offset_in_string(&source, &lit, at);
            assert!(
                text[offset..].starts_with(needle),
                "{needle}: {}",
                &text[offset..]
            );
        }
    }

    #[test]
    fn syntax_errors_are_located() {
        let source = SourceFile::new("t.json", "{\n  \"a\": [1,\n}");
        let err = parse(&source).unwrap_err();
        let loc = err.location.unwrap();
        assert_eq!((loc.line, loc.column), (3, 1), "{}", err.message);
    }
}
