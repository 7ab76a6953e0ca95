//! The dependency a built harness spends its code in without counting it: a user's crate is
//! often a thin wrapper over the real parser (`sqlparser`, `syn`, a generated lexer), which
//! `cargo bonsai build` does not instrument unless `instrument = [...]` names it. The map
//! then holds a few dozen edges and the fuzzer is blind to the code under test, while the
//! run looks healthy. The build cannot know which calls reach where without running them,
//! but the binary's symbol table says how much machine code each crate holds: a direct
//! dependency of the user's crates ([`super::dependency_graph`]) that holds more code than
//! every instrumented crate together is named in a warning with the line that fixes it.
//!
//! Direct ones only: a wrapper calls its parser, and the crates below the parser are mostly
//! shared with the engine, whose use of them fills the binary (counting them named
//! `serde_core`, the engine's serialization, for a wrapper over serde_json). A crate the
//! engine uses too stays when the user's crate names it: the wrapper's serde_json is still
//! the code under test.

use std::collections::BTreeMap;
use std::path::Path;

use crate::target::{STANDARD_LIBRARY, crate_of};

/// Bytes of machine code per crate in the binary at `path`, from its symbol table (function
/// symbols with a size, named after the first path segment of their demangled names); `None`
/// for an unreadable or stripped binary.
pub fn code_per_crate(path: &Path) -> Option<BTreeMap<String, u64>> {
    use object::{Object, ObjectSymbol, SymbolKind};
    let data = std::fs::read(path).ok()?;
    let file = object::File::parse(&*data).ok()?;
    let mut sizes: BTreeMap<String, u64> = BTreeMap::new();
    for symbol in file.symbols() {
        if symbol.kind() != SymbolKind::Text || symbol.size() == 0 {
            continue;
        }
        let Ok(name) = symbol.name() else { continue };
        let demangled = format!("{:#}", rustc_demangle::demangle(name));
        *sizes.entry(crate_of(&demangled)).or_default() += symbol.size();
    }
    (!sizes.is_empty()).then_some(sizes)
}

/// The warning for a build that instrumented `instrumented`: the dependency among
/// `dependencies` (not instrumented) with the most code in `code`, when it holds more than
/// all instrumented crates together; `None` when the instrumented crates hold the most.
pub fn bulk_warning(
    code: &BTreeMap<String, u64>,
    dependencies: &[String],
    instrumented: &[String],
) -> Option<String> {
    let counted: u64 = instrumented.iter().filter_map(|name| code.get(name)).sum();
    let (name, bytes) = dependencies
        .iter()
        .filter(|name| !instrumented.contains(name) && !STANDARD_LIBRARY.contains(&name.as_str()))
        .filter_map(|name| Some((name, *code.get(name)?)))
        .max_by_key(|&(name, bytes)| (bytes, std::cmp::Reverse(name.clone())))?;
    (bytes > counted).then(|| {
        format!(
            "dependency `{name}` holds {} of the binary's code, more than the instrumented \
             crates together ({}), and has no edge counters: if your crate calls into it (a \
             wrapper over its parser), the fuzzer sees none of its branches. Instrument it: \
             `instrument = [\"{name}\"]` under [package.metadata.bonsai] in bonsai/Cargo.toml \
             (or `cargo bonsai init --instrument {name}`), then build again",
            kib(bytes),
            kib(counted)
        )
    })
}

fn kib(bytes: u64) -> String {
    format!("{} KiB", bytes.div_ceil(1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
        pairs.iter().map(|&(n, b)| (n.to_string(), b)).collect()
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_biggest_uninstrumented_dependency_is_named_when_it_outweighs_the_counted_code() {
        let sizes = code(&[
            ("wrapper", 4_000),
            ("sqlparser", 900_000),
            ("itoa", 6_000),
            ("core", 2_000_000),
            ("libafl", 3_000_000),
        ]);
        let warning = bulk_warning(
            &sizes,
            &names(&["itoa", "sqlparser", "core"]),
            &names(&["wrapper"]),
        )
        .unwrap();
        assert!(warning.contains("`sqlparser` holds 879 KiB"), "{warning}");
        assert!(
            warning.contains("instrument = [\"sqlparser\"]"),
            "{warning}"
        );
        // Instrumented, it is counted: nothing left to say.
        assert_eq!(
            bulk_warning(
                &sizes,
                &names(&["itoa", "sqlparser"]),
                &names(&["wrapper", "sqlparser"])
            ),
            None
        );
        // A crate that holds its own code needs no warning about a small dependency.
        assert_eq!(
            bulk_warning(
                &code(&[("parser", 50_000), ("itoa", 6_000)]),
                &names(&["itoa"]),
                &names(&["parser"])
            ),
            None
        );
    }

    #[test]
    fn the_test_binary_s_code_is_credited_to_its_crates() {
        let sizes = code_per_crate(&std::env::current_exe().unwrap()).unwrap();
        assert!(
            sizes.get("bonsai").is_some_and(|&b| b > 100_000),
            "{sizes:?}"
        );
        assert!(sizes.get("libafl").is_some_and(|&b| b > 0), "{sizes:?}");
        assert_eq!(code_per_crate(Path::new("/nonexistent/binary")), None);
    }
}
