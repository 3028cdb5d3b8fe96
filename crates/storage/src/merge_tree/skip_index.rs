//! Data-skipping indexes: `INDEX name expr TYPE minmax | set(N) |
//! bloom_filter([p]) GRANULARITY g`. For each index granule (`g` granules
//! of a part) the part keeps a summary of each of the index's expressions
//! (a tuple's items, else the one expression) in `skp_idx_<name>.idx`;
//! pruning reads it after the primary key and drops the granules where no
//! row can match.
//!
//! A file holds the declaration it was built for and the expressions'
//! types, so a file left by a dropped index, or built before a column's
//! type changed, is never read for another index of the same name.

use std::collections::HashSet;
use std::hash::Hasher;
use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, RecordBatch, UInt32Array, UInt64Array, make_array,
};
use datafusion::arrow::buffer::Buffer;
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::row::{RowConverter, SortField};
use datafusion::common::ScalarValue;
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::Column;
use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::types::clickhouse_type_name;
use twox_hash::XxHash64;

use crate::compression::{Codec, read_block, write_block};
use crate::part::array_bytes;
use crate::part::bounds::{self, GranuleBounds};
use crate::part::escape_file_name;

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

const UNKNOWN_COUNT: u32 = u32::MAX;
const TAG_UNKNOWN: u8 = 0;
const TAG_MINMAX: u8 = 1;
const TAG_SET: u8 = 2;
const TAG_BLOOM: u8 = 3;

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
        };
        format!("{kind} GRANULARITY {}", self.granularity)
    }

    pub fn file_name(&self) -> String {
        format!("skp_idx_{}.idx", escape_file_name(&self.name))
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
    fn signature(&self, schema: &Schema) -> Result<String> {
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
}

/// Each index granule's distinct values, up to `max_values` (0: any number).
fn build_set(values: &ArrayRef, ranges: &[Range<usize>], max_values: usize) -> Result<Summary> {
    let converter = RowConverter::new(vec![SortField::new(values.data_type().clone())])?;
    let rows = converter.convert_columns(std::slice::from_ref(values))?;
    let mut counts = Vec::with_capacity(ranges.len());
    let mut kept: Vec<u64> = Vec::new();
    for range in ranges {
        let mut seen = HashSet::new();
        let first = kept.len();
        let mut overflow = false;
        for row in range.clone() {
            if seen.insert(rows.row(row)) {
                if max_values > 0 && seen.len() > max_values {
                    overflow = true;
                    break;
                }
                kept.push(row as u64);
            }
        }
        if overflow {
            kept.truncate(first);
            counts.push(UNKNOWN_COUNT);
        } else {
            counts.push((kept.len() - first) as u32);
        }
    }
    let values = take(values.as_ref(), &UInt64Array::from(kept), None)?;
    Ok(Summary::Set {
        counts: UInt32Array::from(counts),
        values,
    })
}

/// For each index granule: false where the set holds none of `values`,
/// true where it holds only values among them, else null.
fn set_contains(
    counts: &UInt32Array,
    set: &ArrayRef,
    wanted: &ArrayRef,
) -> Option<Vec<Option<bool>>> {
    let converter = RowConverter::new(vec![SortField::new(set.data_type().clone())]).ok()?;
    let wanted = converter
        .convert_columns(std::slice::from_ref(wanted))
        .ok()?;
    let wanted: HashSet<_> = wanted.iter().collect();
    let held = converter.convert_columns(std::slice::from_ref(set)).ok()?;
    let mut start = 0;
    Some(
        counts
            .values()
            .iter()
            .map(|&count| {
                if count == UNKNOWN_COUNT {
                    return None;
                }
                let range = start..start + count as usize;
                start = range.end;
                // A NULL never equals a value, so it counts as neither.
                let found: Vec<bool> = range
                    .filter(|&i| set.is_valid(i))
                    .map(|i| wanted.contains(&held.row(i)))
                    .collect();
                if !found.iter().any(|&f| f) {
                    Some(false)
                } else if found.iter().all(|&f| f) {
                    Some(true)
                } else {
                    None
                }
            })
            .collect(),
    )
}

/// `values` as one array of `data_type`; `None` if one does not convert.
fn literal_array(values: &HashSet<ScalarValue>, data_type: &DataType) -> Option<ArrayRef> {
    let array = ScalarValue::iter_to_array(values.iter().cloned()).ok()?;
    let converted = cast(&array, data_type).ok()?;
    // A value that does not survive the conversion (a cut number, text
    // that is not one) could match nothing or anything: unknown.
    (converted.null_count() == array.null_count()).then_some(converted)
}

/// Bits per value of a Bloom filter with false-positive rate `p` and the
/// number of hash probes that suits it.
fn bloom_shape(p: f64) -> (f64, u32) {
    let p = p.clamp(1e-6, 0.5);
    let bits_per_value = -p.ln() / (std::f64::consts::LN_2 * std::f64::consts::LN_2);
    let hashes = (bits_per_value * std::f64::consts::LN_2).round().max(1.0) as u32;
    (bits_per_value, hashes)
}

fn build_bloom(values: &ArrayRef, ranges: &[Range<usize>], false_positive: f64) -> Summary {
    let Some(hashes) = value_hashes(values) else {
        return Summary::Unknown;
    };
    let (bits_per_value, probes) = bloom_shape(false_positive);
    let mut starts = vec![0u64];
    let mut words: Vec<u64> = Vec::new();
    for range in ranges {
        let distinct: HashSet<u64> = hashes[range.clone()].iter().flatten().copied().collect();
        let bits = ((distinct.len() as f64 * bits_per_value).ceil() as usize).max(64);
        let first = words.len();
        words.resize(first + bits.div_ceil(64), 0);
        let filter = &mut words[first..];
        let bits = filter.len() * 64;
        for hash in distinct {
            for bit in probes_of(hash, probes, bits) {
                filter[bit / 64] |= 1 << (bit % 64);
            }
        }
        starts.push(words.len() as u64);
    }
    Summary::Bloom {
        hashes: probes,
        starts: UInt64Array::from(starts),
        words: UInt64Array::from(words),
    }
}

/// Index granules whose filter may hold one of `values`: null there,
/// false elsewhere.
fn bloom_contains(
    probes: u32,
    starts: &UInt64Array,
    words: &UInt64Array,
    wanted: &ArrayRef,
) -> Option<Vec<Option<bool>>> {
    let words = words.values();
    let starts = starts.values();
    let wanted: Vec<u64> = value_hashes(wanted)?.into_iter().flatten().collect();
    Some(
        starts
            .windows(2)
            .map(|w| {
                let filter = &words[w[0] as usize..w[1] as usize];
                let bits = filter.len() * 64;
                let maybe = wanted.iter().any(|&hash| {
                    probes_of(hash, probes, bits)
                        .all(|bit| filter[bit / 64] & (1 << (bit % 64)) != 0)
                });
                (!maybe).then_some(false)
            })
            .collect(),
    )
}

/// The bits a value's hash sets: double hashing of its two halves.
fn probes_of(hash: u64, probes: u32, bits: usize) -> impl Iterator<Item = usize> {
    let (h1, h2) = (hash & 0xffff_ffff, (hash >> 32) | 1);
    (0..u64::from(probes))
        .map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) % bits as u64) as usize)
}

