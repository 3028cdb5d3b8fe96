//! `groupArray(x)`: the non-NULL values of a group as an array, in input order
//! within each thread; `groupArray(max_size)(x)` keeps the first `max_size`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::compute::{concat, filter, is_not_null};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};

use super::frame::{argument_count, count_parameter, error, parameter_values};
use strata_common::ErrorCode;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct GroupArray {
    signature: Signature,
}

impl Default for GroupArray {
    fn default() -> Self {
        GroupArray {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

/// The item field of a list of `values`: its type and the metadata that
/// says what the bytes mean (UUID, IPv4, an Enum...).
fn item_field(values: &Field) -> FieldRef {
    Arc::new(
        Field::new("item", values.data_type().clone(), false)
            .with_metadata(values.metadata().clone()),
    )
}

impl AggregateUDFImpl for GroupArray {
    fn name(&self) -> &str {
        "groupArray"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if argument_count(arg_types) != 1 {
            return Err(error(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                "Aggregate function groupArray requires one argument",
            ));
        }
        Ok(arg_types.to_vec())
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        let values = Field::new("item", arg_types[0].clone(), false);
        Ok(DataType::List(item_field(&values)))
    }

    fn return_field(&self, arg_fields: &[FieldRef]) -> Result<FieldRef> {
        let list = DataType::List(item_field(&arg_fields[0]));
        Ok(Arc::new(Field::new(self.name(), list, false)))
    }

    fn is_nullable(&self) -> bool {
        false
    }

    /// A window frame with no row gives `[]`, as ClickHouse does.
    fn default_value(&self, data_type: &DataType) -> Result<ScalarValue> {
        strata_common::types::default_value(data_type)
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![Arc::new(Field::new(
            format!("{}[values]", args.name),
            DataType::List(item_field(&args.input_fields[0])),
            true,
        ))])
    }

    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        super::sliding::sliding_accumulator(self.name(), args)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let DataType::List(item) = args.return_field.data_type() else {
            unreachable!("groupArray returns a list")
        };
        let max_size = match parameter_values(args.exprs).as_slice() {
            [] => None,
            [max] => match count_parameter(self.name(), max)? {
                0 => {
                    return Err(error(
                        ErrorCode::BAD_ARGUMENTS,
                        "Parameter for aggregate function groupArray should be positive number",
                    ));
                }
                max => Some(max as usize),
            },
            _ => {
                return Err(error(
                    ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                    "Aggregate function groupArray takes at most one parameter",
                ));
            }
        };
        Ok(Box::new(GroupArrayAccumulator {
            item: Arc::clone(item),
            parts: Vec::new(),
            len: 0,
            max_size,
            bytes: 0,
        }))
    }
}

#[derive(Debug)]
struct GroupArrayAccumulator {
    item: FieldRef,
    parts: Vec<ArrayRef>,
    /// Values in `parts`, at most `max_size`.
    len: usize,
    max_size: Option<usize>,
    bytes: usize,
}

impl GroupArrayAccumulator {
    fn push(&mut self, values: &ArrayRef) -> Result<()> {
        let room = self.max_size.map_or(usize::MAX, |max| max - self.len);
        if room == 0 {
            return Ok(());
        }
        // A NULL-typed column has no null buffer: its nulls are logical.
        let mut kept = if values.logical_null_count() > 0 {
            filter(values, &is_not_null(values)?)?
        } else {
            super::frame::owned(values)?
        };
        if kept.len() > room {
            kept = super::frame::owned(&kept.slice(0, room))?;
        }
        debug_assert!(self.len + kept.len() <= self.max_size.unwrap_or(usize::MAX));
        self.len += kept.len();
        if !kept.is_empty() {
            self.bytes += kept.get_array_memory_size();
            self.parts.push(kept);
        }
        Ok(())
    }

    fn as_list(&self) -> Result<ListArray> {
        let values = if self.parts.is_empty() {
            datafusion::arrow::array::new_empty_array(self.item.data_type())
        } else {
            let refs: Vec<&dyn Array> = self.parts.iter().map(|p| p.as_ref()).collect();
            concat(&refs)?
        };
        Ok(ListArray::try_new(
            Arc::clone(&self.item),
            OffsetBuffer::from_lengths([values.len()]),
            values,
            None,
        )?)
    }
}

impl Accumulator for GroupArrayAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.push(&values[0])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        Ok(ScalarValue::List(Arc::new(self.as_list()?)))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.bytes
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![self.evaluate()?])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists = states[0].as_list::<i32>();
        for i in 0..lists.len() {
            if lists.is_valid(i) {
                self.push(&lists.value(i))?;
            }
        }
        Ok(())
    }
}
