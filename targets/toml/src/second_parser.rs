//! The differential oracle: basic-toml, a TOML parser written apart from toml_edit (it
//! descends from the `toml` crate's 0.5 parser, before `toml` moved onto toml_edit's), must
//! agree with toml_edit on whether a document is TOML and, where both read it, on its data.
//!
//! Three differences are the implementations' choices and not bugs, and the oracle allows
//! them:
//! - toml_edit refuses arrays and inline tables nested deeper than 80, and dotted keys of 80
//!   parts (its recursion guard; its `unbounded` feature lifts it): such an input is not
//!   compared.
//! - basic-toml reads no date or time values (its documentation says so): an input whose
//!   data toml_edit reads with one is not compared.
//! - toml_edit 0.25 reads TOML 1.1, basic-toml TOML 1.0. TOML 1.1 added `\e` and `\xHH`
//!   escapes, line breaks and a trailing comma inside inline tables, and times without
//!   seconds. An input toml_edit reads with one of these is refused by basic-toml; the class
//!   of such a violation names basic-toml's error, so these land in their own buckets
//!   (listed in docs as allowed), apart from any other refusal.

use std::collections::BTreeMap;
use std::fmt;

use bonsai::target::{Oracle, Verdict, Violation};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use toml_edit::{DocumentMut, Item, Table, Value};

/// A document's data as both parsers can give it: tables sorted by key (basic-toml hands its
/// tables to serde in no fixed order), floats by their bits (a NaN equals itself, -0.0 differs
/// from 0.0).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Data {
    String(String),
    Integer(i64),
    Float(u64),
    Boolean(bool),
    Array(Vec<Data>),
    Table(BTreeMap<String, Data>),
}

/// toml_edit's refusals past its nesting limit (80 nested arrays or inline tables, or dotted
/// keys of 80 parts; the `unbounded` feature lifts it, and cargo and this target keep it):
/// basic-toml has none, so it reads deeper documents, and that is the limit's doing, not a
/// disagreement about TOML.
const TOML_EDIT_NESTING_LIMITS: [&str; 2] = ["recursion limit", "max recursion depth met"];

/// What basic-toml makes of `source`: its data, or its error without the position.
pub(crate) fn basic_toml(source: &str) -> Result<Data, String> {
    basic_toml::from_str::<Data>(source).map_err(|e| e.to_string())
}

/// What toml_edit made of an input, as far as the comparison needs it.
pub(crate) enum Reading {
    Refused,
    Read(Data),
    /// Accepted with a date or time in its data, which basic-toml does not read.
    NotComparable,
}

impl Reading {
    pub(crate) fn of(document: Option<&DocumentMut>) -> Self {
        match document.map(|document| table_data(document.as_table())) {
            None => Reading::Refused,
            Some(Some(data)) => Reading::Read(data),
            Some(None) => Reading::NotComparable,
        }
    }
}

/// Checks toml_edit's reading of `source` (its verdict, and its data where it accepted)
/// against basic-toml's.
pub(crate) fn compare(source: &str, verdict: &Verdict, ours: Reading) -> Option<Violation> {
    let ours = match ours {
        _ if matches!(verdict, Verdict::Reject) => return None,
        Reading::NotComparable => return None,
        Reading::Refused => None,
        Reading::Read(data) => Some(data),
    };
    let theirs = basic_toml(source);
    match (ours, theirs) {
        (None, Err(_)) => None,
        (Some(ours), Ok(theirs)) if ours == theirs => None,
        (Some(ours), Ok(theirs)) => Some(Violation {
            oracle: Oracle::Differential,
            class: "toml_edit and basic-toml read different data".to_string(),
            message: format!(
                "toml_edit and basic-toml both accept but read different data: {}",
                first_difference(&format!("{ours:?}"), &format!("{theirs:?}"))
            ),
            texts: vec![
                ("toml_edit's data".to_string(), format!("{ours:?}")),
                ("basic-toml's data".to_string(), format!("{theirs:?}")),
            ],
        }),
        (Some(_), Err(error)) => Some(Violation {
            oracle: Oracle::Differential,
            class: format!(
                "only toml_edit accepts; basic-toml refuses: {}",
                error_class(&error)
            ),
            message: format!("toml_edit accepts the input, basic-toml refuses it: {error}"),
            texts: vec![("basic-toml says".to_string(), error)],
        }),
        (None, Ok(_)) => {
            let why = match verdict {
                Verdict::Invalid(why) => why.clone(),
                _ => String::new(),
            };
            if TOML_EDIT_NESTING_LIMITS
                .iter()
                .any(|limit| why.contains(limit))
            {
                return None;
            }
            Some(Violation {
                oracle: Oracle::Differential,
                class: "only basic-toml accepts; toml_edit refuses".to_string(),
                message: format!("basic-toml accepts the input, toml_edit refuses it: {why}"),
                texts: vec![("toml_edit says".to_string(), why)],
            })
        }
    }
}

