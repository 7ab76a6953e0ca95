//! The SanitizerCoverage PC table: for every 8-bit edge counter, the address of the code it
//! counts, and whether that is a function's entry.
//!
//! The counters alone cannot say whose they are: every instrumented module registers the
//! same linker-merged `__sancov_cntrs` section, so a binary has one counter region however
//! many crates went into it. The table (`-sanitizer-coverage-pc-table`, which the rustc
//! wrappers add) is laid out parallel to that region by the same linker merge, one
//! `(pc, flags)` pair per counter, so a counter's owner is the function around its pc.
//! LibAFL defines the hook that receives the table only with its pc-guard runtime, which
//! Bonsai does not use, so the engine defines it here.

use std::sync::Mutex;

/// `[start, end)` of each table registered, as addresses; in practice one.
static TABLES: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

/// Called by each instrumented module's constructor, before `main`, with the bounds of the
/// merged table; the same bounds come once per module and are kept once.
///
/// # Safety
/// Called by the instrumentation with the bounds of a table that lives as long as the program.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __sanitizer_cov_pcs_init(start: *const usize, end: *const usize) {
    let table = (start as usize, end as usize);
    let mut tables = TABLES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if table.0 < table.1 && !tables.contains(&table) {
        tables.push(table);
    }
}

/// One entry of the table: the address of an instrumented block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PcEntry {
    /// The block's address in this process.
    pub pc: usize,
    /// Whether the block is its function's entry (`PCFlags & 1`).
    pub function_entry: bool,
}

/// Every entry of every registered table, in counter order.
pub fn entries() -> Vec<PcEntry> {
    let tables = TABLES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut out = Vec::new();
    for &(start, end) in tables.iter() {
        let len = (end - start) / std::mem::size_of::<usize>();
        // SAFETY: registered by the instrumentation as a table of `(pc, flags)` words that
        // lives as long as the program and is never written.
        let words = unsafe { std::slice::from_raw_parts(start as *const usize, len) };
        out.extend(words.chunks_exact(2).map(|pair| PcEntry {
            pc: pair[0],
            function_entry: pair[1] & 1 == 1,
        }));
    }
    out
}
