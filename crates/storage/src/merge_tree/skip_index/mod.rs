//! Data-skipping indexes: `INDEX name expr TYPE minmax | set(N) |
//! bloom_filter([p]) | tokenbf_v1(...) | ngrambf_v1(...) GRANULARITY g`.
//! For each index granule (`g` granules of a part) the part keeps a
//! summary of each of the index's expressions
//! (a tuple's items, else the one expression) in `skp_idx_<name>.idx`;
//! pruning reads it after the primary key and drops the granules where no
//! row can match.
//!
//! A file holds the declaration it was built for and the expressions'
//! types, so a file left by a dropped index, or built before a column's
//! type changed, is never read for another index of the same name.

mod bloom;
mod file;
mod set;
mod text;

use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, RecordBatch, UInt32Array, UInt64Array};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::ScalarValue;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Column;
use strata_common::error::Result;
use strata_common::types::clickhouse_type_name;

use crate::part::bounds::{self, GranuleBounds};
use crate::part::escape_file_name;
use bloom::{bloom_contains, build_bloom};
use file::{corrupted, decode_summary, encode_summary, get_bytes, put_bytes};
use set::{build_set, literal_array, set_contains};
pub use text::{Need, TextBloom, TextSplit};

/// What an index keeps of each index granule's values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum IndexKind {
    /// The least and greatest value.
    MinMax,
    /// The distinct values, unless there are more than `max_values`
    /// (0: no limit).
    Set { max_values: usize },
    /// A Bloom filter of the values, sized for `false_positive`.
    BloomFilter { false_positive: f64 },
    /// A Bloom filter of the strings' tokens or n-grams.
    Text(TextBloom),
}

/// A declared index, compiled against the table's columns.
#[derive(Debug, Clone)]
pub struct SkipIndexKey {
    pub name: String,
    /// The expressions whose values the index summarizes.
    pub exprs: Vec<Arc<dyn PhysicalExpr>>,
    pub kind: IndexKind,
    /// Granules per index granule.
    pub granularity: usize,
    /// The declaration as SHOW CREATE TABLE prints it.
    pub definition: String,
}

/// Summaries of one expression, one row per index granule.
#[derive(Debug)]
enum Summary {
    /// A type the index keeps nothing of.
    Unknown,
    MinMax(GranuleBounds),
    /// `counts[g]` values of `values` for index granule `g`, in order;
    /// `u32::MAX` where there were more than the set may hold.
    Set {
        counts: UInt32Array,
        values: ArrayRef,
    },
    /// `hashes` probes per value; index granule `g`'s bits are `words`
    /// `starts[g]..starts[g + 1]`.
    Bloom {
        hashes: u32,
        starts: UInt64Array,
        words: UInt64Array,
    },
}

/// One part's index, read back.
#[derive(Debug)]
pub struct PartIndex {
    summaries: Vec<Summary>,
    /// Each expression's type.
    types: Vec<DataType>,
    granularity: usize,
}

impl SkipIndexKey {
    /// The index's type and granularity, as EXPLAIN shows them.
    pub fn description(&self) -> String {
        let kind = match self.kind {
            IndexKind::MinMax => "minmax",
            IndexKind::Set { .. } => "set",
            IndexKind::BloomFilter { .. } => "bloom_filter",
            IndexKind::Text(TextBloom {
                split: TextSplit::Tokens,
                ..
            }) => "tokenbf_v1",
            IndexKind::Text(TextBloom {
                split: TextSplit::NGrams(_),
                ..
            }) => "ngrambf_v1",
        };
        format!("{kind} GRANULARITY {}", self.granularity)
    }

    pub fn file_name(&self) -> String {
        index_file_name(&self.name)
    }

    /// Table columns the index reads.
    pub fn columns(&self) -> Vec<usize> {
        let mut columns: Vec<usize> = self
            .exprs
            .iter()
            .flat_map(|e| datafusion::physical_expr::utils::collect_columns(e))
            .map(|c| c.index())
            .collect();
        columns.sort_unstable();
        columns.dedup();
        columns
    }