/// basic-toml's message as a class: without the position and without what it quotes from the
/// input (between backticks), which differ from input to input for one cause.
pub(crate) fn error_class(message: &str) -> String {
    let message = match message.find(" at line ") {
        Some(at) => &message[..at],
        None => message,
    };
    let mut class = String::new();
    for (i, part) in message.split('`').enumerate() {
        class.push_str(if i % 2 == 0 { part } else { "…" });
    }
    class.trim().to_string()
}

fn first_difference(ours: &str, theirs: &str) -> String {
    let at = ours
        .bytes()
        .zip(theirs.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    format!(
        "first at byte {at}: {:?} against {:?}",
        crate::excerpt(ours, at),
        crate::excerpt(theirs, at)
    )
}

/// toml_edit's data; `None` where it holds a date or time, which basic-toml does not read.
fn table_data(table: &Table) -> Option<Data> {
    let mut entries = BTreeMap::new();
    for (key, item) in table.iter() {
        entries.insert(key.to_string(), item_data(item)?);
    }
    Some(Data::Table(entries))
}

fn item_data(item: &Item) -> Option<Data> {
    match item {
        Item::None => None,
        Item::Value(value) => value_data(value),
        Item::Table(table) => table_data(table),
        Item::ArrayOfTables(tables) => tables
            .iter()
            .map(table_data)
            .collect::<Option<Vec<_>>>()
            .map(Data::Array),
    }
}

fn value_data(value: &Value) -> Option<Data> {
    Some(match value {
        Value::String(s) => Data::String(s.value().clone()),
        Value::Integer(i) => Data::Integer(*i.value()),
        Value::Float(f) => Data::Float(f.value().to_bits()),
        Value::Boolean(b) => Data::Boolean(*b.value()),
        Value::Datetime(_) => return None,
        Value::Array(array) => Data::Array(array.iter().map(value_data).collect::<Option<_>>()?),
        Value::InlineTable(table) => {
            let mut entries = BTreeMap::new();
            for (key, value) in table.iter() {
                entries.insert(key.to_string(), value_data(value)?);
            }
            Data::Table(entries)
        }
    })
}

impl<'de> Deserialize<'de> for Data {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DataVisitor)
    }
}

struct DataVisitor;

