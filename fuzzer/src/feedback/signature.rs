//! Where a fault happened: the first frames of the stack that belong to the code under test,
//! and a signature that identifies the bug across inputs.

use std::hash::Hasher;

/// How many frames of the target are shown in `crashes/*.meta`.
pub const SHOWN_FRAMES: usize = 8;
/// How many of them identify a bug. Three distinguishes the same panic reached from different
/// callers' callers while staying stable when the input only changes what happens deeper.
pub const SIGNATURE_FRAMES: usize = 3;
/// Frames walked at most: a stack overflow has hundreds of thousands.
const WALKED_FRAMES: usize = 96;

/// Frames that belong to the fault machinery rather than to the code under test: the
/// unwinder, the panic runtime, signal trampolines, libc's abort path, the engine, LibAFL.
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

/// The top frames of the current stack that belong to the code under test, as
/// `function (file:line)`. Resolves symbols, so it is only for the rare fault path; it also
/// runs inside LibAFL's signal handler, on its 8 MiB alternate stack.
pub fn target_frames() -> Vec<String> {
    let mut ips = Vec::with_capacity(WALKED_FRAMES);
    backtrace::trace(|frame| {
        ips.push(frame.ip());
        ips.len() < WALKED_FRAMES
    });
    let mut frames = Vec::new();
    for ip in ips {
        let mut described = None;
        backtrace::resolve(ip, |symbol| {
            if described.is_some() {
                return;
            }
            let Some(name) = symbol.name() else {
                return;
            };
            let function = format!("{name:#}");
            let location = match (symbol.filename(), symbol.lineno()) {
                (Some(file), Some(line)) => format!(" ({}:{line})", file.display()),
                _ => String::new(),
            };
            described = Some((function, location));
        });
        let Some((function, location)) = described else {
            continue;
        };
        if MACHINERY.iter().any(|prefix| function.starts_with(prefix)) {
            continue;
        }
        frames.push(format!("{function}{location}"));
        if frames.len() == SHOWN_FRAMES {
            break;
        }
    }
    frames
}

/// A stable 64-bit signature of a fault: its kind, the functions of its top frames (not their
/// lines, which shift with every edit of the target), and for panics the panic location.
pub fn signature(kind: &str, location: Option<&str>, frames: &[String]) -> u64 {
    let mut h = fnv::FnvHasher::default();
    h.write(kind.as_bytes());
    h.write_u8(0);
    if let Some(location) = location {
        h.write(location.as_bytes());
    }
    h.write_u8(0);
    for frame in frames.iter().take(SIGNATURE_FRAMES) {
        let function = frame.split(" (").next().unwrap_or(frame);
        h.write(function.as_bytes());
        h.write_u8(0);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_ignores_line_numbers_and_deeper_frames() {
        let a = vec![
            "f (a.rs:1)".to_string(),
            "g (a.rs:2)".into(),
            "h (a.rs:3)".into(),
            "main (a.rs:4)".into(),
        ];
        let b = vec![
            "f (a.rs:10)".to_string(),
            "g (a.rs:20)".into(),
            "h (a.rs:30)".into(),
            "other (b.rs:4)".into(),
        ];
        assert_eq!(signature("panic", None, &a), signature("panic", None, &b));
        assert_ne!(signature("panic", None, &a), signature("abort", None, &a));
        assert_ne!(
            signature("panic", Some("x.rs:1:1"), &a),
            signature("panic", Some("x.rs:2:1"), &a)
        );
        let c = vec!["f (a.rs:1)".to_string(), "k (a.rs:2)".into()];
        assert_ne!(signature("panic", None, &a), signature("panic", None, &c));
    }

    #[inline(never)]
    fn a_function_of_the_test() -> Vec<String> {
        target_frames()
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
