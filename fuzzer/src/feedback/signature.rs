//! Where a fault happened: the first frames of the stack that belong to the code under test,
//! and a signature that identifies the bug across inputs.

use std::collections::HashMap;
use std::hash::Hasher;

/// How many frames of the target are shown in `crashes/*.meta`.
pub const SHOWN_FRAMES: usize = 8;
/// Frames walked at most: a stack overflow has hundreds of thousands.
const WALKED_FRAMES: usize = 96;

/// Frames that belong to the fault machinery rather than to the code under test: the
/// unwinder, the panic runtime, signal trampolines, libc's abort path, the engine, LibAFL,
/// and the Nautilus baseline (`fuzzer/baseline`), whose harness is a crate of its own but
/// must sign a fault as `bonsai replay` does, or the two fuzzers' faults would not compare.
const MACHINERY: &[&str] = &[
    "backtrace::",
    "std::",
    "core::",
    "alloc::",
    "<alloc::",
    "<core::",
    "<std::",
    "bonsai::",
    "<bonsai::",
    "bonsai_baseline::",
    "<bonsai_baseline::",
    "libafl",
    "<libafl",
    "exceptional::",
    "__rust",
    "rust_begin_unwind",
    "rust_panic",
    "_Unwind",
    "__restore_rt",
    "raise",
    "abort",
    "__pthread",
    "pthread_kill",
    "gsignal",
    "__GI_",
    "__libc",
    "<F as ",
];

/// Source files of the machinery. Optimized builds name inlined frames without their module
/// path (`trace`, not `backtrace::trace`), so the file is the reliable mark.
const MACHINERY_FILES: &[&str] = &[
    "/rustc/",
    "/library/std/",
    "/library/core/",
    "/library/alloc/",
    "/library/panic_",
    "/backtrace-0.",
    "/libafl",
    "/exceptional-",
    "/gimli-",
    "/addr2line-",
    "/miniz_oxide-",
    "/object-0.",
    // glibc's own sources, when its debug information is installed.
    "./malloc/",
    "./string/",
    "/sysdeps/",
];

/// A standard-library trait implemented for a built-in type (`<u8 as
/// alloc::vec::spec_from_elem::SpecFromElem>::from_elem`): library code, even when the
/// prebuilt library carries no file name. A target's own type is path-qualified
/// (`<mycrate::Ty as core::fmt::Display>::fmt`) and stays a target frame.
fn is_library_impl_for_builtin(function: &str) -> bool {
    let Some(rest) = function.strip_prefix('<') else {
        return false;
    };
    let Some((self_type, trait_path)) = rest.split_once(" as ") else {
        return false;
    };
    !self_type.contains("::")
        && ["alloc::", "core::", "std::"]
            .iter()
            .any(|library| trait_path.starts_with(library))
}

/// The engine's own sources and the baseline's: frames there are the harness, not the target.
const ENGINE_SOURCES: [&str; 2] = [
    concat!(env!("CARGO_MANIFEST_DIR"), "/src/"),
    concat!(env!("CARGO_MANIFEST_DIR"), "/baseline/src/"),
];

/// glibc's allocator, by exact name: a timeout often interrupts the target inside it, and the
/// same hang must get the same signature wherever in `malloc` the timer landed.
const ALLOCATOR: &[&str] = &[
    "malloc",
    "_int_malloc",
    "sysmalloc",
    "malloc_consolidate",
    "calloc",
    "realloc",
    "_int_realloc",
    "free",
    "cfree",
    "_int_free",
    "unlink_chunk",
    "_mid_memalign",
    "_int_memalign",
    "tcache_init",
];

fn is_machinery(function: &str, file: Option<&str>) -> bool {
    let name = function.split('.').next().unwrap_or(function);
    if ALLOCATOR.contains(&name)
        || is_library_impl_for_builtin(function)
        || MACHINERY.iter().any(|prefix| function.starts_with(prefix))
    {
        return true;
    }
    let Some(file) = file else {
        return false;
    };
    ENGINE_SOURCES.iter().any(|source| file.starts_with(source))
        || MACHINERY_FILES.iter().any(|part| file.contains(part))
}