/// A stable hash of each value (its bytes as stored: text as UTF-8, numbers
/// little-endian), or `None` for types without one. NULL has none.
fn value_hashes(values: &ArrayRef) -> Option<Vec<Option<u64>>> {
    let hash = |bytes: &[u8]| {
        let mut hasher = XxHash64::with_seed(0);
        hasher.write(bytes);
        hasher.finish()
    };
    let hashes = match values.data_type() {
        DataType::Utf8 => values
            .as_string::<i32>()
            .iter()
            .map(|v| v.map(|s| hash(s.as_bytes())))
            .collect(),
        DataType::LargeUtf8 => values
            .as_string::<i64>()
            .iter()
            .map(|v| v.map(|s| hash(s.as_bytes())))
            .collect(),
        DataType::Binary => values
            .as_binary::<i32>()
            .iter()
            .map(|v| v.map(hash))
            .collect(),
        DataType::FixedSizeBinary(_) => values
            .as_fixed_size_binary()
            .iter()
            .map(|v| v.map(hash))
            .collect(),
        data_type if data_type.is_primitive() => {
            let width = data_type.primitive_width()?;
            let data = values.to_data();
            let bytes = &data.buffers()[0].as_slice()[data.offset() * width..];
            (0..values.len())
                .map(|i| {
                    values
                        .is_valid(i)
                        .then(|| hash(&bytes[i * width..(i + 1) * width]))
                })
                .collect()
        }
        _ => return None,
    };
    Some(hashes)
}

