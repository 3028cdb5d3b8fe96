//! Memory governance: how much memory the process really has, who is using
//! it, and which query stops when there is no more.
//!
//! - [`budget`] derives the server limit from settings, physical RAM and the
//!   cgroup limit ([`cgroup`]), and notices when a container is resized.
//! - [`tracker`] is the one account every query (as DataFusion's `MemoryPool`)
//!   reserves through, with per-query limits and the overcommit policy.
//! - [`allocator`] counts every heap byte so the tracker can be cross-checked;
//!   [`process`] reads what the kernel says the process uses.

pub mod allocator;
pub mod budget;
pub mod cgroup;
pub mod process;
pub mod tracker;

pub use budget::{Budget, BudgetConfig, SystemProbe};
pub use tracker::{
    CACHE_HEADROOM, OvercommitDecision, QueryLimits, QueryMemory, Reclaim, ServerMemory,
};
