//! Where a fault happened and which bug it is: the frames of the stack that belong to the code
//! under test, and the bucket (ClusterFuzz's "crash state") that identifies one bug across
//! inputs, nestings, messages and the places a timer happened to land.

use std::collections::HashMap;
use std::hash::Hasher;

use crate::fault::FaultKind;

/// How many frames of the target are shown in `crashes/*.meta`.
pub const SHOWN_FRAMES: usize = 8;
/// Frames walked at most: a stack overflow has hundreds of thousands.
pub const WALKED_FRAMES: usize = 96;

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

/// The frames of the current stack that belong to the code under test, all of those walked.
pub fn target_frames(cache: &mut SymbolCache) -> Vec<String> {
    describe_frames(&stack_addresses(), cache)
}

/// The frames of `addresses` that belong to the code under test, as `function (file:line)`,
/// innermost first: every one of them (callers keep [`SHOWN_FRAMES`] for display; the bucket
/// of a recursion or a hang needs the whole walked window).
pub fn describe_frames(addresses: &[usize], cache: &mut SymbolCache) -> Vec<String> {
    let mut frames = Vec::new();
    for &ip in addresses {
        let logical = cache.frames.entry(ip).or_insert_with(|| resolve(ip));
        frames.extend(logical.iter().cloned());
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

/// A frame's function, without its source location.
pub fn function_of(frame: &str) -> &str {
    match frame.rfind(" (") {
        Some(at) if frame.ends_with(')') => &frame[..at],
        _ => frame,
    }
}

/// Whether a panic's `file:line:col` lies in the standard library (a panic without
/// `#[track_caller]` inside `core` or `alloc`), where it says nothing of the target.
fn in_library(location: &str) -> bool {
    [
        "/rustc/",
        "/library/std/",
        "/library/core/",
        "/library/alloc/",
    ]
    .iter()
    .any(|part| location.contains(part))
        || location.starts_with("library/")
}

/// A fault's bucket: its signature, and what it was computed from in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// The hash that names the bucket.
    pub signature: u64,
    /// What it was computed from, in words.
    pub location: String,
    /// A stack overflow's recurring functions, sorted (see `Fault::recursion`).
    pub recursion: Vec<String>,
}

/// What a fault is bucketed by. No message takes part: messages quote the input, name its
/// words, give indices and lengths, and no masking of quotes and digits catches a word of the
/// input printed bare, so one assertion would be as many "bugs" as inputs that fail it.
///
/// - A panic: its `panic!` location and the function it is in; a location inside the standard
///   library counts as the innermost frame of the target instead.
/// - A crash: the innermost frame of the target with its line (the abort or the faulting
///   access).
/// - A stack overflow: the recursion, as the set of functions that occur more than once in
///   the walked frames, whatever the depth and wherever in the cycle the stack ran out.
/// - A wrong answer (round trip, differential): the oracle's class of violation, passed as
///   `location`.
/// - A hang or an out-of-memory: the computation that does not end, found in the stack
///   samples taken during the run (`samples`, see `feedback::stack_samples`). When every
///   sample stopped inside a recursion of one function, that recursion. Otherwise the
///   innermost frame outside any recursion that is one activation through all of them (its
///   function's entry counter did not move), so that a timer landing in one of three helpers
///   of a loop, or a loop whose every sample is inside the helper it calls, is still the loop;
///   failing that, a recursion deeper than the walk by its cycle. Otherwise (one sample, or
///   no counters), the innermost function every sample holds, one with an entry counter
///   first; without samples, the innermost function of the target on the stack. Frames with
///   neither a counter nor a source location (a PLT stub named after the symbol before it)
///   make no recursion.
pub fn bucket(
    kind: FaultKind,
    location: Option<&str>,
    frames: &[String],
    samples: &[SampledStack],
) -> Bucket {
    let mut recurring = Vec::new();
    let (key, location) = match kind {
        FaultKind::Panic => match location {
            Some(location) if !in_library(location) => {
                let function = frames.first().map_or("", |f| function_of(f));
                (
                    format!("{location} {function}"),
                    match function {
                        "" => location.to_string(),
                        _ => format!("{location} in {function}"),
                    },
                )
            }
            _ => {
                let top = innermost_located(frames);
                (top.to_string(), top.to_string())
            }
        },
        FaultKind::Crash => {
            let top = innermost_located(frames);
            (top.to_string(), top.to_string())
        }
        FaultKind::StackOverflow => {
            // Sorted: where in the cycle the stack ran out is chance, for the key and the words.
            let mut cycle = recursion(frames);
            cycle.sort_unstable();
            if cycle.is_empty() {
                let top = function_of(innermost_located(frames)).to_string();
                (top.clone(), format!("deep in {top}"))
            } else {
                let words = (
                    cycle.join("\n"),
                    format!("recursion through {}", cycle.join(", ")),
                );
                recurring = cycle;
                words
            }
        }
        // The oracle's class (the property and the refusal's stage), passed as the location:
        // the violation is seen in the oracle, after the target returned, so no stack of the
        // target says where it went wrong.
        FaultKind::RoundTrip | FaultKind::Differential => {
            let class = location.unwrap_or_default();
            (class.to_string(), class.to_string())
        }
        FaultKind::Timeout | FaultKind::OutOfMemory => {
            let (key, words, functions) = looping_function(samples).unwrap_or_else(|| {
                let function = function_of(innermost_located(frames));
                (function.to_string(), format!("in {function}"), Vec::new())
            });
            recurring = functions;
            (key, words)
        }
    };
    let mut h = fnv::FnvHasher::default();
    h.write(kind.to_string().as_bytes());
    h.write_u8(0);
    h.write(key.as_bytes());
    Bucket {
        signature: h.finish(),
        location,
        recursion: recurring,
    }
}

/// The bucket of a run that ended without a report of its own (no stack, no message): what it
/// ended with, in words.
pub fn bare_bucket(kind: FaultKind, how: &str) -> Bucket {
    let mut h = fnv::FnvHasher::default();
    h.write(kind.to_string().as_bytes());
    h.write_u8(0);
    h.write(how.as_bytes());
    Bucket {
        signature: h.finish(),
        location: how.to_string(),
        recursion: Vec::new(),
    }
}

/// The functions that occur more than once among `frames`, in the order of their first
/// occurrence (innermost first): a recursion's cycle, seen from wherever the stack was cut.
pub fn recursion(frames: &[String]) -> Vec<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for frame in frames {
        let function = function_of(frame);
        match counts.iter_mut().find(|(f, _)| *f == function) {
            Some((_, n)) => *n += 1,
            None => counts.push((function, 1)),
        }
    }
    counts
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(f, _)| f.to_string())
        .collect()
}

