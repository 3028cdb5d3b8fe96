//! Inserts committing out of block order, as concurrent sessions do.

use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::execution::memory_pool::UnboundedMemoryPool;
use datafusion::physical_expr::expressions::col;

use super::{MergeTreeSettings, MergeTreeTable};
use crate::compression::CodecChain;
use crate::merge_tree::TableKeys;

fn table(dir: &std::path::Path) -> MergeTreeTable {
    let schema = Arc::new(Schema::new(vec![Field::new("k", DataType::UInt64, false)]));
    let keys = TableKeys::new(vec![], vec![col("k", &schema).unwrap()], 1);
    let settings = MergeTreeSettings {
        parts_to_merge: 2,
        ..MergeTreeSettings::default()
    };
    let memory: super::MergeMemory = Arc::new(|_| Arc::new(UnboundedMemoryPool::default()));
    let codecs = vec![CodecChain::default()];
    MergeTreeTable::open(
        dir,
        schema,
        keys,
        codecs,
        Default::default(),
        memory,
        settings,
    )
    .unwrap()
}

fn rows(table: &MergeTreeTable, keys: std::ops::Range<u64>) -> RecordBatch {
    let column = Arc::new(UInt64Array::from_iter_values(keys));
    RecordBatch::try_new(Arc::clone(table.schema()), vec![column]).unwrap()
}

fn active_names(table: &MergeTreeTable) -> Vec<String> {
    table.snapshot().iter().map(|p| p.name()).collect()
}

#[test]
fn no_merge_spans_the_block_of_an_insert_still_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let table = table(dir.path());
    let insert = |keys| {
        let list = table.begin_insert();
        let parts = table.write(&list, &rows(&table, keys)).unwrap();
        (list, parts)
    };
    let (first, first_parts) = insert(0..10);
    table.commit(&first, first_parts).unwrap();
    // Block 2 is written and not committed when block 3 commits.
    let (slow, slow_parts) = insert(10..20);
    let (fast, fast_parts) = insert(20..30);
    table.commit(&fast, fast_parts).unwrap();
    assert_eq!(active_names(&table), ["all_1_1_0", "all_3_3_0"]);

    assert!(
        table.next_merge().is_none(),
        "a merge would cover all_2_2_0"
    );
    let committed = table.snapshot();
    assert!(!table.merge(&committed).unwrap());

    table.commit(&slow, slow_parts).unwrap();
    let sources = table.next_merge().expect("three adjacent parts");
    assert!(table.merge(&sources).unwrap());
    assert_eq!(active_names(&table), ["all_1_3_1"]);
    assert_eq!(table.read_all(&table.snapshot()[0]).unwrap().num_rows(), 30);
}
