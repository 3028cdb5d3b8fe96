//! `argMin(arg, val)` and `argMax(arg, val)` (also `min_by` and `max_by`):
//! the `arg` of the row with the smallest or largest `val`; the first such
//! row wins ties. `argAndMin` and `argAndMax` return the tuple `(arg, val)`.
//! Rows where either argument is NULL are skipped, as ClickHouse's Null
//! adaptor skips them.

use std::cmp::Ordering;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef};
use datafusion::arrow::compute::SortOptions;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ArgMinMax {
    max: bool,
    /// Whether the result is the tuple (arg, val) rather than arg alone.
    pair: bool,
    signature: Signature,
    aliases: Vec<String>,
}

impl ArgMinMax {
    pub fn new(max: bool) -> Self {
        let alias = if max { "max_by" } else { "min_by" };
        ArgMinMax {
            max,
            pair: false,
            signature: Signature::any(2, Volatility::Immutable),
            aliases: vec![alias.to_string()],
        }
    }

    /// `argAndMin` or `argAndMax`.
    pub fn pair(max: bool) -> Self {
        ArgMinMax {
            max,
            pair: true,
            signature: Signature::any(2, Volatility::Immutable),
            aliases: vec![],
        }
    }
}

/// The tuple `(arg, val)` of an argAndMin result, Nullable where the
/// arguments are (over no rows it holds their defaults).
fn pair_type(arg: &Field, val: &Field) -> DataType {
    DataType::Struct(
        vec![
            Field::new("1", arg.data_type().clone(), arg.is_nullable()),
            Field::new("2", val.data_type().clone(), val.is_nullable()),
        ]
        .into(),
    )
}

impl AggregateUDFImpl for ArgMinMax {
    fn name(&self) -> &str {
        match (self.pair, self.max) {
            (false, false) => "argMin",
            (false, true) => "argMax",
            (true, false) => "argAndMin",
            (true, true) => "argAndMax",
        }
    }

    fn aliases(&self) -> &[String] {
        &self.aliases
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.pair {
            true => pair_type(
                &Field::new("arg", arg_types[0].clone(), true),
                &Field::new("val", arg_types[1].clone(), true),
            ),
            false => arg_types[0].clone(),
        })
    }

    fn return_field(&self, arg_fields: &[FieldRef]) -> Result<FieldRef> {
        let data_type = match self.pair {
            true => pair_type(&arg_fields[0], &arg_fields[1]),
            false => arg_fields[0].data_type().clone(),
        };
        Ok(Arc::new(Field::new(self.name(), data_type, !self.pair)))
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

    fn create_sliding_accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        super::sliding::sliding_accumulator(self.name(), args)
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        let arg_type = args.expr_fields[0].data_type().clone();
        let val_type = args.expr_fields[1].data_type().clone();
        Ok(Box::new(ArgMinMaxAccumulator {
            max: self.max,
            pair: match args.return_field.data_type() {
                DataType::Struct(fields) if self.pair => Some(fields.clone()),
                _ => None,
            },
            best: None,
            arg_type,
            val_type,
        }))
    }
}

#[derive(Debug)]
struct ArgMinMaxAccumulator {
    max: bool,
    /// The result tuple's fields, for argAndMin and argAndMax.
    pair: Option<Fields>,
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
            if vals.is_null(row) || args.is_null(row) {
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
        let zero = |t: &DataType| ScalarValue::new_zero(t).or_else(|_| ScalarValue::try_from(t));
        let (arg, val) = match &self.best {
            Some((arg, val)) => (arg.clone(), val.clone()),
            // NULL over no rows, as ClickHouse's Null adaptor gives for
            // Nullable arguments; the planner puts the default in its place
            // where neither argument is Nullable.
            None if self.pair.is_none() => return ScalarValue::try_from(&self.arg_type),
            None => (zero(&self.arg_type)?, zero(&self.val_type)?),
        };
        let Some(fields) = &self.pair else {
            return Ok(arg);
        };
        let columns = vec![arg.to_array()?, val.to_array()?];
        let tuple = datafusion::arrow::array::StructArray::try_new(fields.clone(), columns, None)?;
        Ok(ScalarValue::Struct(Arc::new(tuple)))
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
