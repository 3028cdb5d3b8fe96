//! `argMin(arg, val)` and `argMax(arg, val)` (also `min_by` and `max_by`):
//! the `arg` of the row with the smallest or largest `val`; the first such
//! row wins ties.

use std::cmp::Ordering;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArgMinMax {
    max: bool,
    signature: Signature,
    aliases: Vec<String>,
}

impl ArgMinMax {
    pub fn new(max: bool) -> Self {
        let alias = if max { "max_by" } else { "min_by" };
        ArgMinMax {
            max,
            signature: Signature::any(2, Volatility::Immutable),
            aliases: vec![alias.to_string()],
        }
    }
}

impl AggregateUDFImpl for ArgMinMax {
    fn name(&self) -> &str {
        if self.max { "argMax" } else { "argMin" }
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(arg_types[0].clone())
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(Field::new(
                format!("{}[arg]", args.name),
                args.input_fields[0].data_type().clone(),
                true,
            )),
            Arc::new(Field::new(
                format!("{}[val]", args.name),
                args.input_fields[1].data_type().clone(),
                true,
            )),
        ])
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let arg_type = args.return_field.data_type().clone();
        let val_type = args.expr_fields[1].data_type().clone();
        Ok(Box::new(ArgMinMaxAccumulator {
            max: self.max,
            best: None,
            arg_type,
            val_type,
        }))
    }
}

#[derive(Debug)]
struct ArgMinMaxAccumulator {
    max: bool,
    /// (arg, val) of the best row so far.
    best: Option<(ScalarValue, ScalarValue)>,
    arg_type: DataType,
    val_type: DataType,
}

impl ArgMinMaxAccumulator {
    fn better(&self, candidate: Ordering) -> bool {
        if self.max {
            candidate == Ordering::Greater
        } else {
            candidate == Ordering::Less
        }
    }

    fn absorb(&mut self, args: &ArrayRef, vals: &ArrayRef) -> Result<()> {
        let comparator = datafusion::arrow::array::make_comparator(
            vals.as_ref(),
            vals.as_ref(),
            SortOptions::default(),
        )?;
        let mut best_row: Option<usize> = None;
        for row in 0..vals.len() {
            if vals.is_null(row) {
                continue;
            }
            match best_row {
                None => best_row = Some(row),
                Some(b) if self.better(comparator(row, b)) => best_row = Some(row),
                Some(_) => {}
            }
        }
        let Some(row) = best_row else { return Ok(()) };
        let val = ScalarValue::try_from_array(vals, row)?;
        let replace = match &self.best {
            None => true,
            Some((_, current)) => current
                .partial_cmp(&val)
                .is_some_and(|o| self.better(o.reverse())),
        };
        if replace {
            self.best = Some((ScalarValue::try_from_array(args, row)?, val));
        }
        Ok(())
    }
}

impl Accumulator for ArgMinMaxAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        self.absorb(&values[0], &values[1])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        match &self.best {
            Some((arg, _)) => Ok(arg.clone()),
            None => ScalarValue::new_zero(&self.arg_type)
                .or_else(|_| ScalarValue::try_from(&self.arg_type)),
        }
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + self.best.as_ref().map_or(0, |(a, v)| a.size() + v.size())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        match &self.best {
            Some((arg, val)) => Ok(vec![arg.clone(), val.clone()]),
            None => Ok(vec![
                ScalarValue::try_from(&self.arg_type)?,
                ScalarValue::try_from(&self.val_type)?,
            ]),
        }
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        self.absorb(&states[0], &states[1])
    }
}
