//! ClickHouse's window functions DataFusion lacks: `lagInFrame(x[, offset
//! [, default]])` and `leadInFrame(...)`, the value `offset` rows before or
//! after the current one, or `default` (the type's default, not NULL,
//! unless given) when that row is outside the window frame. Unlike
//! `lag`/`lead` they see only the frame: with ClickHouse's default frame
//! (up to the current row) `leadInFrame` reaches no later row.

use std::ops::Range;
use std::sync::Arc;

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{DataType, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{PartitionEvaluatorArgs, WindowUDFFieldArgs};
use datafusion::logical_expr::{
    PartitionEvaluator, Signature, TypeSignature, Volatility, WindowUDF, WindowUDFImpl,
};
use strata_common::{ErrorCode, StrataError};

/// Which way `offset` counts from the current row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Lag,
    Lead,
}

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct InFrame {
    direction: Direction,
    signature: Signature,
}

impl InFrame {
    pub fn new(direction: Direction) -> Self {
        InFrame {
            direction,
            signature: Signature::one_of(
                vec![
                    TypeSignature::Any(1),
                    TypeSignature::Any(2),
                    TypeSignature::Any(3),
                ],
                Volatility::Immutable,
            ),
        }
    }
}

/// `lagInFrame` and `leadInFrame`, and DataFusion's `dense_rank` and
/// `percent_rank` under ClickHouse's other names too.
pub fn window_functions() -> Vec<Arc<WindowUDF>> {
    use datafusion::functions_window::rank::{dense_rank_udwf, percent_rank_udwf};
    let mut functions: Vec<Arc<WindowUDF>> = [Direction::Lag, Direction::Lead]
        .into_iter()
        .map(|direction| Arc::new(WindowUDF::new_from_impl(InFrame::new(direction))))
        .collect();
    functions.push(Arc::new(
        dense_rank_udwf()
            .as_ref()
            .clone()
            .with_aliases(["denseRank"]),
    ));
    functions.push(Arc::new(
        percent_rank_udwf()
            .as_ref()
            .clone()
            .with_aliases(["percentRank"]),
    ));
    functions
}

impl WindowUDFImpl for InFrame {
    fn name(&self) -> &str {
        match self.direction {
            Direction::Lag => "lagInFrame",
            Direction::Lead => "leadInFrame",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn field(&self, args: WindowUDFFieldArgs) -> Result<FieldRef> {
        let value = args.input_fields()[0].as_ref();
        Ok(Arc::new(value.clone().with_name(args.name())))
    }

    fn partition_evaluator(
        &self,
        args: PartitionEvaluatorArgs,
    ) -> Result<Box<dyn PartitionEvaluator>> {
        let fields = args.input_fields();
        let value_type = fields[0].data_type().clone();
        let missing = match fields[0].is_nullable() {
            true => ScalarValue::try_from(&value_type)?,
            false => strata_common::types::field_default_value(fields[0].as_ref())?,
        };
        Ok(Box::new(InFrameEvaluator {
            arguments: fields.len(),
            direction: self.direction,
            value_type,
            missing,
            row: 0,
        }))
    }
}

/// One partition's rows, evaluated in order: DataFusion calls
/// [`PartitionEvaluator::evaluate`] once per row, first to last, with a
/// new evaluator per partition (bounded execution is declined for that).
#[derive(Debug)]
struct InFrameEvaluator {
    /// How many of the values are arguments: the ORDER BY keys follow.
    arguments: usize,
    direction: Direction,
    value_type: DataType,
    /// The result outside the frame when no default is given.
    missing: ScalarValue,
    /// The current row's index in the partition.
    row: usize,
}

impl PartitionEvaluator for InFrameEvaluator {
    fn uses_window_frame(&self) -> bool {
        true
    }

    fn evaluate(&mut self, values: &[ArrayRef], frame: &Range<usize>) -> Result<ScalarValue> {
        let row = self.row;
        self.row += 1;
        let values = &values[..self.arguments];
        let offset = match values.get(1) {
            Some(offsets) => offset(offsets, row)?,
            None => 1,
        };
        let target = match self.direction {
            Direction::Lag => row.checked_sub(offset),
            Direction::Lead => row.checked_add(offset),
        };
        match target {
            Some(target) if frame.contains(&target) => {
                ScalarValue::try_from_array(&values[0], target)
            }
            _ => match values.get(2) {
                Some(defaults) => {
                    ScalarValue::try_from_array(defaults, row)?.cast_to(&self.value_type)
                }
                None => Ok(self.missing.clone()),
            },
        }
    }
}

/// The offset argument at `row`: a non-negative integer.
fn offset(offsets: &ArrayRef, row: usize) -> Result<usize> {
    let value = ScalarValue::try_from_array(offsets, row)?;
    let bad = || {
        StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("The offset of lagInFrame and leadInFrame must be a non-negative integer, got {value}"),
        )
        .into_datafusion()
    };
    if !value.data_type().is_integer() {
        return Err(bad());
    }
    let offset = value.cast_to(&DataType::Int64).map_err(|_| bad())?;
    match offset {
        ScalarValue::Int64(Some(n)) if n >= 0 => Ok(n as usize),
        _ => Err(bad()),
    }
}
