//! Grammars written out for people and other tools. Export only reads a [`Grammar`]; it never
//! changes one.
//!
//! [`Grammar`]: crate::grammar::Grammar

mod ebnf;

pub use ebnf::to_ebnf;