    /// The declaration and the expressions' types (NULLs or not, which
    /// the stored values do not depend on): what a file must have been
    /// built for to be read.
    pub(crate) fn signature(&self, schema: &Schema) -> Result<String> {
        let mut signature = self.definition.clone();
        for expr in &self.exprs {
            signature.push('\n');
            signature.push_str(&clickhouse_type_name(&expr.data_type(schema)?, false));
        }
        Ok(signature)
    }

    /// Index granules of a part whose granules hold `granules` rows each,
    /// as row ranges.
    fn index_granules(&self, granules: &[usize]) -> Vec<Range<usize>> {
        let mut ranges = Vec::new();
        let mut start = 0;
        for chunk in granules.chunks(self.granularity.max(1)) {
            let rows: usize = chunk.iter().sum();
            ranges.push(start..start + rows);
            start += rows;
        }
        ranges
    }

    /// The index file for a part of the rows of `batch` (the table's
    /// columns), in granules of `granules` rows.
    pub fn build(&self, batch: &RecordBatch, granules: &[usize]) -> Result<Vec<u8>> {
        let ranges = self.index_granules(granules);
        let mut out = Vec::new();
        put_bytes(&mut out, self.signature(&batch.schema())?.as_bytes());
        for expr in &self.exprs {
            let values = expr.evaluate(batch)?.into_array(batch.num_rows())?;
            let summary = match self.kind {
                IndexKind::MinMax => {
                    let rows: Vec<usize> = ranges.iter().map(Range::len).collect();
                    bounds::compute(&values, &rows)?.map_or(Summary::Unknown, Summary::MinMax)
                }
                IndexKind::Set { max_values } => build_set(&values, &ranges, max_values)?,
                IndexKind::BloomFilter { false_positive } => {
                    build_bloom(&values, &ranges, false_positive)
                }
                IndexKind::Text(shape) => shape.build(&values, &ranges),
            };
            encode_summary(&summary, &mut out)?;
        }
        Ok(out)
    }

    /// The index of a part with `granules` granules, from its file's
    /// `bytes`; `None` if the file was built for another declaration.
    pub fn decode(
        &self,
        schema: &Schema,
        bytes: &[u8],
        granules: usize,
    ) -> Result<Option<PartIndex>> {
        let mut rest = bytes;
        if get_bytes(&mut rest)? != self.signature(schema)?.as_bytes() {
            return Ok(None);
        }
        let index_granules = granules.div_ceil(self.granularity.max(1));
        let mut summaries = Vec::with_capacity(self.exprs.len());
        let mut types = Vec::with_capacity(self.exprs.len());
        for expr in &self.exprs {
            let data_type = expr.data_type(schema)?;
            let summary = decode_summary(&mut rest, &data_type, index_granules)?;
            if summary.rows().is_some_and(|rows| rows != index_granules) {
                return Err(corrupted(
                    "an index summary has the wrong number of granules",
                ));
            }
            summaries.push(summary);
            types.push(data_type);
        }
        Ok(Some(PartIndex {
            summaries,
            types,
            granularity: self.granularity.max(1),
        }))
    }

