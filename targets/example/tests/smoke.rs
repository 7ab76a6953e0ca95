//! 1,000 programs from letcalc.ebnf: the example compiler never crashes, and every refusal
//! comes from a phase it names (the grammar cannot express unbound names or overflow away).

use std::path::Path;

use bonsai::grammar::Grammar;
use bonsai::sampler::Bounds;
use bonsai::target::{UNSTAGED, ValidityReport};
use bonsai_target_example::Example;

#[test]
fn generated_programs_run_without_crashing() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("letcalc.ebnf");
    let grammar = Grammar::from_file(&path).expect("the example grammar loads");
    let bounds = Bounds::new(3, 3, 3).unwrap();
    let validity = ValidityReport::measure(&mut Example, &grammar, bounds, 1000, 1).unwrap();
    assert!(validity.crashes.is_empty(), "{:#?}", validity.crashes);
    // The grammar describes the language exactly, so nothing fails to parse.
    assert_eq!(validity.refused_at("parse"), 0, "{validity:#?}");
    assert_eq!(validity.refused_at(UNSTAGED), 0, "{validity:#?}");
    assert!(
        validity.valid > 0 && validity.refused_at("scope") > 0,
        "{validity:#?}"
    );
}
