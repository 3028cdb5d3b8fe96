//! `column = 'text'` and `column != 'text'` on a String column, as
//! ClickHouse evaluates them: each row's length first, then its bytes in
//! 8-byte words, with no call per row. Arrow compares every row through a
//! general slice comparison (a `memcmp` call each); in a search of a
//! String column that was the largest cost after decompression.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{Array, AsArray, BooleanArray, StringArray};
use datafusion::arrow::buffer::BooleanBuffer;
use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Operator};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::expressions::{BinaryExpr, Column, Literal};

#[derive(Debug, Eq)]
pub struct StringEquality {
    column: Column,
    text: String,
    negated: bool,
    /// The expression this replaces, for inputs that are not plain strings.
    original: Arc<dyn PhysicalExpr>,
}

impl StringEquality {
    /// The faster form of `expr` if it compares a String column of
    /// `schema` with a string constant for (in)equality.
    pub fn matching(expr: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Result<Option<Self>> {
        let Some(binary) = expr.downcast_ref::<BinaryExpr>() else {
            return Ok(None);
        };
        let negated = match binary.op() {
            Operator::Eq => false,
            Operator::NotEq => true,
            _ => return Ok(None),
        };
        let (left, right) = (binary.left(), binary.right());
        let (column, literal) = match (
            left.downcast_ref::<Column>(),
            right.downcast_ref::<Literal>(),
        ) {
            (Some(column), Some(literal)) => (column, literal),
            _ => match (
                right.downcast_ref::<Column>(),
                left.downcast_ref::<Literal>(),
            ) {
                (Some(column), Some(literal)) => (column, literal),
                _ => return Ok(None),
            },
        };
        let ScalarValue::Utf8(Some(text)) = literal.value() else {
            return Ok(None);
        };
        if column.data_type(schema)? != DataType::Utf8 {
            return Ok(None);
        }
        Ok(Some(StringEquality {
            column: column.clone(),
            text: text.clone(),
            negated,
            original: Arc::clone(expr),
        }))
    }
}

/// For each row of `strings`, whether it equals `text`.
fn equal_rows(strings: &StringArray, text: &[u8]) -> BooleanBuffer {
    let offsets = strings.value_offsets();
    let values = strings.value_data();
    BooleanBuffer::collect_bool(strings.len(), |row| {
        let start = offsets[row] as usize;
        let end = offsets[row + 1] as usize;
        end - start == text.len() && same_bytes(&values[start..end], text)
    })
}

/// Whether two slices of the same length hold the same bytes, compared a
/// word at a time.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    debug_assert_eq!(a.len(), b.len());
    let mut a_words = a.chunks_exact(8);
    let mut b_words = b.chunks_exact(8);
    for (x, y) in (&mut a_words).zip(&mut b_words) {
        let x = u64::from_ne_bytes(x.try_into().expect("8 bytes"));
        let y = u64::from_ne_bytes(y.try_into().expect("8 bytes"));
        if x != y {
            return false;
        }
    }
    a_words
        .remainder()
        .iter()
        .zip(b_words.remainder())
        .all(|(x, y)| x == y)
}

impl PartialEq for StringEquality {
    fn eq(&self, other: &Self) -> bool {
        self.original.eq(&other.original)
    }
}

impl Hash for StringEquality {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.original.hash(state);
    }
}

impl fmt::Display for StringEquality {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.original.fmt(f)
    }
}

impl PhysicalExpr for StringEquality {
    fn data_type(&self, _input_schema: &Schema) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn nullable(&self, input_schema: &Schema) -> Result<bool> {
        self.column.nullable(input_schema)
    }

    fn evaluate(&self, batch: &RecordBatch) -> Result<ColumnarValue> {
        let values = self.column.evaluate(batch)?.into_array(batch.num_rows())?;
        let Some(strings) = values.as_string_opt::<i32>() else {
            return self.original.evaluate(batch);
        };
        let mut equal = equal_rows(strings, self.text.as_bytes());
        if self.negated {
            equal = !&equal;
        }
        Ok(ColumnarValue::Array(Arc::new(BooleanArray::new(
            equal,
            strings.nulls().cloned(),
        ))))
    }

    fn children(&self) -> Vec<&Arc<dyn PhysicalExpr>> {
        vec![&self.original]
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn PhysicalExpr>>,
    ) -> Result<Arc<dyn PhysicalExpr>> {
        Ok(children.into_iter().next().expect("one child"))
    }

    fn fmt_sql(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.original.fmt_sql(f)
    }
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::datatypes::Field;
    use datafusion::physical_expr::expressions::{binary, col, lit};

    use super::*;

    #[test]
    fn matches_arrow_for_every_length_and_null() {
        let schema = Schema::new(vec![Field::new("s", DataType::Utf8, true)]);
        let rows: Vec<Option<String>> = (0..40)
            .map(|n| {
                (n % 7 != 3).then(|| {
                    "abcdefghij0123456789"
                        .chars()
                        .cycle()
                        .take(n % 20)
                        .collect()
                })
            })
            .collect();
        let batch = RecordBatch::try_new(
            Arc::new(schema.clone()),
            vec![Arc::new(StringArray::from(rows))],
        )
        .unwrap();
        for text in [
            "",
            "a",
            "abcdefgh",
            "abcdefghi",
            "abcdefghij012345678",
            "abcdefgX",
        ] {
            for op in [Operator::Eq, Operator::NotEq] {
                let expr = binary(col("s", &schema).unwrap(), op, lit(text), &schema).unwrap();
                let faster = StringEquality::matching(&expr, &schema).unwrap().unwrap();
                let expected = expr.evaluate(&batch).unwrap().into_array(40).unwrap();
                let actual = faster.evaluate(&batch).unwrap().into_array(40).unwrap();
                assert_eq!(&actual, &expected, "{op} '{text}'");
            }
        }
    }

    #[test]
    fn leaves_other_shapes_alone() {
        let schema = Schema::new(vec![
            Field::new("s", DataType::Utf8, true),
            Field::new("n", DataType::Int64, true),
        ]);
        let other_op = binary(col("s", &schema).unwrap(), Operator::Lt, lit("a"), &schema).unwrap();
        let number = binary(col("n", &schema).unwrap(), Operator::Eq, lit(1i64), &schema).unwrap();
        for expr in [other_op, number] {
            assert!(StringEquality::matching(&expr, &schema).unwrap().is_none());
        }
    }
}
