//! What both table kinds' merges share: running one closure per item on its
//! own thread, and reading chosen rows of state columns.

use datafusion::arrow::array::{ArrayRef, UInt32Array};
use datafusion::arrow::compute::take;
use datafusion::common::{Result, internal_datafusion_err};

/// Runs `work` on every item, each on its own scoped thread; results in
/// item order.
pub fn run_workers<I, O, F>(items: Vec<I>, work: F) -> Result<Vec<O>>
where
    I: Send,
    O: Send,
    F: Fn(I) -> Result<O> + Sync,
{
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .into_iter()
            .map(|item| scope.spawn(move || work(item)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| internal_datafusion_err!("a GROUP BY merge worker panicked"))?
            })
            .collect()
    })
}

/// The rows `rows` of each column.
pub fn take_rows(columns: &[ArrayRef], rows: &[u32]) -> Result<Vec<ArrayRef>> {
    let indices = UInt32Array::from(rows.to_vec());
    Ok(columns
        .iter()
        .map(|column| take(column.as_ref(), &indices, None))
        .collect::<std::result::Result<_, _>>()?)
}
