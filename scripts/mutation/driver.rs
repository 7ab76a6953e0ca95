// The test driver of `scripts/mutation-score`: compiled together with one mutant of
// targets/example/src/letcalc.rs (as `letcalc.rs` beside it), it runs every file named on the
// command line and prints one line per file, `name<TAB>verdict`, where the verdict is what the
// example target stores as golden output (the printed value, or the error with its phase and
// position), or `panic`. Comparing these lines with the unmutated compiler's is the test
// oracle, as the paper's autograder compared a candidate compiler with the reference one.
mod letcalc;

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    for path in std::env::args().skip(1) {
        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
        let verdict = match std::fs::read(&path).map(String::from_utf8) {
            Ok(Ok(source)) => match std::panic::catch_unwind(|| letcalc::run(&source)) {
                Ok(Ok(value)) => format!("valid {value}"),
                Ok(Err(error)) => format!("invalid {error}"),
                Err(_) => "panic".to_string(),
            },
            _ => "reject".to_string(),
        };
        println!("{name}\t{}", verdict.replace('\n', " "));
    }
}
