//! Grammars written out for people and other tools. Converting only reads a [`Grammar`]; it never
//! changes one.
//!
//! `to_ebnf` writes the native format back; `to_antlr` writes an ANTLR4 grammar with a lexer
//! of its own, for ANTLR-based tools. The Nautilus rules and the fuzzingbook grammar go through
//! two steps any concatenating generator's format would share: `plain` desugars the EBNF operators, pools and
//! classes into plain context-free rules, and `text_grammar` compiles the layout pass into
//! them, so that a generator that only concatenates writes the text Bonsai would render.
//!
//! [`Grammar`]: crate::grammar::Grammar

mod antlr;
mod duplicate_context;
mod ebnf;
mod fuzzingbook;
mod nautilus;
mod plain;
mod text_grammar;
mod token_overlap;

pub use antlr::{
    AntlrGrammar, DEDENT_MARK, INDENT_MARK, MAX_SPELLED_COUNT, is_antlr_identifier, to_antlr,
};
pub use duplicate_context::{Duplicated, duplicate_context};
pub use ebnf::to_ebnf;
pub use fuzzingbook::{FuzzingbookGrammar, START as FUZZINGBOOK_START, to_fuzzingbook};
pub use nautilus::nautilus_rules;
pub use plain::CLASS_CAPACITY;
pub use text_grammar::MAX_INDENT_LEVEL;