/// Return addresses of the current stack, innermost first. Cheap (no symbol lookup), so the
/// panic hook can take it inside the target's time budget.
pub fn stack_addresses() -> Vec<usize> {
    let mut ips = Vec::with_capacity(WALKED_FRAMES);
    backtrace::trace(|frame| {
        ips.push(frame.ip() as usize);
        ips.len() < WALKED_FRAMES
    });
    ips
}

/// Symbolized frames per return address. Symbolizing is slow (the debug information is read,
/// decompressed and parsed per compilation unit), and a fuzzing process forked after a crash
/// starts without the parsed units; the fault feedback keeps this cache in the LibAFL state,
/// so it travels across restarts, and a fault seen before costs no lookup at all. Addresses
/// stay valid across restarts because every fuzzing process is forked from the same
/// supervisor.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SymbolCache {
    frames: HashMap<usize, Vec<String>>,
}
libafl_bolts::impl_serdeany!(SymbolCache);

/// The top frames of the current stack that belong to the code under test.
pub fn target_frames(cache: &mut SymbolCache) -> Vec<String> {
    describe_frames(&stack_addresses(), cache)
}

/// The frames of `addresses` that belong to the code under test, as `function (file:line)`.
pub fn describe_frames(addresses: &[usize], cache: &mut SymbolCache) -> Vec<String> {
    let mut frames = Vec::new();
    for &ip in addresses {
        let logical = cache
            .frames
            .entry(ip)
            .or_insert_with(|| resolve(ip))
            .clone();
        for frame in logical {
            frames.push(frame);
            if frames.len() == SHOWN_FRAMES {
                return frames;
            }
        }
    }
    frames
}

/// The target's logical frames at one return address (several when calls were inlined,
/// innermost first).
fn resolve(ip: usize) -> Vec<String> {
    let mut frames = Vec::new();
    backtrace::resolve(ip as *mut std::ffi::c_void, |symbol| {
        let Some(name) = symbol.name() else {
            return;
        };
        let function = format!("{name:#}");
        let file = symbol.filename().map(|f| f.to_string_lossy().into_owned());
        if is_machinery(&function, file.as_deref()) {
            return;
        }
        let location = match (&file, symbol.lineno()) {
            (Some(file), Some(line)) => format!(" ({file}:{line})"),
            _ => String::new(),
        };
        frames.push(format!("{function}{location}"));
    });
    frames
}

/// Loads and decompresses this executable's debug information once, in the process that
/// will fork the fuzzing processes, so that each of them starts with it.
pub fn warm_symbol_cache() {
    let _ = target_frames(&mut SymbolCache::default());
}

/// A stable 64-bit signature of a fault: its kind and where it happened. For a panic that is
/// the `panic!` location and the panic's message as [`normalise_message`] masks it, so that
/// one assertion failing for different reasons ("expected 3 tokens" or "unknown name 'x'")
/// is several faults, while the same reason with other values ("expected 4 tokens", "unknown
/// name 'y'") is one. Otherwise the innermost frame of the target, with its line for signals
/// (the abort or faulting access) and without it for hangs (a timeout interrupts the looping
/// function at an arbitrary line). Callers further out do not count: the same bug reached
/// through a different nesting of the input is the same bug.
pub fn signature(
    kind: &str,
    location: Option<&str>,
    message: Option<&str>,
    frames: &[String],
) -> u64 {
    let mut h = fnv::FnvHasher::default();
    h.write(kind.as_bytes());
    h.write_u8(0);
    match (location, frames.first()) {
        (Some(location), _) => h.write(location.as_bytes()),
        (None, Some(_)) if kind == "timeout" => {
            let top = innermost_located(frames);
            h.write(top.split(" (").next().unwrap_or(top).as_bytes());
        }
        (None, Some(top)) => h.write(top.as_bytes()),
        (None, None) => {}
    }
    if let Some(message) = message {
        h.write_u8(0);
        h.write(normalise_message(message).as_bytes());
    }
    h.finish()
}

