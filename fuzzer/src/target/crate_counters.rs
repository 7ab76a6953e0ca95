//! Which crates of a target binary carry edge counters, and how many each.
//!
//! A binary that counts only its harness looks instrumented by the total alone ("1205 edge
//! counters") while the compiler it calls is blind to the fuzzer. Each counter is credited to
//! the crate of the function it sits in: the PC table ([`super::pc_table`]) gives the
//! function entry that precedes the counter, the symbol table names that function, and the
//! first path segment of the demangled name is its crate. Generic code of the standard
//! library is compiled into the crate that uses it and is named after `core`, `alloc` or
//! `std`; it is reported apart.

use std::collections::BTreeMap;

use super::pc_table;

/// The crates of the standard library, whose generic code the instrumented crates compile in
/// (`hashbrown` is std's `HashMap`).
pub const STANDARD_LIBRARY: [&str; 4] = ["alloc", "core", "hashbrown", "std"];

/// Edge counters per crate, most first; `None` when the binary has no PC table to tell
/// (built by a wrapper without `-sanitizer-coverage-pc-table`), one that does not match its
/// counters, or no symbol table to name its functions (stripped).
pub fn crate_counters(total: usize) -> Option<Vec<(String, usize)>> {
    let entries = pc_table::entries();
    if entries.is_empty() || entries.len() != total {
        return None;
    }
    let data = std::fs::read(std::env::current_exe().ok()?).ok()?;
    let symbols = Symbols::read(&data)?;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut current = String::from("(unknown)");
    for entry in &entries {
        if entry.function_entry {
            current = symbols
                .name(entry.pc)
                .map(|name| crate_of(&name))
                .unwrap_or_else(|| "(unknown)".to_string());
        }
        *counts.entry(current.clone()).or_default() += 1;
    }
    let mut counts: Vec<(String, usize)> = counts.into_iter().collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Some(counts)
}

/// Prints [`harness_only_warning`] for this binary, if it applies: a fuzzing run started on a
/// harness whose compiler is not instrumented reaches a few hundred edges and looks fine.
pub fn warn_if_only_the_harness_is_counted() {
    let total = super::edge_counters();
    if let Some(warning) = crate_counters(total)
        .as_deref()
        .and_then(harness_only_warning)
    {
        eprintln!("warning: {warning}");
    }
}

/// The running executable's symbol table. Read from the file, not through `backtrace`: its
/// names come from the debug information first, which at `line-tables-only` holds a
/// function's bare name (`check_expr`, no crate), and it looks up `address - 1`, the caller's
/// side of a return address, which for a function's first byte is the function before it.
struct Symbols<'data> {
    map: object::read::SymbolMap<object::read::SymbolMapName<'data>>,
    /// What the loader added to every address (a position-independent executable).
    bias: usize,
}

impl<'data> Symbols<'data> {
    fn read(data: &'data [u8]) -> Option<Self> {
        use object::{Object, ObjectSymbol};
        let file = object::File::parse(data).ok()?;
        // A function of this binary whose address is known both here and in the file.
        let anchor = file
            .symbols()
            .find(|s| s.name() == Ok("__sanitizer_cov_pcs_init"))?
            .address();
        let here = pc_table::__sanitizer_cov_pcs_init as *const () as usize;
        Some(Symbols {
            map: file.symbol_map(),
            bias: here.wrapping_sub(anchor as usize),
        })
    }

    /// The demangled name, without hash, of the function at `pc` in this process.
    fn name(&self, pc: usize) -> Option<String> {
        let symbol = self.map.containing(pc.wrapping_sub(self.bias) as u64)?;
        Some(format!("{:#}", rustc_demangle::demangle(symbol.name())))
    }
}

/// The start of the function symbol around `address` in this process (the greatest symbol
/// address at or below it), from the binary's symbol table, read once; `None` for a stripped
/// binary. Two addresses lie in one machine function exactly when their starts agree, which
/// function names cannot tell (a crate has many `eq` and `clone`).
pub fn function_start(address: usize) -> Option<usize> {
    static STARTS: std::sync::OnceLock<Option<(Vec<u64>, usize)>> = std::sync::OnceLock::new();
    let (starts, bias) = STARTS
        .get_or_init(|| {
            let data = std::fs::read(std::env::current_exe().ok()?).ok()?;
            let symbols = Symbols::read(&data)?;
            let starts = symbols.map.symbols().iter().map(|s| s.address()).collect();
            Some((starts, symbols.bias))
        })
        .as_ref()?;
    let at = starts.partition_point(|&start| start <= address.wrapping_sub(*bias) as u64);
    let start = *starts.get(at.checked_sub(1)?)?;
    Some((start as usize).wrapping_add(*bias))
}

/// Crates listed one a line when they hold less than 1% of the counters: beyond these, such
/// crates (mostly dependencies whose generic code an instrumented crate compiles in) are
/// summed on one line.
const LISTED_ALWAYS: usize = 8;