impl<'de> Visitor<'de> for DataVisitor {
    type Value = Data;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("TOML data")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Data, E> {
        Ok(Data::Boolean(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Data, E> {
        Ok(Data::Integer(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Data, E> {
        i64::try_from(v)
            .map(Data::Integer)
            .map_err(|_| E::custom("integer beyond i64"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Data, E> {
        Ok(Data::Float(v.to_bits()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Data, E> {
        Ok(Data::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Data, E> {
        Ok(Data::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Data, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Data::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Data, A::Error> {
        let mut entries = BTreeMap::new();
        while let Some((key, value)) = map.next_entry::<String, Data>()? {
            entries.insert(key, value);
        }
        Ok(Data::Table(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(source: &str) -> (Verdict, Option<DocumentMut>) {
        match source.parse::<DocumentMut>() {
            Ok(document) => (Verdict::Valid, Some(document)),
            Err(e) => (Verdict::Invalid(format!("parse: {e}")), None),
        }
    }

    fn compared(source: &str) -> Option<Violation> {
        let (verdict, document) = parsed(source);
        compare(source, &verdict, Reading::of(document.as_ref()))
    }

    #[test]
    fn the_two_parsers_agree_on_plain_toml_and_on_refusals() {
        for source in [
            "a = 1\nb = 'x'\n[t]\nc = [1.5, true, {d = \"e\"}]\n[[arr]]\nf = -0.0\n",
            "x.y.z = 1\n",
            "a = nan\n",
            "a = ",
            "[t]\n[t]\n",
        ] {
            assert_eq!(compared(source), None, "{source:?}");
        }
    }

    #[test]
    fn dates_are_not_compared_since_basic_toml_reads_none() {
        assert!(basic_toml("a = 1979-05-27").is_err());
        assert_eq!(compared("a = 1979-05-27\n"), None);
    }

    /// TOML 1.1's escapes are toml_edit's alone; the class names basic-toml's error without
    /// the character or the position, so every such input is one bucket.
    #[test]
    fn a_refusal_by_one_side_names_it_and_its_error_kind() {
        let escape = compared("a = \"\\e\"\n").expect("toml_edit reads TOML 1.1's \\e");
        assert_eq!(escape.oracle, Oracle::Differential);
        assert_eq!(
            escape.class,
            "only toml_edit accepts; basic-toml refuses: invalid escape character in string: …"
        );
        let other = compared("b = \"\\e\\e\"\n").unwrap();
        assert_eq!(other.class, escape.class);
    }

    #[test]
    fn different_data_is_a_violation_of_its_own() {
        let (verdict, document) = parsed("a = 1\n");
        let wrong: DocumentMut = "a = 2\n".parse().unwrap();
        assert_eq!(verdict, Verdict::Valid);
        let found = compare("a = 1\n", &verdict, Reading::of(Some(&wrong))).unwrap();
        assert_eq!(found.class, "toml_edit and basic-toml read different data");
        assert!(found.texts[0].1.contains("Integer(2)"), "{found:?}");
        assert!(found.texts[1].1.contains("Integer(1)"), "{found:?}");
        drop(document);
    }

    /// Found by the differential's 10-minute run (issue 32; `-. 1 = false` then `[-.'']`):
    /// basic-toml 0.1.10 refuses a `[table]` header that adds a sub-table to a table made by
    /// dotted keys, which TOML 1.0 allows in its own example (`apple.color = "red"` under
    /// `[fruit]`, then `[fruit.apple.texture]`). A bug of the second parser, not of toml_edit.
    #[test]
    fn basic_toml_refuses_a_sub_table_of_a_table_made_by_dotted_keys() {
        let example = "[fruit]\napple.color = \"red\"\n[fruit.apple.texture]\nsmooth = true\n";
        let found = compared(example).expect("basic-toml refuses the specification's example");
        assert!(
            found
                .class
                .starts_with("only toml_edit accepts; basic-toml refuses: duplicate key"),
            "{found:?}"
        );
    }

    /// toml_edit stops at 80 nested arrays or a dotted key of 80 parts on purpose (its recursion
    /// guard, which cargo keeps); basic-toml has no limit. Not a disagreement about TOML.
    #[test]
    fn toml_edit_s_nesting_limit_is_allowed() {
        let deep = format!("a = {}{}\n", "[".repeat(100), "]".repeat(100));
        let (verdict, document) = parsed(&deep);
        assert!(
            matches!(&verdict, Verdict::Invalid(why) if why.contains("max recursion depth")),
            "{verdict:?}"
        );
        assert!(basic_toml(&deep).is_ok());
        assert_eq!(
            compare(&deep, &verdict, Reading::of(document.as_ref())),
            None
        );
        let long_key = format!("{} = 1\n", vec!["k"; 100].join("."));
        let (verdict, document) = parsed(&long_key);
        assert!(
            matches!(&verdict, Verdict::Invalid(why) if why.contains("recursion limit")),
            "{verdict:?}"
        );
        assert!(basic_toml(&long_key).is_ok());
        assert_eq!(
            compare(&long_key, &verdict, Reading::of(document.as_ref())),
            None
        );
    }

    #[test]
    fn an_error_class_keeps_the_kind_only() {
        assert_eq!(
            error_class("expected a right bracket, found `x` at line 3 column 9"),
            "expected a right bracket, found …"
        );
        assert_eq!(
            error_class("unexpected eof encountered"),
            "unexpected eof encountered"
        );
    }
}