    /// `filter` with each of the index's expressions that is not a plain
    /// column replaced by a column after `schema`'s: what pruning by this
    /// index evaluates. `None` if the filter reads none of the expressions.
    ///
    /// An expression matches where it reads the same (a query types its
    /// literals as ClickHouse does, a definition as DataFusion does) and
    /// has the same type, or both are numbers, whose order survives a cast.
    pub fn rewrite(
        &self,
        schema: &Schema,
        filter: &Arc<dyn PhysicalExpr>,
    ) -> Result<Option<IndexFilter>> {
        use datafusion::common::tree_node::{Transformed, TreeNode};
        let mut fields: Vec<_> = schema.fields().iter().cloned().collect();
        let mut columns = Vec::with_capacity(self.exprs.len());
        let mut predicate = Arc::clone(filter);
        for (i, expr) in self.exprs.iter().enumerate() {
            let expr_type = expr.data_type(schema)?;
            if let Some(column) = expr.downcast_ref::<Column>() {
                columns.push((column.name().to_string(), expr_type));
                continue;
            }
            let name = format!("__skip_index_{}_{i}", self.name);
            let replacement: Arc<dyn PhysicalExpr> = Arc::new(Column::new(&name, fields.len()));
            let text = expr.to_string();
            let mut matched: Option<DataType> = None;
            predicate = predicate
                .transform_down(|node| {
                    if node.to_string() != text {
                        return Ok(Transformed::no(node));
                    }
                    let node_type = node.data_type(schema)?;
                    let comparable =
                        node_type == expr_type || (is_number(&node_type) && is_number(&expr_type));
                    if !comparable || matched.as_ref().is_some_and(|t| *t != node_type) {
                        return Ok(Transformed::no(node));
                    }
                    matched = Some(node_type);
                    Ok(Transformed::yes(Arc::clone(&replacement)))
                })?
                .data;
            let data_type = matched.unwrap_or(expr_type);
            fields.push(Arc::new(Field::new(&name, data_type.clone(), true)));
            columns.push((name, data_type));
        }
        let read = datafusion::physical_expr::utils::collect_columns(&predicate);
        if !read
            .iter()
            .any(|c| columns.iter().any(|(n, _)| n == c.name()))
        {
            return Ok(None);
        }
        Ok(Some(IndexFilter {
            predicate,
            schema: Arc::new(Schema::new(fields)),
            columns,
        }))
    }
}

/// The file of a part holding skipping index `name`'s data.
pub fn index_file_name(name: &str) -> String {
    format!("skp_idx_{}.idx", escape_file_name(name))
}

/// A filter as one skipping index sees it (see [`SkipIndexKey::rewrite`]).
pub struct IndexFilter {
    pub predicate: Arc<dyn PhysicalExpr>,
    pub schema: Arc<Schema>,
    /// The column each of the index's expressions is in `predicate`, and
    /// its type there.
    pub columns: Vec<(String, DataType)>,
}

fn is_number(data_type: &DataType) -> bool {
    data_type.is_integer()
        || data_type.is_floating()
        || matches!(
            data_type,
            DataType::Decimal128(..) | DataType::Decimal256(..)
        )
}

impl Summary {
    /// Index granules the summary covers; `None` for no summary.
    fn rows(&self) -> Option<usize> {
        match self {
            Summary::Unknown => None,
            Summary::MinMax(bounds) => Some(bounds.min.len()),
            Summary::Set { counts, .. } => Some(counts.len()),
            Summary::Bloom { starts, .. } => Some(starts.len().saturating_sub(1)),
        }
    }
}

impl PartIndex {
    /// Expression `element`'s least (`upper` false) or greatest value for
    /// each of `granules` granules of the part, as `data_type`; `None` if
    /// unknown. A bound out of `data_type`'s range is unknown.
    pub fn bounds(
        &self,
        element: usize,
        upper: bool,
        granules: usize,
        data_type: &DataType,
    ) -> Option<ArrayRef> {
        let Summary::MinMax(bounds) = &self.summaries[element] else {
            return None;
        };
        let values = if upper { &bounds.max } else { &bounds.min };
        let index: UInt64Array = (0..granules)
            .map(|g| (g / self.granularity) as u64)
            .collect();
        let expanded = take(values.as_ref(), &index, None).ok()?;
        if expanded.data_type() == data_type {
            return Some(expanded);
        }
        cast(&expanded, data_type).ok()
    }

    /// For each of `granules` granules of the part: false where expression
    /// `element` has none of `values`, true where it has only them, null
    /// where unknown (as DataFusion's pruning asks).
    pub fn contained(
        &self,
        element: usize,
        values: &HashSet<ScalarValue>,
        granules: usize,
    ) -> Option<BooleanArray> {
        let wanted = literal_array(values, &self.types[element])?;
        let per_index_granule = match &self.summaries[element] {
            Summary::Set {
                counts,
                values: set,
            } => set_contains(counts, set, &wanted)?,
            Summary::Bloom {
                hashes,
                starts,
                words,
            } => bloom_contains(*hashes, starts, words, &wanted)?,
            Summary::MinMax(_) | Summary::Unknown => return None,
        };
        Some(
            (0..granules)
                .map(|g| per_index_granule[g / self.granularity])
                .collect(),
        )
    }