/// Whether the frames are a recursion deep enough to fill the walked window: a function that
/// occurs at least a twelfth as often as there are frames, and at least four times.
pub fn is_deep_recursion(frames: &[String]) -> bool {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for frame in frames {
        *counts.entry(function_of(frame)).or_default() += 1;
    }
    let needed = (frames.len() / 12).max(4);
    frames.len() >= 24 && counts.values().any(|&n| n >= needed)
}

/// A stack sample, symbolized: its calls, innermost first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampledStack {
    /// The calls, innermost first.
    pub calls: Vec<SampledCall>,
}

/// One call (a frame of the machine stack) of a [`SampledStack`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampledCall {
    /// The target's functions at this frame, innermost first (several where calls were
    /// inlined; none for the machinery).
    pub functions: Vec<String>,
    /// The function's entry counter and its value when the sample was taken, when known.
    pub entry: Option<(u32, u8)>,
    /// The sum of the function's block counters when the sample was taken, where `entry` is
    /// known.
    pub body: Option<u32>,
}

/// The computation a hang did not leave, from the samples of its run (see [`bucket`]): the key
/// and the words for it, and the functions of the recursion it is in (none for a loop).
fn looping_function(samples: &[SampledStack]) -> Option<(String, String, Vec<String>)> {
    // The later half of the samples: the run's first sample is kept whatever else is thinned
    // out, and it may precede the loop (a program that first counted to a large even number,
    // then to an odd one, had its first sample in the first count, and the hang was named
    // after the function around both; one bug became two buckets in CI).
    let samples = match samples.len() {
        0..4 => samples,
        n => &samples[n / 2..],
    };
    let last = samples.last()?;
    let holds = |sample: &SampledStack, function: &str| {
        sample
            .calls
            .iter()
            .any(|call| call.functions.iter().any(|f| function_of(f) == function))
    };
    let shared = |function: &str| samples.iter().all(|sample| holds(sample, function));
    // Every sample stopped inside a recursion of one function: the time goes there, however
    // the recursion was reached (a minifier folding a long chain of unary operators from
    // whatever statement holds it). Innermost among the frames that surely are the target's.
    fn innermost(sample: &SampledStack) -> Option<&str> {
        sample
            .calls
            .iter()
            .flat_map(|call| call.functions.iter().filter(|f| surely_target(call, f)))
            .map(|f| function_of(f))
            .next()
    }
    let recurs_in = |sample: &SampledStack, function: &str| {
        sample
            .calls
            .iter()
            .flat_map(|call| call.functions.iter())
            .filter(|f| function_of(f) == function)
            .nth(1)
            .is_some()
    };
    if samples.len() >= 2
        && samples
            .iter()
            .all(|sample| innermost(sample).is_some_and(|function| recurs_in(sample, function)))
        && let Some(function) =
            shared_innermost_recursion(samples, |sample| Some(sample.calls.len()))
    {
        return Some(recursion_bucket(vec![function]));
    }
    // One activation through all the samples: the entry counter is in each, at one value.
    let lasted = |entry: u32, count: u8| {
        samples.len() >= 2
            && samples.iter().all(|sample| {
                let mut counts = sample
                    .calls
                    .iter()
                    .filter_map(|call| call.entry.filter(|&(e, _)| e == entry))
                    .peekable();
                counts.peek().is_some() && counts.all(|(_, c)| c == count)
            })
    };
    // A machine function with several frames on the last sample is a recursion's: its
    // outer frames last while the inner ones come and go, so a lasting one of them is the
    // recursion, not a loop of its own.
    let recurs = |entry: u32| {
        last.calls
            .iter()
            .filter(|call| call.entry.is_some_and(|(e, _)| e == entry))
            .count()
            > 1
    };
    for call in &last.calls {
        let Some((entry, count)) = call.entry else {
            continue;
        };
        if lasted(entry, count)
            && !recurs(entry)
            && let Some(function) = lasting_function(samples, entry)
        {
            // A lasting frame none of whose own code ran between the samples is stuck in one
            // call: a walker of the program waiting on a slow recursion below it is not the
            // computation, or one bug would be named after every statement that holds it.
            if !progressed(samples, entry)
                && let Some(below) =
                    shared_innermost_recursion(samples, |sample| position_of(sample, entry))
            {
                return Some(recursion_bucket(vec![below]));
            }
            return Some((function.to_string(), format!("in {function}"), Vec::new()));
        }
    }
    // No frame outside a recursion lasted within the walked frames: a recursion deeper than
    // the walk, whose outermost call is out of sight. Its cycle is the computation, as for a
    // stack overflow: which of its functions a sample ends in is chance.
    // Only frames that surely are the target's (see `surely_target`).
    let frames: Vec<String> = last
        .calls
        .iter()
        .flat_map(|call| {
            call.functions
                .iter()
                .filter(|f| surely_target(call, f))
                .cloned()
        })
        .collect();
    let cycle: Vec<String> = recursion(&frames)
        .into_iter()
        .filter(|f| shared(f))
        .collect();
    if !cycle.is_empty() {
        return Some(recursion_bucket(cycle));
    }
    // Of the functions every sample holds, the innermost one of the target's own instrumented
    // code (a frame with an entry counter), when there is one. A hang that kept one sample
    // (a short timeout on a loaded machine) otherwise takes the name of whatever
    // uninstrumented helper the timer landed in: a standard-library or dependency function
    // the linker merged with an identical one of another crate, named after that other one
    // (seen: `<gimli::read::abbrev::Attributes as Deref>::deref` and a `tracing` closure for
    // a loop that only allocated), so one hang became three buckets in CI.
    // Without counters, a function with a source location first (the one sample may be the
    // stack the run ended in, see `describe`).
    let located = |f: &&String| is_located(f) && shared(function_of(f));
    innermost_shared(
        last.calls.iter().filter(|call| call.entry.is_some()),
        &shared,
    )
    .or_else(|| {
        last.calls
            .iter()
            .flat_map(|call| call.functions.iter())
            .find(located)
            .map(|f| function_of(f))
    })
    .or_else(|| innermost_shared(last.calls.iter(), &shared))
    .map(|f| (f.to_string(), format!("in {f}"), Vec::new()))
}

