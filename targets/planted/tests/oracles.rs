//! Issue 32: the oracles run where the target runs. Targets over the planted checker with a
//! printer or a second implementation, each with one defect, run in forked children (replay,
//! reduction, export) and judged as `bonsai fuzz` judges them.

use std::time::Duration;

use bonsai::feedback::FaultKind;
use bonsai::reduce::{Candidate, Criterion, SameCrash};
use bonsai::replay::{ForkedRunner, Outcome};
use bonsai::target::{LinkedTarget, Target, Verdict, Violation, differential, round_trip};
use bonsai_target_planted::Planted;

/// The planted checker with `print` as its printer.
struct Printed {
    print: fn(&str) -> Result<String, String>,
}

impl Target for Printed {
    fn run(&mut self, input: &[u8]) -> Verdict {
        Planted.run(input)
    }

    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        let source = std::str::from_utf8(input).ok()?;
        round_trip(source, verdict, self.print, |text| {
            Planted.run(text.as_bytes())
        })
    }
}

/// A printer that drops the first `)`: a lost parenthesis.
fn drops_a_parenthesis(text: &str) -> Result<String, String> {
    Ok(text.replacen(')', "", 1))
}

fn panics_on_while(text: &str) -> Result<String, String> {
    assert!(!text.contains("while"), "the printer cannot print loops");
    Ok(text.to_string())
}

/// Prints its input followed by one more space than last time in this process.
fn grows(text: &str) -> Result<String, String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let calls = CALLS.fetch_add(1, Ordering::Relaxed);
    Ok(format!("{}{}", text.trim_end(), " ".repeat(calls % 3)))
}

/// The planted checker beside a second one that refuses two loops in a program.
struct Compared;

impl Target for Compared {
    fn run(&mut self, input: &[u8]) -> Verdict {
        Planted.run(input)
    }

    fn check(&mut self, input: &[u8], verdict: &Verdict) -> Option<Violation> {
        let source = std::str::from_utf8(input).ok()?;
        let other = match source.matches("while").count() {
            0 | 1 => Planted.run(input),
            _ => Verdict::Invalid("loops: only one loop per program".into()),
        };
        differential(("planted", verdict), ("one-loop", &other))
    }
}

fn runner(make: fn() -> Box<dyn Target>) -> ForkedRunner {
    let target = LinkedTarget {
        name: "planted",
        make,
    };
    ForkedRunner::new(target, Duration::from_millis(500)).unwrap()
}

#[test]
fn a_lost_parenthesis_is_a_round_trip_fault_with_the_print_in_its_record() {
    let mut runner = runner(|| {
        Box::new(Printed {
            print: drops_a_parenthesis,
        })
    });
    let lossy = runner.run(b"let a = (1); print a;");
    assert_eq!(lossy.outcome, Outcome::RoundTrip, "{lossy:?}");
    let fault = lossy.fault.unwrap();
    assert_eq!(fault.kind, FaultKind::RoundTrip);
    assert!(
        fault.location.starts_with("the print is refused"),
        "{fault:?}"
    );
    assert_eq!(
        fault.texts[0],
        ("print".to_string(), "let a = (1; print a;".to_string())
    );
    // Nothing to lose: no violation. An input the target refuses is not checked.
    assert_eq!(runner.run(b"let a = 1; print a;").outcome, Outcome::Valid);
    assert_eq!(runner.run(b"print (b);").outcome, Outcome::Invalid);
}

#[test]
fn a_printer_that_panics_is_a_panic_of_the_target() {
    let mut runner = runner(|| {
        Box::new(Printed {
            print: panics_on_while,
        })
    });
    let run = runner.run(b"let a = 1; while a { let a = 0; print a; }");
    assert_eq!(run.outcome, Outcome::Panic, "{run:?}");
    let fault = run.fault.unwrap();
    assert!(fault.message.contains("cannot print loops"), "{fault:?}");
    assert!(
        fault.frames.iter().any(|f| f.contains("panics_on_while")),
        "{fault:?}"
    );
}

#[test]
fn a_printer_that_is_not_deterministic_is_told_from_a_lost_token() {
    let mut runner = runner(|| Box::new(Printed { print: grows }));
    let run = runner.run(b"print 1;");
    assert_eq!(run.outcome, Outcome::RoundTrip, "{run:?}");
    assert_eq!(
        run.fault.unwrap().location,
        "the printer is not deterministic"
    );
}

#[test]
fn a_disagreement_names_the_side_that_accepted_and_reduces_to_the_same_disagreement() {
    let mut runner = runner(|| Box::new(Compared));
    let original = "let a = 1; while a { let a = 0; } print a; while 0 { print 2; }";
    let run = runner.run(original.as_bytes());
    assert_eq!(run.outcome, Outcome::Differential, "{run:?}");
    let fault = run.fault.as_ref().unwrap();
    assert_eq!(
        fault.location,
        "only planted accepts; one-loop refuses (loops)"
    );
    assert_eq!(runner.run(b"while 0 { print 2; }").outcome, Outcome::Valid);

    // The reduction's criterion keeps the disagreement, not any fault.
    let mut same = SameCrash::of_input(runner, original).unwrap();
    assert_eq!(same.fault().kind, FaultKind::Differential);
    assert!(same.holds(&Candidate::text("while 0 { } while 0 { }")));
    assert!(!same.holds(&Candidate::text("while 0 { }")));
    assert!(!same.holds(&Candidate::text("while 1 { if 1 { print 1; } }")));
}
