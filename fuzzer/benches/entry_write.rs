//! What writing a new queue entry costs, through a temporary file and a rename per file
//! (`Durability::Unsynced`, every queue entry until 884cc0b) against choices and text written
//! in place and only the `.meta` renamed (`Durability::InPlaceUntilMeta`, the queue's now).
//!
//! The first minutes of a run save an entry every twenty executions or so, so this cost is
//! part of the loop's. It depends on the file system more than on anything in the engine: the
//! entries go to `BONSAI_BENCH_DIR` (default: the system's temporary directory), so run it
//! once where a campaign's output goes (a disk) and once on a tmpfs. Batches of the two ways
//! alternate (A B A B) so that the machine's load falls on both; the table gives the mean per
//! entry of each and their ratio.
//!
//! `BONSAI_BENCH_DIR=/dev/shm cargo bench -p bonsai --bench entry_write`

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bonsai::corpus::{Durability, EntryContent, StoredEntry};

/// Entries per batch.
const BATCH: u32 = 500;
/// Alternating (renamed, in place) pairs of batches.
const PAIRS: u32 = 6;

fn main() {
    let base = std::env::var_os("BONSAI_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = tempfile::tempdir_in(&base).expect("a directory to write entries in");
    // Sizes of a starlark entry early in a run: some 900 choices (about 1.8 kB of varints),
    // a text of about 1 kB, a metadata line of about 300 bytes.
    let choices = vec![0x5au8; 1800];
    let text = vec![b'x'; 1000];
    let meta = vec![b'm'; 300];
    let content = EntryContent {
        choices: Some(&choices),
        text: &text,
        meta: Some(&meta),
    };
    let ways = [
        ("renamed", Durability::Unsynced),
        ("in place", Durability::InPlaceUntilMeta),
    ];
    let mut spent = [Duration::ZERO; 2];
    let mut number = 0u32;
    for _ in 0..PAIRS {
        for (way, (_, durability)) in ways.iter().enumerate() {
            let started = Instant::now();
            for _ in 0..BATCH {
                StoredEntry::numbered(dir.path(), number)
                    .write_all(content, *durability)
                    .expect("the entry is written");
                number += 1;
            }
            spent[way] += started.elapsed();
        }
    }
    let entries = f64::from(BATCH * PAIRS);
    println!("{} entries each way in {}", BATCH * PAIRS, base.display());
    for (way, (name, _)) in ways.iter().enumerate() {
        println!(
            "{name:>9}: {:6.1} us per entry",
            spent[way].as_secs_f64() * 1e6 / entries
        );
    }
    println!(
        "in place / renamed: {:.2}",
        spent[1].as_secs_f64() / spent[0].as_secs_f64()
    );
}