/// Whether `function`, one of `call`'s, surely is the target's: its machine function has an
/// entry counter, or it has a source location. An address without a symbol of its own (a PLT
/// stub) is named after the symbol before it, often `main`; with `main` itself at the stack's
/// bottom, a single sample of a loop read as "a recursion of main".
fn surely_target(call: &SampledCall, function: &str) -> bool {
    call.entry.is_some() || is_located(function)
}

/// The call of machine function `entry` in a sample (its innermost frame), by position.
fn position_of(sample: &SampledStack, entry: u32) -> Option<usize> {
    sample
        .calls
        .iter()
        .position(|call| call.entry.is_some_and(|(e, _)| e == entry))
}

/// Whether any code of machine function `entry` itself ran between the samples: the sum of
/// its block counters differs between two of them. Where a sample lacks the sum, it is
/// taken to have run (the rule then stays what it is without block counters).
fn progressed(samples: &[SampledStack], entry: u32) -> bool {
    let bodies: Vec<Option<u32>> = samples
        .iter()
        .map(|sample| position_of(sample, entry).and_then(|k| sample.calls[k].body))
        .collect();
    bodies.iter().any(Option::is_none) || bodies.windows(2).any(|pair| pair[0] != pair[1])
}

/// The innermost recursion that every sample shares within its first `within(sample)` calls,
/// by its function on most frames: of the functions that occur more than once there in every
/// sample, those that wrap no other of them (every occurrence of the other lies inside every
/// occurrence of it, in every sample). The traversal recursions around a slow fold (an
/// expression walker, as deep as the program nests) are not the computation, and which
/// function of a mutual recursion a sample stopped in is chance. `None` when the samples
/// share none.
fn shared_innermost_recursion(
    samples: &[SampledStack],
    within: impl Fn(&SampledStack) -> Option<usize>,
) -> Option<String> {
    let mut regions: Vec<Vec<&str>> = Vec::with_capacity(samples.len());
    for sample in samples {
        regions.push(
            sample.calls[..within(sample)?]
                .iter()
                .flat_map(|call| call.functions.iter())
                .map(|f| function_of(f))
                .collect(),
        );
    }
    let recurring = |region: &[&str], f: &str| region.iter().filter(|&&g| g == f).nth(1).is_some();
    let first = regions.first()?;
    let mut shared: Vec<&str> = first
        .iter()
        .copied()
        .filter(|f| regions.iter().all(|region| recurring(region, f)))
        .collect();
    shared.sort_unstable();
    shared.dedup();
    // Innermost first: `wraps(f, g)` when g's outermost occurrence is inside f's innermost.
    let wraps = |f: &str, g: &str| {
        regions.iter().all(|region| {
            let innermost_f = region.iter().position(|&x| x == f);
            let outermost_g = region.iter().rposition(|&x| x == g);
            matches!((innermost_f, outermost_g), (Some(f), Some(g)) if g < f)
        })
    };
    // Of the inner recursion's functions, the one on most frames: which others a turn of it
    // passes through (a closure, a `try_map` over the children) varies with the input's
    // shape, the function that recurs does not.
    let occurrences = |f: &str| -> usize {
        regions
            .iter()
            .map(|region| region.iter().filter(|&&g| g == f).count())
            .sum()
    };
    // Functions of a mutual recursion are on about as many frames each, and which one is
    // ahead by a frame depends on where the samples stopped: within a tenth of the most, the
    // first by name.
    let inner: Vec<&str> = shared
        .iter()
        .copied()
        .filter(|&f| !shared.iter().any(|&g| g != f && wraps(f, g)))
        .collect();
    let most = inner.iter().map(|&f| occurrences(f)).max()?;
    inner
        .into_iter()
        .find(|&f| occurrences(f) * 10 >= most * 9)
        .map(str::to_string)
}

