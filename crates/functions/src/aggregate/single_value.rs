//! `singleValueOrNull(x)`: the value every row holds, or NULL when rows
//! disagree or none has a value (NULLs are skipped). Values compare as
//! `=` does: NaN differs from itself and -0 equals 0. The result is
//! Nullable, so arrays and maps, which cannot be, are refused.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, UInt8Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};
use strata_common::ErrorCode;

use super::frame::{can_be_null, error, expect_args};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct SingleValueOrNull {
    signature: Signature,
}

impl Default for SingleValueOrNull {
    fn default() -> Self {
        SingleValueOrNull {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl AggregateUDFImpl for SingleValueOrNull {
    fn name(&self) -> &str {
        "singleValueOrNull"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Leaves checking to `return_type`, whose errors keep their code.
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        Ok(arg_types.to_vec())
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        expect_args(self.name(), arg_types, &[1])?;
        if !can_be_null(&arg_types[0]) {
            return Err(error(
                ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
                format!(
                    "Nested type {} cannot be inside Nullable type",
                    strata_common::types::clickhouse_type_name(&arg_types[0], false)
                ),
            ));
        }
        Ok(arg_types[0].clone())
    }

    fn return_field(&self, arg_fields: &[FieldRef]) -> Result<FieldRef> {
        let types: Vec<DataType> = arg_fields.iter().map(|f| f.data_type().clone()).collect();
        Ok(Arc::new(Field::new(
            self.name(),
            self.return_type(&types)?,
            true,
        )))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(Field::new(
                format!("{}[value]", args.name),
                args.return_field.data_type().clone(),
                true,
            )),
            Arc::new(Field::new(
                format!("{}[seen]", args.name),
                DataType::UInt8,
                false,
            )),
        ])
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(SingleValue {
            value: ScalarValue::try_from(args.return_field.data_type())?,
            seen: Seen::Nothing,
        }))
    }
}

/// What a group has seen so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    Nothing = 0,
    One = 1,
    Several = 2,
}

#[derive(Debug)]
struct SingleValue {
    /// The value of the rows seen, while they agree.
    value: ScalarValue,
    seen: Seen,
}

/// Equality as ClickHouse's `=` has it for floats, by value elsewhere.
fn same(a: &ScalarValue, b: &ScalarValue) -> bool {
    let float = |v: &ScalarValue| match v {
        ScalarValue::Float32(Some(f)) => Some(*f as f64),
        ScalarValue::Float64(Some(f)) => Some(*f),
        _ => None,
    };
    match (float(a), float(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

impl SingleValue {
    fn absorb(&mut self, value: ScalarValue, seen: Seen) {
        match (self.seen, seen) {
            (_, Seen::Nothing) | (Seen::Several, _) => {}
            (Seen::Nothing, _) => {
                self.value = value;
                self.seen = seen;
            }
            (Seen::One, Seen::One) if same(&self.value, &value) => {}
            _ => self.seen = Seen::Several,
        }
    }
}

impl Accumulator for SingleValue {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let column = &values[0];
        for row in 0..column.len() {
            if self.seen == Seen::Several {
                break;
            }
            if column.is_valid(row) {
                self.absorb(ScalarValue::try_from_array(column, row)?, Seen::One);
            }
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        match self.seen {
            Seen::One => Ok(self.value.clone()),
            _ => ScalarValue::try_from(self.value.data_type()),
        }
    }

    fn size(&self) -> usize {
        size_of_val(self) + self.value.size()
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(vec![
            self.value.clone(),
            ScalarValue::UInt8(Some(self.seen as u8)),
        ])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let seen = states[1].as_primitive::<UInt8Type>();
        for row in 0..seen.len() {
            let other = match seen.value(row) {
                0 => Seen::Nothing,
                1 => Seen::One,
                _ => Seen::Several,
            };
            if other != Seen::Nothing {
                self.absorb(ScalarValue::try_from_array(&states[0], row)?, other);
            }
        }
        Ok(())
    }
}