fn encode_summary(summary: &Summary, out: &mut Vec<u8>) -> Result<()> {
    match summary {
        Summary::Unknown => out.push(TAG_UNKNOWN),
        Summary::MinMax(bounds) => {
            out.push(TAG_MINMAX);
            put_bytes(out, &bounds::encode(bounds)?);
        }
        Summary::Set { counts, values } => {
            out.push(TAG_SET);
            put_array(out, counts)?;
            put_array(out, values)?;
        }
        Summary::Bloom {
            hashes,
            starts,
            words,
        } => {
            out.push(TAG_BLOOM);
            out.extend_from_slice(&hashes.to_le_bytes());
            put_array(out, starts)?;
            put_array(out, words)?;
        }
    }
    Ok(())
}

fn decode_summary(
    rest: &mut &[u8],
    data_type: &DataType,
    index_granules: usize,
) -> Result<Summary> {
    let (&tag, tail) = rest
        .split_first()
        .ok_or_else(|| corrupted("a summary is cut short"))?;
    *rest = tail;
    Ok(match tag {
        TAG_UNKNOWN => Summary::Unknown,
        TAG_MINMAX => {
            let bytes = get_bytes(rest)?;
            Summary::MinMax(bounds::decode(data_type, bytes, index_granules)?)
        }
        TAG_SET => Summary::Set {
            counts: get_array(rest, &DataType::UInt32)?.as_primitive().clone(),
            values: get_array(rest, data_type)?,
        },
        TAG_BLOOM => {
            let hashes = u32::from_le_bytes(take_bytes(rest, 4)?.try_into().expect("4 bytes"));
            let starts: UInt64Array = get_array(rest, &DataType::UInt64)?.as_primitive().clone();
            let words: UInt64Array = get_array(rest, &DataType::UInt64)?.as_primitive().clone();
            let ordered = starts.values().windows(2).all(|w| w[0] <= w[1]);
            if !ordered || starts.values().last().copied() != Some(words.len() as u64) {
                return Err(corrupted("a Bloom filter's granules do not fit its bits"));
            }
            Summary::Bloom {
                hashes,
                starts,
                words,
            }
        }
        _ => return Err(corrupted("an unknown summary kind")),
    })
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn take_bytes<'a>(rest: &mut &'a [u8], len: usize) -> Result<&'a [u8]> {
    if rest.len() < len {
        return Err(corrupted("the file is cut short"));
    }
    let (bytes, tail) = rest.split_at(len);
    *rest = tail;
    Ok(bytes)
}

fn get_bytes<'a>(rest: &mut &'a [u8]) -> Result<&'a [u8]> {
    let len = u64::from_le_bytes(take_bytes(rest, 8)?.try_into().expect("8 bytes"));
    let len = usize::try_from(len).map_err(|_| corrupted("a length past memory"))?;
    take_bytes(rest, len)
}

fn put_array(out: &mut Vec<u8>, array: &dyn Array) -> Result<()> {
    let mut encoded = Vec::new();
    array_bytes::encode(&array.to_data(), &mut encoded);
    let mut block = Vec::new();
    write_block(Codec::Lz4, &encoded, &mut block)?;
    put_bytes(out, &block);
    Ok(())
}

fn get_array(rest: &mut &[u8], data_type: &DataType) -> Result<ArrayRef> {
    let (block, _) = read_block(get_bytes(rest)?)?;
    Ok(make_array(array_bytes::decode(
        data_type,
        &Buffer::from(block),
        &mut 0,
    )?))
}

fn corrupted(what: &str) -> StrataError {
    StrataError::new(
        ErrorCode::CORRUPTED_DATA,
        format!("Corrupted skipping index: {what}"),
    )
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
