//! `groupBitmapAnd`, `groupBitmapOr` and `groupBitmapXor`: a group's
//! bitmaps folded into one, whose cardinality is the result, in the
//! bitmaps' element type as in ClickHouse. The state is the folded
//! bitmap's values, as `groupBitmap`'s, so `-State` returns a bitmap; a
//! NULL list stands for "no bitmap yet", which an AND must tell apart from
//! the empty set.

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF};

use super::frame::{
    Aggregate, AggregateSpec, Call, expect_args, expect_params, illegal_type, state_list_of,
};
use crate::bitmaps::{Bitmap, element_type, lists_of, read_bitmaps, unsigned_values, values_array};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fold {
    And,
    Or,
    Xor,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct BitmapFold {
    fold: Fold,
}

pub fn functions() -> Vec<AggregateUDF> {
    [Fold::And, Fold::Or, Fold::Xor]
        .into_iter()
        .map(|fold| Aggregate::udaf(BitmapFold { fold }, &[]))
        .collect()
}

impl AggregateSpec for BitmapFold {
    fn name(&self) -> &str {
        match self.fold {
            Fold::And => "groupBitmapAnd",
            Fold::Or => "groupBitmapOr",
            Fold::Xor => "groupBitmapXor",
        }
    }

    fn nullable_result(&self) -> bool {
        false
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        let name = self.name();
        expect_args(name, args, &[1])?;
        expect_params(name, params.len(), 0..=0)?;
        element_type(&args[0]).ok_or_else(|| illegal_type(name, &args[0]))
    }

    fn state_types(&self, call: &Call) -> Vec<DataType> {
        vec![state_list_of(call.result.clone())]
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(FoldAccumulator {
            fold: self.fold,
            element: call.result.clone(),
            folded: None,
        }))
    }
}

#[derive(Debug)]
struct FoldAccumulator {
    fold: Fold,
    element: DataType,
    /// None until a bitmap has been seen.
    folded: Option<Bitmap>,
}

impl FoldAccumulator {
    fn fold_in(&mut self, bitmap: Bitmap) {
        self.folded = Some(match self.folded.take() {
            None => bitmap,
            Some(mut folded) => match self.fold {
                Fold::And => folded.and(&bitmap),
                Fold::Or => {
                    folded.or(&bitmap);
                    folded
                }
                Fold::Xor => folded.xor(&bitmap),
            },
        });
    }
}

impl Accumulator for FoldAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        for (row, bitmap) in read_bitmaps(values[0].as_ref())?.into_iter().enumerate() {
            if values[0].is_valid(row) {
                self.fold_in(bitmap);
            }
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists = states[0].as_list::<i32>();
        for row in 0..lists.len() {
            if lists.is_valid(row) {
                self.fold_in(Bitmap::from_values(unsigned_values(&lists.value(row))?));
            }
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let list = match &self.folded {
            Some(bitmap) => lists_of(std::slice::from_ref(bitmap), &self.element, true)?,
            None => {
                let empty = lists_of(&[Bitmap::default()], &self.element, true)?;
                let (field, offsets, values, _) = empty.into_parts();
                let nulls = datafusion::arrow::buffer::NullBuffer::new_null(1);
                datafusion::arrow::array::ListArray::new(field, offsets, values, Some(nulls))
            }
        };
        Ok(vec![ScalarValue::List(std::sync::Arc::new(list))])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let count = self.folded.as_ref().map_or(0, |b| b.len() as u64);
        ScalarValue::try_from_array(&values_array(&[count], &self.element)?, 0)
    }

    fn size(&self) -> usize {
        size_of_val(self) + self.folded.as_ref().map_or(0, |b| b.len() * 8)
    }
}