/// The key and the words of a hang inside a recursion of `functions`, and the functions,
/// sorted: one key for one cycle of functions however it was reached.
fn recursion_bucket(mut functions: Vec<String>) -> (String, String, Vec<String>) {
    functions.sort_unstable();
    functions.dedup();
    let (key, words) = match functions.as_slice() {
        [function] => (
            format!("recursion {function}"),
            format!("in a recursion of {function}"),
        ),
        _ => (
            functions.join("\n"),
            format!("in a recursion through {}", functions.join(", ")),
        ),
    };
    (key, words, functions)
}

/// The function the lasting machine function `entry` was in through all the samples: of the
/// functions inlined at its frame, outermost first, the last one every sample agrees on (where
/// inside it the samples stopped varies; the outer part does not).
fn lasting_function(samples: &[SampledStack], entry: u32) -> Option<&str> {
    let chains: Vec<Vec<&str>> = samples
        .iter()
        .filter_map(|sample| {
            sample
                .calls
                .iter()
                .find(|call| call.entry.is_some_and(|(e, _)| e == entry))
        })
        .map(|call| {
            call.functions
                .iter()
                .rev()
                .map(|f| function_of(f))
                .collect()
        })
        .collect();
    let first = chains.first()?;
    let agreed = chains.iter().fold(first.len(), |n, chain| {
        n.min(first.iter().zip(chain).take_while(|(a, b)| a == b).count())
    });
    agreed.checked_sub(1).map(|last| first[last])
}

