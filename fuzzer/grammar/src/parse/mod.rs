//! The reverse path: from text to a derivation tree to the choice sequence that replays it.
//!
//! `bonsai parse` and `bonsai import` use it to bring users' existing seed files into the
//! choice-sequence world: a parsed seed can be mutated, shrunk and replayed like any generated
//! input. The pipeline is: [`ParseInput`] (layout tokens from line structure) → Earley
//! recognizer over a desugared [`ParseTable`] → extraction of one derivation in the exact shape
//! the sampler builds → the tree's choices (`DerivationTree::choices`).
//!
//! Parsing is tolerant of layout: outside lexical rules any run of spaces and tabs (and line
//! breaks where no NEWLINE token reads them, and the grammar's separator) may precede a token,
//! while inside a lexical rule nothing may separate its pieces, and GLUE forbids whitespace on
//! both of its sides. Every text the renderer produces therefore parses, and its choices replay
//! to the identical text (see `extract` for how the derivation is chosen).
//!
//! Words are read as a tokenizer reads them. A token outside a lexical rule never ends inside
//! a word of a pool's language (`iffy` is one name, not `if` and `fy`), and a keyword the
//! grammar does not list as `%reserved` is a keyword only where some item expects it, as
//! tree-sitter lexes its keywords: elsewhere it is a name (Python's `x.match`, `for _ in`).
//!
//! Known limits: in grammars with INDENT/DEDENT every line break is a NEWLINE, so a token
//! cannot span lines and brackets do not join lines as in Python; GLUE constrains only the
//! production it is written in; right-recursive rules cost time quadratic in their nesting (no
//! Leo items), and extraction refuses inputs nesting deeper than [`MAX_NESTING`] rules. Chains
//! of a rule's own binary operators (`expr = expr "+" expr`), ambiguous and once cubic, are
//! read one way only and cost linear time (see `table`); other ambiguity can still cost more.

mod chart;
mod earley;
mod extract;
mod input;
mod parse_error;
#[allow(clippy::module_inception)]
mod parser;
mod pool_renamer;
mod rejection;
mod scan_queue;
mod scanner;
mod table;

pub use extract::MAX_NESTING;
pub use input::ParseInput;
pub use parse_error::ParseError;
pub use parser::{ParseOptions, Parsed, Parser, PoolWords};
pub use pool_renamer::Rename;
pub use table::ParseTable;

/// Runs `work` on a thread with a large stack: extraction and replay recurse as deep as the
/// seed nests (up to `parse::MAX_NESTING` rules), deeper than a default stack allows.
pub fn with_large_stack<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    const STACK: usize = 512 << 20;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(scope, work)
            .map(|handle| handle.join())
            .unwrap_or_else(|_| panic!("cannot start a parsing thread"))
            .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
    })
}
