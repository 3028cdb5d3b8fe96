//! Replays every checked-in fuzz corpus (`fuzz/corpus/<target>/`) through its
//! target, so an input that once crashed or hung stays fixed in plain
//! `cargo test`, without libFuzzer.

use std::path::Path;

#[test]
fn corpora_replay_without_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for (name, target) in strata_fuzz::TARGETS {
        let dir = root.join(name);
        let mut inputs: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
            .map(|entry| entry.expect("a corpus entry").path())
            .collect();
        inputs.sort();
        assert!(!inputs.is_empty(), "the corpus of {name} is empty");
        for input in &inputs {
            let data = std::fs::read(input).expect("a corpus input");
            target(&data);
        }
        println!("{name}: {} inputs replayed", inputs.len());
    }
    strata_fuzz::remove_scratch();
}

/// The part seeds are real parts: the target reaches the column readers
/// rather than failing at the first check.
#[test]
fn part_seeds_read_whole() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/part");
    let mut seeds = 0;
    for entry in std::fs::read_dir(&root).expect("the part corpus") {
        let path = entry.expect("a corpus entry").path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("seed-")
        {
            let data = std::fs::read(&path).expect("a seed");
            let rows = strata_fuzz::read_part(&data);
            assert!(
                rows.as_ref().is_ok_and(|&r| r > 0),
                "{}: {rows:?}",
                path.display()
            );
            seeds += 1;
        }
    }
    assert!(seeds > 0, "no part seed");
    strata_fuzz::remove_scratch();
}
