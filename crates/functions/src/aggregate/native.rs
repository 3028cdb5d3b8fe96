//! Group states that Strata's own GROUP BY operators merge in place.
//!
//! DataFusion merges partial aggregates through `GroupsAccumulator::state`:
//! every group's state is serialized into an Arrow array and parsed again.
//! For a distinct count that round trip costs more than building the states
//! did, and it holds a second copy of every state while it runs. Strata's
//! operators keep one table per thread with the same group numbering, so they
//! can divide the groups among merge workers and merge each group's states
//! object to object.

use std::any::Any;

use datafusion::common::Result;
use datafusion::logical_expr::{AggregateUDF, GroupsAccumulator};

use super::uniq::Uniq;

pub trait NativeGroups: GroupsAccumulator {
    /// Divides the groups among `parts` accumulators that keep this one's
    /// group numbering: part `owner(g)` holds group `g`'s state and the other
    /// parts an empty state for it.
    fn split(
        self: Box<Self>,
        parts: usize,
        owner: &dyn Fn(usize) -> usize,
    ) -> Vec<Box<dyn NativeGroups>>;

    /// Merges group `sources[i]` of `other`, an accumulator of the same
    /// function, into group `targets[i]` of this one, which grows to
    /// `total_groups`; what it leaves in `other` is unspecified.
    fn merge_groups(
        &mut self,
        other: &mut dyn NativeGroups,
        targets: &[usize],
        sources: &[usize],
        total_groups: usize,
    ) -> Result<()>;

    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// The in-place groups accumulator of an aggregate function, where Strata
/// has one for it.
pub fn native_groups(function: &AggregateUDF) -> Option<Box<dyn NativeGroups>> {
    function
        .inner()
        .downcast_ref::<Uniq>()
        .map(Uniq::native_groups)
}
