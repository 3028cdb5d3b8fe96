//! `covarPopMatrix(x1, ..., xk)`, `covarSampMatrix` and `corrMatrix`: the
//! k x k matrix (`Array(Array(Float64))`) of `covarPop`, `covarSamp` or
//! `corr` over every pair of arguments, from one pass of Welford's updates
//! (a running mean per argument and co-moments per pair). Too few rows give
//! NaN, as the pairwise functions do.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, ListArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Float64Type};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{Accumulator, AggregateUDF};

use super::frame::{Aggregate, AggregateSpec, Call, arity, expect_params, illegal_type};
use super::moments::Spread;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Matrix {
    spread: Spread,
}

pub fn functions() -> Vec<AggregateUDF> {
    [Spread::CovarPop, Spread::CovarSamp, Spread::Corr]
        .into_iter()
        .map(|spread| Aggregate::udaf(Matrix { spread }, &[]))
        .collect()
}

fn floats() -> DataType {
    DataType::List(Arc::new(Field::new_list_field(DataType::Float64, false)))
}

impl AggregateSpec for Matrix {
    fn name(&self) -> &str {
        match self.spread {
            Spread::CovarPop => "covarPopMatrix",
            Spread::CovarSamp => "covarSampMatrix",
            _ => "corrMatrix",
        }
    }

    fn return_type(&self, args: &[DataType], params: &[DataType]) -> Result<DataType> {
        if args.is_empty() {
            return Err(arity(self.name(), 0, "at least 1"));
        }
        expect_params(self.name(), params.len(), 0..=0)?;
        if let Some(t) = args
            .iter()
            .find(|t| !(t.is_integer() || t.is_floating() || **t == DataType::Boolean))
        {
            return Err(illegal_type(self.name(), t));
        }
        Ok(DataType::List(Arc::new(Field::new_list_field(
            floats(),
            false,
        ))))
    }

    fn nullable_result(&self) -> bool {
        false
    }

    fn state_types(&self, _call: &Call) -> Vec<DataType> {
        vec![floats()]
    }

    fn accumulator(&self, call: &Call) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(MatrixAccumulator::new(
            self.spread,
            call.args.len(),
        )))
    }
}

/// Rows seen, each argument's mean, and the co-moment of each pair
/// (`k * k`, row-major).
#[derive(Debug)]
struct MatrixAccumulator {
    spread: Spread,
    k: usize,
    n: f64,
    means: Vec<f64>,
    comoments: Vec<f64>,
}

impl MatrixAccumulator {
    fn new(spread: Spread, k: usize) -> Self {
        MatrixAccumulator {
            spread,
            k,
            n: 0.0,
            means: vec![0.0; k],
            comoments: vec![0.0; k * k],
        }
    }

    fn add(&mut self, x: &[f64], before: &mut [f64]) {
        self.n += 1.0;
        for i in 0..self.k {
            before[i] = x[i] - self.means[i];
            self.means[i] += before[i] / self.n;
        }
        for i in 0..self.k {
            for j in 0..self.k {
                self.comoments[i * self.k + j] += before[i] * (x[j] - self.means[j]);
            }
        }
    }

    /// Another accumulator's `n`, means and co-moments, as one pass over both.
    fn merge(&mut self, n: f64, means: &[f64], comoments: &[f64]) {
        if n == 0.0 {
            return;
        }
        let total = self.n + n;
        for i in 0..self.k {
            for j in 0..self.k {
                let shift = (self.means[i] - means[i]) * (self.means[j] - means[j]);
                self.comoments[i * self.k + j] +=
                    comoments[i * self.k + j] + shift * self.n * n / total;
            }
        }
        for i in 0..self.k {
            self.means[i] = (self.means[i] * self.n + means[i] * n) / total;
        }
        self.n = total;
    }

    fn value(&self, i: usize, j: usize) -> f64 {
        let c = |i: usize, j: usize| self.comoments[i * self.k + j];
        match self.spread {
            Spread::CovarPop => c(i, j) / self.n,
            Spread::CovarSamp => c(i, j) / (self.n - 1.0),
            _ => c(i, j) / (c(i, i) * c(j, j)).sqrt(),
        }
    }
}

impl Accumulator for MatrixAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let columns = values
            .iter()
            .map(|v| {
                Ok(cast(v, &DataType::Float64)?
                    .as_primitive::<Float64Type>()
                    .clone())
            })
            .collect::<Result<Vec<Float64Array>>>()?;
        let rows = columns.first().map_or(0, |c| c.len());
        let (mut x, mut before) = (vec![0.0; self.k], vec![0.0; self.k]);
        for row in 0..rows {
            if columns.iter().any(|c| c.is_null(row)) {
                continue;
            }
            for (i, column) in columns.iter().enumerate() {
                x[i] = column.value(row);
            }
            self.add(&x, &mut before);
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let rows = (0..self.k).map(|i| {
            Some(
                (0..self.k)
                    .map(|j| Some(self.value(i, j)))
                    .collect::<Vec<_>>(),
            )
        });
        let matrix = ListArray::from_iter_primitive::<Float64Type, _, _>(rows);
        let matrix = cast(&(Arc::new(matrix) as ArrayRef), &floats())?;
        Ok(ScalarValue::List(Arc::new(ListArray::new(
            Arc::new(Field::new_list_field(floats(), false)),
            datafusion::arrow::buffer::OffsetBuffer::from_lengths([self.k]),
            matrix,
            None,
        ))))
    }

    fn size(&self) -> usize {
        std::mem::size_of_val(self) + (self.means.len() + self.comoments.len()) * 8
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let mut flat = Vec::with_capacity(1 + self.k + self.k * self.k);
        flat.push(self.n);
        flat.extend(&self.means);
        flat.extend(&self.comoments);
        let values = Float64Array::from(flat);
        Ok(vec![ScalarValue::List(Arc::new(ListArray::new(
            Arc::new(Field::new_list_field(DataType::Float64, false)),
            datafusion::arrow::buffer::OffsetBuffer::from_lengths([values.len()]),
            Arc::new(values),
            None,
        )))])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let list = states[0].as_list::<i32>();
        let k = self.k;
        for row in 0..list.len() {
            if list.is_null(row) {
                continue;
            }
            let flat = list.value(row);
            let flat = flat.as_primitive::<Float64Type>().values();
            debug_assert_eq!(flat.len(), 1 + k + k * k, "a matrix state's size");
            self.merge(flat[0], &flat[1..1 + k], &flat[1 + k..]);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_halves_match_one_pass() {
        let rows = [[1.0, 5.6], [2.0, -9.6], [3.0, -1.3], [4.0, 5.3], [5.0, 4.4]];
        let mut whole = MatrixAccumulator::new(Spread::CovarSamp, 2);
        let (mut left, mut right) = (
            MatrixAccumulator::new(Spread::CovarSamp, 2),
            MatrixAccumulator::new(Spread::CovarSamp, 2),
        );
        let mut before = [0.0; 2];
        for (i, row) in rows.iter().enumerate() {
            whole.add(row, &mut before);
            match i < 2 {
                true => left.add(row, &mut before),
                false => right.add(row, &mut before),
            }
        }
        left.merge(right.n, &right.means, &right.comoments);
        for (a, b) in whole.comoments.iter().zip(&left.comoments) {
            assert!((a - b).abs() < 1e-9, "{a} != {b}");
        }
        assert!((whole.value(0, 0) - 2.5).abs() < 1e-12);
    }
}