/// The innermost frame that surely belongs to the target: one with a source location, or one
/// without whose crate some located frame of the same stack belongs to (a target function
/// stopped at an address its line table does not cover). A timer can also stop the target
/// inside code without debug information (a libc string routine, a PLT stub), whose address
/// the symbolizer names after whatever symbol precedes it (`main`, a function of the
/// unwinder); that name varies with where the timer landed, so one hang would get one
/// signature per landing place. The innermost frame when none qualifies.
fn innermost_located(frames: &[String]) -> &str {
    let located = |frame: &&String| frame.ends_with(')') && frame.contains(" (");
    let crates: Vec<&str> = frames
        .iter()
        .filter(located)
        .map(|frame| crate_of(frame))
        .collect();
    frames
        .iter()
        .find(|frame| {
            let name = crate_of(frame);
            located(frame) || (!name.is_empty() && crates.contains(&name))
        })
        .or(frames.first())
        .map_or("", String::as_str)
}

/// The first path segment of a frame's function (`mycrate` of `<mycrate::Ty as
/// core::fmt::Display>::fmt`); empty for a name without a path (`main`).
fn crate_of(frame: &str) -> &str {
    let name = frame.trim_start_matches('<');
    name.split_once("::").map_or("", |(first, _)| first)
}

/// How much of a normalised message counts towards a signature: the reason a check failed is
/// said first, and a long dump after it (a whole tree in an `assert_eq!`) would make every
/// input its own fault.
const SIGNATURE_MESSAGE_CHARS: usize = 200;

