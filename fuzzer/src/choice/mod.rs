//! Choice sequences as the engine uses them: everything in `bonsai_grammar::choice`, plus
//! [`ChoiceInput`], the fuzzer's input type. `ChoiceInput` lives here and not in the toolkit
//! because LibAFL's `Input` and `HasLen` traits must be implemented beside the type (the orphan
//! rule), and the toolkit crate is kept free of LibAFL.

mod input;

pub use bonsai_grammar::choice::*;
pub use input::ChoiceInput;
