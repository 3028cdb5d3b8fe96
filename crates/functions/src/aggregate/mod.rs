//! ClickHouse aggregate functions whose results or types differ from DataFusion's.

/// The `Accumulator` methods a wrapper passes straight to its `inner`
/// accumulator, written once for every combinator that only changes the rows
/// it feeds in or the value it gives out.
macro_rules! delegate_to_inner {
    ($($method:ident),+) => { $(delegate_to_inner!(@$method);)+ };
    (@evaluate) => {
        fn evaluate(&mut self) -> datafusion::common::Result<datafusion::common::ScalarValue> {
            self.inner.evaluate()
        }
    };
    (@size) => {
        fn size(&self) -> usize {
            std::mem::size_of_val(self) + self.inner.size()
        }
    };
    (@state) => {
        fn state(&mut self) -> datafusion::common::Result<Vec<datafusion::common::ScalarValue>> {
            self.inner.state()
        }
    };
    (@merge_batch) => {
        fn merge_batch(
            &mut self,
            states: &[datafusion::arrow::array::ArrayRef],
        ) -> datafusion::common::Result<()> {
            self.inner.merge_batch(states)
        }
    };
}

pub mod arg_min_max;
pub mod bitmap_folds;
pub mod collected;
pub mod combinators;
pub mod count;
pub mod digests;
pub mod folds;
pub mod frame;
pub mod funnels;
pub mod group_array;
pub mod group_arrays;
pub mod maps;
pub mod matrices;
pub mod moments;
pub mod native;
pub mod quantiles;
pub mod sampled_set;
pub mod sequences;
pub mod single_value;
pub mod sketch;
mod sliding;
pub mod states;
pub mod uniq;

use std::collections::HashSet;
use std::sync::OnceLock;

use datafusion::arrow::array::{Array, BooleanArray};
use datafusion::logical_expr::AggregateUDF;

/// The aggregates of the newer families, each from its module.
pub fn functions() -> Vec<AggregateUDF> {
    let mut out = Vec::new();
    out.extend(quantiles::functions());
    out.extend(moments::functions());
    out.extend(matrices::functions());
    out.extend(maps::functions());
    out.extend(group_arrays::functions());
    out.extend(collected::functions());
    out.extend(funnels::functions());
    out.extend(sequences::functions());
    out.extend(folds::functions());
    out.extend(bitmap_folds::functions());
    out.push(AggregateUDF::new_from_impl(
        single_value::SingleValueOrNull::default(),
    ));
    out.push(AggregateUDF::new_from_impl(combinators::Combined::default()));
    out
}

/// Whether an aggregate's FILTER (ClickHouse's `-If`) keeps `row`.
pub(crate) fn filter_keeps(filter: Option<&BooleanArray>, row: usize) -> bool {
    filter.is_none_or(|f| f.is_valid(row) && f.value(row))
}

/// Whether the aggregate registered as `name` takes ClickHouse parameters
/// (`f(p...)(x)`) as its trailing struct argument.
pub fn takes_parameters(name: &str) -> bool {
    static NAMES: OnceLock<HashSet<String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            functions()
                .iter()
                .flat_map(|f| {
                    std::iter::once(f.name().to_string()).chain(f.aliases().iter().cloned())
                })
                .chain(["groupArray".to_string()])
                .collect()
        })
        .contains(name)
}