    /// For each of `granules` granules of the part: whether a row there may
    /// have what `need` asks of the text index's expressions.
    pub fn may_match(&self, need: &Need, granules: usize) -> Vec<bool> {
        let index_granules = granules.div_ceil(self.granularity);
        let per_index_granule: Vec<bool> = (0..index_granules)
            .map(|g| {
                need.may_match(&|element, hash| match &self.summaries[element] {
                    Summary::Bloom {
                        hashes,
                        starts,
                        words,
                    } => {
                        let range = starts.value(g) as usize..starts.value(g + 1) as usize;
                        text::filter_may_hold(&words.values()[range], *hashes, hash)
                    }
                    _ => true,
                })
            })
            .collect();
        (0..granules)
            .map(|g| per_index_granule[g / self.granularity])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::StringArray;
    use datafusion::physical_expr::expressions::col;

    /// An index on `s` over rows a, b | NULL, c | c, d (granules of two).
    fn indexed(kind: IndexKind) -> (SkipIndexKey, RecordBatch) {
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8, true)]));
        let values = StringArray::from(vec![
            Some("a"),
            Some("b"),
            None,
            Some("c"),
            Some("c"),
            Some("d"),
        ]);
        let batch = RecordBatch::try_new(Arc::clone(&schema), vec![Arc::new(values)]).unwrap();
        let key = SkipIndexKey {
            name: "i".to_string(),
            exprs: vec![col("s", &schema).unwrap()],
            kind,
            granularity: 1,
            definition: format!("INDEX i s TYPE {kind:?}"),
        };
        (key, batch)
    }

    fn strings(values: &[&str]) -> HashSet<ScalarValue> {
        values
            .iter()
            .map(|s| ScalarValue::Utf8(Some(s.to_string())))
            .collect()
    }

    #[test]
    fn sets_know_which_granules_hold_values() {
        let (key, batch) = indexed(IndexKind::Set { max_values: 2 });
        let index = key
            .decode(&batch.schema(), &key.build(&batch, &[2, 2, 2]).unwrap(), 3)
            .unwrap()
            .unwrap();
        // NULL is no value: the middle granule holds only "c".
        let found = index.contained(0, &strings(&["c"]), 3).unwrap();
        assert_eq!(
            found,
            BooleanArray::from(vec![Some(false), Some(true), None])
        );
        let found = index.contained(0, &strings(&["a", "b", "d"]), 3).unwrap();
        assert_eq!(
            found,
            BooleanArray::from(vec![Some(true), Some(false), None])
        );
        // More distinct values than the set holds (NULL takes a place too):
        // unknown.
        let (small, batch) = indexed(IndexKind::Set { max_values: 1 });
        let index = small
            .decode(
                &batch.schema(),
                &small.build(&batch, &[2, 2, 2]).unwrap(),
                3,
            )
            .unwrap()
            .unwrap();
        let found = index.contained(0, &strings(&["zz"]), 3).unwrap();
        assert_eq!(found, BooleanArray::from(vec![None, None, None]));
        let found = index.contained(0, &strings(&["c"]), 3).unwrap();
        assert_eq!(found, BooleanArray::from(vec![None, None, None]));
    }

    #[test]
    fn bloom_filters_rule_out_granules_and_files_keep_their_declaration() {
        let (key, batch) = indexed(IndexKind::BloomFilter {
            false_positive: 0.01,
        });
        let bytes = key.build(&batch, &[2, 2, 2]).unwrap();
        let index = key.decode(&batch.schema(), &bytes, 3).unwrap().unwrap();
        let found = index.contained(0, &strings(&["c"]), 3).unwrap();
        assert_eq!(found, BooleanArray::from(vec![Some(false), None, None]));
        assert!(index.bounds(0, false, 3, &DataType::Utf8).is_none());
        // The same name declared otherwise does not read the file.
        let mut other = key.clone();
        other.definition = "INDEX i s TYPE minmax".to_string();
        assert!(other.decode(&batch.schema(), &bytes, 3).unwrap().is_none());
        assert!(
            key.decode(&batch.schema(), &bytes[..bytes.len() - 1], 3)
                .is_err()
        );
    }
}