/// The innermost function of `calls` that `shared` holds.
fn innermost_shared<'a>(
    calls: impl Iterator<Item = &'a SampledCall>,
    shared: &dyn Fn(&str) -> bool,
) -> Option<&'a str> {
    calls
        .flat_map(|call| call.functions.iter())
        .map(|f| function_of(f))
        .find(|f| shared(f))
}

/// The innermost frame that surely belongs to the target: one with a source location, or one
/// without whose crate some located frame of the same stack belongs to (a target function
/// stopped at an address its line table does not cover). A timer can also stop the target
/// inside code without debug information (a libc string routine, a PLT stub), whose address
/// the symbolizer names after whatever symbol precedes it (`main`, a function of the
/// unwinder); that name varies with where the timer landed, so one hang would get one
/// signature per landing place. The innermost frame when none qualifies.
fn innermost_located(frames: &[String]) -> &str {
    let located = |frame: &&String| is_located(frame);
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

/// Whether a frame names its source location (`function (file:line)`).
fn is_located(frame: &str) -> bool {
    frame.ends_with(')') && frame.contains(" (")
}

/// The first path segment of a frame's function (`mycrate` of `<mycrate::Ty as
/// core::fmt::Display>::fmt`); empty for a name without a path (`main`).
fn crate_of(frame: &str) -> &str {
    let name = frame.trim_start_matches('<');
    name.split_once("::").map_or("", |(first, _)| first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(list: &[&str]) -> Vec<String> {
        list.iter().map(|f| f.to_string()).collect()
    }

    fn signature(kind: FaultKind, frames: &[String]) -> u64 {
        bucket(kind, None, frames, &[]).signature
    }

    #[test]
    fn a_crash_is_its_innermost_frame_not_its_callers() {
        let a = frames(&["f (a.rs:1)", "g (a.rs:2)", "main (a.rs:4)"]);
        let b = frames(&["f (a.rs:1)", "h (a.rs:9)"]);
        let c = frames(&["f (a.rs:7)", "g (a.rs:2)"]);
        assert_eq!(
            signature(FaultKind::Crash, &a),
            signature(FaultKind::Crash, &b)
        );
        assert_ne!(
            signature(FaultKind::Crash, &a),
            signature(FaultKind::Crash, &c)
        );
        assert_ne!(
            signature(FaultKind::Crash, &a),
            signature(FaultKind::OutOfMemory, &a)
        );
    }

    #[test]
    fn a_panic_is_its_location_and_function_whatever_its_message_or_callers() {
        let a = frames(&["t::f (x.rs:1)", "t::g (x.rs:2)"]);
        let b = frames(&["t::f (x.rs:1)", "t::h (x.rs:9)", "t::g (x.rs:2)"]);
        let panic = |location: &str, frames: &[String]| {
            bucket(FaultKind::Panic, Some(location), frames, &[])
        };
        assert_eq!(panic("x.rs:1:5", &a), panic("x.rs:1:5", &b));
        assert_ne!(
            panic("x.rs:1:5", &a).signature,
            panic("x.rs:2:5", &a).signature
        );
        assert_eq!(panic("x.rs:1:5", &a).location, "x.rs:1:5 in t::f");
        // A panic inside the standard library is placed at the target's innermost frame.
        let in_core = |frames: &[String]| {
            bucket(
                FaultKind::Panic,
                Some("/rustc/0123/library/core/src/str/mod.rs:68:5"),
                frames,
                &[],
            )
        };
        assert_eq!(in_core(&a).location, "t::f (x.rs:1)");
        assert_ne!(in_core(&a), in_core(&frames(&["t::k (x.rs:3)"])));
    }

    #[test]
    fn a_stack_overflow_is_its_recursion_wherever_the_stack_ran_out() {
        let deep = |start: usize, depth: usize| {
            let cycle = [
                "p::expr (p.rs:10)",
                "p::unary (p.rs:20)",
                "p::primary (p.rs:30)",
            ];
            let mut list = vec!["p::peek (p.rs:5)".to_string()];
            list.extend((start..start + depth).map(|i| cycle[i % 3].to_string()));
            list
        };
        let one = bucket(FaultKind::StackOverflow, None, &deep(0, 60), &[]);
        let other = bucket(FaultKind::StackOverflow, None, &deep(2, 90), &[]);
        assert_eq!(one.signature, other.signature);
        assert_eq!(
            one.location,
            "recursion through p::expr, p::primary, p::unary"
        );
        let direct = frames(&["p::list (p.rs:1)"; 40]);
        assert_ne!(
            bucket(FaultKind::StackOverflow, None, &direct, &[]).signature,
            one.signature
        );
        assert!(is_deep_recursion(&deep(0, 60)));
        assert!(is_deep_recursion(&direct));
        assert!(!is_deep_recursion(&frames(&[
            "a (x.rs:1)",
            "b (x.rs:2)",
            "a (x.rs:1)"
        ])));
    }

    /// A sample of a loop in `t::spin` calling `t::step` (entry counter 1), which calls `leaf`,
    /// taken when `t::step` had been entered `steps` times.
    fn sample(leaf: &[&str], steps: u8) -> SampledStack {
        let call = |functions: &[&str], entry: Option<(u32, u8)>, body: Option<u32>| SampledCall {
            functions: frames(functions),
            entry,
            body,
        };
        let mut calls = Vec::new();
        if !leaf.is_empty() {
            calls.push(call(leaf, None, None));
        }
        calls.push(call(
            &["t::step (a.rs:5)"],
            Some((1, steps)),
            Some(steps.into()),
        ));
        calls.push(call(&[], None, None));
        // The loop's own blocks run between the samples; its caller's do not.
        calls.push(call(
            &["t::spin (a.rs:10)"],
            Some((2, 1)),
            Some(u32::from(steps) * 3),
        ));
        calls.push(call(&["t::check (a.rs:20)"], Some((3, 1)), Some(40)));
        SampledStack { calls }
    }

    /// A hang with one sample: the timer landed in library code the linker merged with another
    /// crate's identical function, and that code is named after the other crate, with or without
    /// a source location. The hang is the target's instrumented code around it, not the name.
    #[test]
    fn a_hang_with_one_sample_is_named_after_the_instrumented_code_the_timer_landed_under() {
        let hang = |samples: &[SampledStack]| bucket(FaultKind::Timeout, None, &[], samples);
        let merged = hang(&[sample(
            &["<gimli::read::abbrev::Attributes as core::ops::deref::Deref>::deref"],
            3,
        )]);
        let closure = hang(&[sample(&["{closure#0} (tracing/src/macros.rs:914)"], 40)]);
        let in_step = hang(&[sample(&[], 7)]);
        assert_eq!(merged.location, "in t::step");
        assert_eq!(merged, closure);
        assert_eq!(merged, in_step);
        // A timer in a PLT stub, which has no symbol of its own and is named after the one
        // before it: with `main` at the bottom of the stack too, no recursion of `main`.
        let in_a_stub = |samples: usize| {
            let mut stub = sample(&["main"], 9);
            stub.calls.push(SampledCall {
                functions: frames(&["main"]),
                entry: None,
                body: None,
            });
            hang(&vec![stub; samples])
        };
        assert_eq!(in_a_stub(1), merged);
        assert_eq!(in_a_stub(3).location, "in t::step");
        // No counters at all (a target built without the PC table): the innermost function
        // with a source location, not the merged helper without one.
        let uncounted = SampledStack {
            calls: [
                "<gimli::Attributes as core::ops::deref::Deref>::deref",
                "t::spin (a.rs:10)",
                "main",
            ]
            .map(|f| SampledCall {
                functions: frames(&[f]),
                entry: None,
                body: None,
            })
            .to_vec(),
        };
        assert_eq!(hang(&[uncounted]).location, "in t::spin");
    }

    #[test]
    fn a_hang_is_the_loop_every_sample_is_inside_wherever_the_timer_landed() {
        let hang = |samples: &[SampledStack]| bucket(FaultKind::Timeout, None, &[], samples);
        let landed = vec![
            sample(&["t::a (a.rs:1)"], 3),
            sample(&["t::b (a.rs:2)"], 90),
            sample(&["t::c (a.rs:3)"], 17),
        ];
        assert_eq!(hang(&landed).location, "in t::spin");
        // The first sample in an earlier call of the loop, which ended: still this call's loop.
        let mut earlier = sample(&["t::a (a.rs:1)"], 250);
        earlier.calls[3].entry = Some((2, 0));
        let mut after_an_earlier_call = vec![earlier];
        after_an_earlier_call.extend([5, 60, 90, 140, 200].map(|steps| sample(&[], steps)));
        assert_eq!(hang(&after_an_earlier_call), hang(&landed));
        // Every sample inside the helper the loop calls: its counter moved, the loop's did not.
        let inside = vec![sample(&[], 4), sample(&[], 200), sample(&[], 31)];
        assert_eq!(hang(&inside), hang(&landed));
        // Without counters: the innermost function every sample holds.
        let bare = |sample: SampledStack| SampledStack {
            calls: sample
                .calls
                .into_iter()
                .map(|c| SampledCall {
                    entry: None,
                    body: None,
                    ..c
                })
                .collect(),
        };
        let uncounted: Vec<SampledStack> = landed.iter().cloned().map(bare).collect();
        assert_eq!(hang(&uncounted).location, "in t::step");
        // A recursion deeper than the walk, nothing lasting in sight: its cycle, wherever in
        // it the samples end.
        let deep = |innermost: &str, steps: u8| SampledStack {
            calls: std::iter::once(innermost)
                .chain(["t::eq", "t::eq_items"].into_iter().cycle().take(40))
                .map(|f| SampledCall {
                    functions: frames(&[&format!("{f} (a.rs:1)")]),
                    entry: Some((u32::from(f.len() as u8), steps)),
                    body: None,
                })
                .collect(),
        };
        let one = hang(&[deep("t::eq", 1), deep("t::eq_items", 2)]);
        let other = hang(&[deep("t::eq_items", 7), deep("t::eq", 9), deep("t::eq", 3)]);
        assert_eq!(one, other);
        assert_eq!(one.location, "in a recursion of t::eq");
        // A loop inlined into its caller: of the functions at the lasting frame, the outer
        // ones every sample agrees on.
        let inlined = |leaf: &str| SampledStack {
            calls: vec![SampledCall {
                functions: frames(&[leaf, "t::wait (a.rs:5)", "t::run (a.rs:9)"]),
                entry: Some((4, 1)),
                body: None,
            }],
        };
        assert_eq!(
            hang(&[inlined("t::tick (a.rs:1)"), inlined("t::carry (a.rs:2)")]).location,
            "in t::wait"
        );
        // Every sample inside a recursion of one function, whatever lasted around it.
        let folding = |context: &str, steps: u8| SampledStack {
            calls: ["t::value_type"; 30]
                .into_iter()
                .chain([context, "t::walk"])
                .map(|f| SampledCall {
                    functions: frames(&[&format!("{f} (a.rs:1)")]),
                    entry: Some((f.len() as u32, if f == context { 1 } else { steps })),
                    body: None,
                })
                .collect(),
        };
        let in_a_for = hang(&[folding("t::walk_for", 1), folding("t::walk_for", 9)]);
        let in_a_call = hang(&[folding("t::walk_call", 4), folding("t::walk_call", 7)]);
        assert_eq!(in_a_for, in_a_call);
        assert_eq!(in_a_for.location, "in a recursion of t::value_type");
        // Some samples stop in a helper of the recursion: the statement walker around it
        // lasted, but none of its own code ran (its block counters stood still), so the
        // recursion below it is the computation, whichever walker holds it.
        let walked = |walker: &str, helper: &str, steps: u8, stuck: bool| SampledStack {
            calls: std::iter::once(helper)
                .chain(["t::value_type"; 20])
                .chain([walker, "t::walk_program"])
                .map(|f| {
                    let lasting = f == walker || f == "t::walk_program";
                    SampledCall {
                        functions: frames(&[&format!("{f} (a.rs:1)")]),
                        entry: Some((f.len() as u32, if lasting { 1 } else { steps })),
                        body: Some(if lasting && stuck {
                            7
                        } else {
                            u32::from(steps)
                        }),
                    }
                })
                .collect(),
        };
        let walkers = |walker: &str, stuck: bool| {
            hang(&[
                walked(walker, "t::is_literal", 2, stuck),
                walked(walker, "t::value_type", 5, stuck),
                walked(walker, "t::value_type", 9, stuck),
            ])
        };
        assert_eq!(walkers("t::walk_for", true), in_a_for);
        assert_eq!(walkers("t::walk_member", true), in_a_for);
        // The slow recursion is the innermost one: the expression walker's recursion around
        // it, as deep as the program nests, is not part of the bug.
        let nested = |cycle: &[&str], walkers: usize, steps: u8| SampledStack {
            calls: cycle
                .iter()
                .copied()
                .cycle()
                .take(12)
                .chain(
                    ["t::walk_expression", "t::walk_unary"]
                        .into_iter()
                        .cycle()
                        .take(walkers),
                )
                .chain(["t::walk_statement"])
                .map(|f| SampledCall {
                    functions: frames(&[&format!("{f} (a.rs:1)")]),
                    entry: Some((
                        f.len() as u32,
                        if f == "t::walk_statement" { 1 } else { steps },
                    )),
                    body: Some(if f == "t::walk_statement" {
                        3
                    } else {
                        steps.into()
                    }),
                })
                .collect(),
        };
        let folds = hang(&[
            nested(&["t::to_boolean", "t::evaluate"], 4, 1),
            nested(&["t::evaluate", "t::to_boolean"], 8, 2),
        ]);
        assert_eq!(
            folds.location, "in a recursion of t::evaluate",
            "the function on most frames; ties by name"
        );
        assert_eq!(
            folds,
            hang(&[
                nested(&["t::evaluate", "t::to_boolean"], 2, 5),
                nested(&["t::evaluate", "t::to_boolean"], 6, 6),
            ])
        );
        // A loop whose own code runs between the samples is the computation, whatever
        // recursion it calls: a fixed point that never comes.
        assert_eq!(
            walkers("t::solve_to_fixed_point", false).location,
            "in t::solve_to_fixed_point"
        );
        // Without samples: the innermost function, at whatever line the timer stopped it.
        let alone = |list: &[&str]| bucket(FaultKind::Timeout, None, &frames(list), &[]);
        assert_eq!(
            alone(&["t::f (a.rs:1)", "t::g (a.rs:2)"]),
            alone(&["t::f (a.rs:7)", "t::g (a.rs:2)"])
        );
        // Frames without a source location, named after the nearest symbol, do not count.
        assert_eq!(
            alone(&["main", "t::f (a.rs:1)"]),
            alone(&[
                "<gimli::Attributes as core::ops::Deref>::deref",
                "t::f (a.rs:1)"
            ])
        );
        // But a frame of the target's own crate without a line counts: it is the loop.
        assert_ne!(
            alone(&["t::f", "t::g (a.rs:2)"]),
            alone(&["main", "t::g (a.rs:2)"])
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
        assert_eq!(function_of("t::f (a.rs:1)"), "t::f");
        assert_eq!(function_of("main"), "main");
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
