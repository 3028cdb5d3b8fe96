//! Inserts committing out of block order, as concurrent sessions do, and
//! the granules a mutation reads.

use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::execution::memory_pool::UnboundedMemoryPool;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::{BinaryExpr, Literal, col};

use super::{MergeTreeSettings, MergeTreeTable};
use crate::compression::CodecChain;
use crate::merge_tree::{Condition, MutationCommand, Summaries, TableKeys};

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

/// A condition on a column after the key: pruning reads its analyzed form
/// through the granule bounds, whatever form rows are evaluated in (here a
/// constant true, which no summary can narrow).
#[test]
fn a_mutation_reads_the_granules_its_analyzed_condition_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::UInt64, false),
        Field::new("n", DataType::UInt64, false),
    ]));
    let keys = TableKeys::new(vec![], vec![col("k", &schema).unwrap()], 1);
    let settings = MergeTreeSettings {
        index_granularity: 8,
        ..MergeTreeSettings::default()
    };
    let memory: super::MergeMemory = Arc::new(|_| Arc::new(UnboundedMemoryPool::default()));
    let table = MergeTreeTable::open(
        dir.path(),
        Arc::clone(&schema),
        keys,
        vec![CodecChain::default(); 2],
        Default::default(),
        memory,
        settings,
    )
    .unwrap();
    // n runs down while k runs up: n's bounds, not the key, narrow it.
    let k = Arc::new(UInt64Array::from_iter_values(0..1000));
    let n = Arc::new(UInt64Array::from_iter_values((0..1000).rev()));
    let list = table.begin_insert();
    let batch = RecordBatch::try_new(Arc::clone(&schema), vec![k, n]).unwrap();
    let parts = table.write(&list, &batch).unwrap();
    table.commit(&list, parts).unwrap();
    let part = &table.snapshot()[0];

    let always: Arc<dyn PhysicalExpr> = Arc::new(Literal::new(ScalarValue::Boolean(Some(true))));
    let n_is_500: Arc<dyn PhysicalExpr> = Arc::new(BinaryExpr::new(
        col("n", &schema).unwrap(),
        Operator::Eq,
        Arc::new(Literal::new(ScalarValue::UInt64(Some(500)))),
    ));
    let granules = |condition: Condition| {
        let command = MutationCommand::Delete {
            predicate: condition,
        };
        table
            .candidate_granules(part, &[command], Summaries::Written)
            .unwrap()
    };
    // n = 500 is row 499, in granule 62 (rows 496..504).
    assert_eq!(
        granules(Condition::new(Arc::clone(&always), n_is_500)),
        [62..63]
    );
    let every: usize = granules(Condition::plain(always))
        .iter()
        .map(|range| range.len())
        .sum();
    assert_eq!(every, 125);
}

/// `DROP PART | PARTITION` takes the chosen parts away for good: a reopened
/// table does not bring them back, and the others keep their rows.
#[test]
fn dropped_parts_stay_dropped_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    {
        let table = table(dir.path());
        for keys in [0..10, 10..20, 20..30] {
            let list = table.begin_insert();
            let parts = table.write(&list, &rows(&table, keys)).unwrap();
            table.commit(&list, parts).unwrap();
        }
        let removed = table.drop_parts(|p| p.min_block == 2).unwrap();
        assert_eq!(removed, ["all_2_2_0"]);
        assert!(table.drop_parts(|p| p.min_block == 2).unwrap().is_empty());
        assert_eq!(active_names(&table), ["all_1_1_0", "all_3_3_0"]);
    }
    let reopened = table(dir.path());
    assert_eq!(active_names(&reopened), ["all_1_1_0", "all_3_3_0"]);
    let rows: usize = reopened
        .snapshot()
        .iter()
        .map(|p| reopened.read_all(p).unwrap().num_rows())
        .sum();
    assert_eq!(rows, 20);
}