/// The lines `bonsai targets --target T` prints under its total (`crates` most first): one
/// crate a line, small ones past the first few summed, the standard library's generic code
/// apart.
pub fn describe(crates: &[(String, usize)]) -> Vec<String> {
    let total: usize = crates.iter().map(|(_, c)| c).sum();
    let standard_label = STANDARD_LIBRARY.join(", ");
    let (mut listed, mut more, mut more_count, mut standard) = (Vec::new(), 0, 0, 0);
    for (name, count) in crates {
        if STANDARD_LIBRARY.contains(&name.as_str()) {
            standard += count;
        } else if listed.len() < LISTED_ALWAYS || *count * 100 >= total {
            listed.push((name.clone(), *count));
        } else {
            more += 1;
            more_count += count;
        }
    }
    let more_label = format!("({more} more crates)");
    let width = listed
        .iter()
        .map(|(name, _)| name.len())
        .chain([standard_label.len(), more_label.len()])
        .max()
        .unwrap_or(0);
    let mut lines: Vec<String> = listed
        .iter()
        .map(|(name, count)| format!("  {name:<width$} {count:>8}"))
        .collect();
    if more > 0 {
        lines.push(format!(
            "  {more_label:<width$} {more_count:>8}  (under 1% each: mostly their generic code, compiled into the crates above)"
        ));
    }
    if standard > 0 {
        lines.push(format!(
            "  {standard_label:<width$} {standard:>8}  (the standard library's generic code, compiled into the crates above)"
        ));
    }
    lines
}

/// A warning when the harness crates (`bonsai_target_*`, where `target_main!` and the
/// `Target` impl live) are the only ones counted: then the code the harness calls into is not
/// instrumented, unless it lives in the harness itself.
pub fn harness_only_warning(crates: &[(String, usize)]) -> Option<String> {
    let own: Vec<&str> = crates
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !STANDARD_LIBRARY.contains(name) && !name.starts_with('('))
        .collect();
    let harness_only = !own.is_empty() && own.iter().all(|n| n.starts_with("bonsai_target_"));
    harness_only.then(|| {
        format!(
            "only the harness crate {} has edge counters: the crates it calls into are not \
             instrumented, so fuzzing sees none of their branches. Unless the code under test \
             lives in the harness itself, instrument them (`[package.metadata.bonsai] instrument` \
             with `cargo bonsai build`, or scripts/instrumented-crates in Bonsai's workspace)",
            own.join(", ")
        )
    })
}

/// The crate a demangled path starts with: `naga` for `naga::front::Parser::parse` and for
/// `<naga::Span as core::fmt::Debug>::fmt`, `core` for `core::ptr::drop_in_place<naga::X>`.
/// A path that starts with no crate (`<&T as core::fmt::Debug>::fmt`) is `(generic)`.
pub fn crate_of(name: &str) -> String {
    let mut rest = name.trim_start();
    loop {
        let before = rest;
        for prefix in ["<", "&", "mut ", "*const ", "*mut ", "dyn ", "[", "("] {
            rest = rest.strip_prefix(prefix).unwrap_or(rest).trim_start();
        }
        if rest == before {
            break;
        }
    }
    let ident_len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let (ident, after) = rest.split_at(ident_len);
    if ident.is_empty() || !after.starts_with("::") {
        return "(generic)".to_string();
    }
    ident.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_belongs_to_the_crate_its_path_starts_with() {
        assert_eq!(crate_of("naga::front::wgsl::parse::Parser::parse"), "naga");
        assert_eq!(
            crate_of("<naga::span::Span as core::fmt::Debug>::fmt"),
            "naga"
        );
        assert_eq!(
            crate_of("core::ptr::drop_in_place<alloc::vec::Vec<naga::Type>>"),
            "core"
        );
        assert_eq!(
            crate_of("<&mut bonsai_target_x::Lexer as core::iter::Iterator>::next"),
            "bonsai_target_x"
        );
        assert_eq!(crate_of("<[T] as core::fmt::Debug>::fmt"), "(generic)");
        assert_eq!(crate_of("main"), "(generic)");
    }

    fn crates(list: &[(&str, usize)]) -> Vec<(String, usize)> {
        list.iter().map(|(n, c)| (n.to_string(), *c)).collect()
    }

    #[test]
    fn only_a_counted_harness_is_warned_about() {
        let harness = crates(&[("bonsai_target_x", 900), ("core", 40), ("(generic)", 2)]);
        let warning = harness_only_warning(&harness).unwrap();
        assert!(warning.contains("bonsai_target_x"), "{warning}");
        let compiler = crates(&[("naga", 50000), ("bonsai_target_naga", 10)]);
        assert_eq!(harness_only_warning(&compiler), None);
        assert_eq!(harness_only_warning(&crates(&[("core", 3)])), None);
    }

    #[test]
    fn small_crates_past_the_first_few_are_summed() {
        let mut list = vec![("starlark", 90_000), ("core", 5_000)];
        let names: Vec<String> = (0..12).map(|i| format!("dep{i:02}")).collect();
        list.extend(names.iter().map(|n| (n.as_str(), 10)));
        let lines = describe(&crates(&list));
        // starlark and seven small ones, the other five summed, then the standard library.
        assert_eq!(lines.len(), 10, "{lines:?}");
        assert!(lines[7].contains("dep06"), "{lines:?}");
        assert!(
            lines[8].contains("(5 more crates)") && lines[8].contains(" 50 "),
            "{lines:?}"
        );
    }

    #[test]
    fn the_standard_library_is_summed_on_its_own_line() {
        let lines = describe(&crates(&[("naga", 500), ("core", 40), ("alloc", 2)]));
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].contains("naga") && lines[0].ends_with("500"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains("alloc, core, hashbrown, std") && lines[1].contains(" 42 "),
            "{lines:?}"
        );
    }
}