/// A panic message with what varies from input to input masked: each quoted part (`'...'`,
/// `"..."` or backquoted, as `{:?}` prints strings and messages quote names) becomes `'_'`, and
/// each number (a run of digits not inside a word, with its hex digits, suffix or fraction)
/// becomes `#`; at most [`SIGNATURE_MESSAGE_CHARS`] characters of the result are kept. A word
/// with digits (`E0308`, `u32`) and an apostrophe inside a word (`can't`) are kept as they are.
pub fn normalise_message(message: &str) -> String {
    let chars: Vec<char> = message.chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() && out.chars().count() < SIGNATURE_MESSAGE_CHARS {
        let c = chars[i];
        let after_word = i > 0 && word(chars[i - 1]);
        let quote = matches!(c, '"' | '`') || (c == '\'' && !after_word);
        if quote && let Some(end) = closing_quote(&chars, i) {
            out.push_str("'_'");
            i = end + 1;
        } else if c.is_ascii_digit() && !after_word {
            out.push('#');
            i += 1;
            while i < chars.len()
                && (word(chars[i])
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The index of the quote that closes the one at `open`, on the same line, past backslash
/// escapes; `None` when the line has none (a lone apostrophe, an unbalanced quote).
fn closing_quote(chars: &[char], open: usize) -> Option<usize> {
    let quote = chars[open];
    let mut i = open + 1;
    while i < chars.len() && chars[i] != '\n' {
        match chars[i] {
            '\\' => i += 2,
            c if c == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_the_fault_site_not_the_callers() {
        let a = vec![
            "f (a.rs:1)".to_string(),
            "g (a.rs:2)".into(),
            "main (a.rs:4)".into(),
        ];
        let b = vec!["f (a.rs:1)".to_string(), "h (a.rs:9)".into()];
        let c = vec!["f (a.rs:7)".to_string(), "g (a.rs:2)".into()];
        assert_eq!(
            signature("crash", None, None, &a),
            signature("crash", None, None, &b)
        );
        assert_ne!(
            signature("crash", None, None, &a),
            signature("crash", None, None, &c)
        );
        assert_ne!(
            signature("crash", None, None, &a),
            signature("oom", None, None, &a)
        );
        // A hang is identified by its looping function, whatever line it was stopped at.
        assert_eq!(
            signature("timeout", None, None, &a),
            signature("timeout", None, None, &c)
        );
        // Frames without a source location, named after the nearest symbol, do not count.
        let stopped_in_libc = |name: &str| {
            let mut frames = vec![name.to_string()];
            frames.extend(a.iter().cloned());
            signature("timeout", None, None, &frames)
        };
        assert_eq!(
            stopped_in_libc("main"),
            signature("timeout", None, None, &a)
        );
        assert_eq!(
            stopped_in_libc("<gimli::Attributes as core::ops::Deref>::deref"),
            stopped_in_libc("main")
        );
        // But a frame of the target's own crate without a line counts: it is the loop.
        let crate_frames = |top: &str| {
            vec![
                top.to_string(),
                "t::g (a.rs:2)".into(),
                "<t::T as x::Run>::run (a.rs:4)".into(),
            ]
        };
        assert_eq!(
            signature("timeout", None, None, &crate_frames("t::f")),
            signature("timeout", None, None, &crate_frames("t::f (a.rs:1)"))
        );
        assert_ne!(
            signature("timeout", None, None, &crate_frames("t::f")),
            signature("timeout", None, None, &crate_frames("main"))
        );
        // A panic by its location and its message with the values masked, whatever the stack.
        let panic = |location: &str, message: &str, frames: &[String]| {
            signature("panic", Some(location), Some(message), frames)
        };
        assert_eq!(
            panic("x.rs:1:1", "expected 3 tokens", &a),
            panic("x.rs:1:1", "expected 4 tokens", &c)
        );
        assert_ne!(
            panic("x.rs:1:1", "expected 3 tokens", &a),
            panic("x.rs:2:1", "expected 3 tokens", &a)
        );
        // One check failing for two reasons is two faults.
        assert_ne!(
            panic("x.rs:1:1", "round trip changed the text", &a),
            panic("x.rs:1:1", "round trip changed the verdict", &a)
        );
    }

    #[test]
    fn messages_are_normalised_by_masking_numbers_and_quoted_text() {
        let n = normalise_message;
        assert_eq!(
            n("index out of bounds: the len is 3 but the index is 17"),
            "index out of bounds: the len is # but the index is #"
        );
        assert_eq!(
            n("unknown name 'foo' at 3:14, expected \"bar\" or `baz`"),
            "unknown name '_' at #:#, expected '_' or '_'"
        );
        assert_eq!(
            n(r#"left: Ident("a\"b"), right: 0x1f"#),
            "left: Ident('_'), right: #"
        );
        assert_eq!(n("took 2.5s, limit 1e3"), "took #, limit #");
        // Words with digits, apostrophes inside words and unbalanced quotes stay.
        assert_eq!(
            n("error E0308: can't use u32 here 'x"),
            "error E0308: can't use u32 here 'x"
        );
        // A quote does not run past the end of its line.
        assert_eq!(n("a 'b\nc' d"), "a 'b\nc' d");
        assert_eq!(
            n(&"x".repeat(1000)).len(),
            SIGNATURE_MESSAGE_CHARS,
            "a long dump is cut"
        );
    }

    #[inline(never)]
    fn a_function_of_the_test() -> Vec<String> {
        target_frames(&mut SymbolCache::default())
    }

    #[test]
    fn allocator_and_library_frames_are_machinery_but_target_impls_are_not() {
        assert!(is_machinery("_int_malloc", None));
        assert!(is_machinery("unlink_chunk.constprop.0", None));
        assert!(is_machinery(
            "checked_request2size",
            Some("./malloc/malloc.c")
        ));
        assert!(is_machinery(
            "<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem",
            None
        ));
        assert!(!is_machinery(
            "<mycrate::Ty as core::fmt::Display>::fmt",
            Some("/src/mycrate/lib.rs")
        ));
        assert!(!is_machinery("mycrate::free", Some("/src/mycrate/lib.rs")));
    }

    #[test]
    fn frames_skip_the_machinery_and_start_at_the_caller() {
        let frames = a_function_of_the_test();
        // Test binaries are named after the crate, so the engine's own frames are filtered:
        // what remains starts outside `bonsai::` (the test harness closure or deeper).
        assert!(frames.iter().all(|f| !f.starts_with("backtrace::")));
        assert!(frames.iter().all(|f| !f.starts_with("bonsai::")));
    }
}
