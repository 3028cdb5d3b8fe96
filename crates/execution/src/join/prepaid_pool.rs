//! The memory pool an in-memory hash join runs against inside a spilling
//! join: it first spends bytes the spilling join reserved for it (prepaid),
//! then asks the query's pool for the rest.
//!
//! Releasing the spilling join's reservation for the in-memory join to
//! reserve the same bytes again would race: another operator (a
//! repartition buffering the probe side, which takes whatever room there
//! is before it spills) may take them in between, and the in-memory join,
//! which cannot spill, would fail with MEMORY_LIMIT_EXCEEDED.

use std::sync::Arc;

use datafusion::common::Result;
use datafusion::execution::TaskContext;
use datafusion::execution::memory_pool::{
    MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation,
};
use datafusion::execution::runtime_env::RuntimeEnv;
use parking_lot::Mutex;

#[derive(Debug)]
pub struct PrepaidPool {
    parent: Arc<dyn MemoryPool>,
    /// Reserved in `parent`; shrinks as the join's reservations spend it.
    prepaid: Mutex<MemoryReservation>,
}

impl PrepaidPool {
    /// `context` with a pool that spends `prepaid` before `context`'s own.
    pub fn context_with(context: &TaskContext, prepaid: MemoryReservation) -> Arc<TaskContext> {
        let parent = Arc::clone(context.memory_pool());
        let pool = PrepaidPool {
            parent,
            prepaid: Mutex::new(prepaid),
        };
        let runtime = RuntimeEnv {
            memory_pool: Arc::new(pool),
            ..context.runtime_env().as_ref().clone()
        };
        Arc::new(TaskContext::new(
            context.task_id(),
            context.session_id(),
            context.session_config().clone(),
            context.scalar_functions().clone(),
            context.higher_order_functions().clone(),
            context.aggregate_functions().clone(),
            context.window_functions().clone(),
            Arc::new(runtime),
        ))
    }

    /// Moves up to `wanted` prepaid bytes to `reservation`; returns how many.
    /// The parent's total grows before it shrinks, so no other consumer
    /// sees room that is not there.
    fn spend(&self, reservation: &MemoryReservation, wanted: usize) -> usize {
        let prepaid = self.prepaid.lock();
        let spent = wanted.min(prepaid.size());
        if spent > 0 {
            self.parent.grow(reservation, spent);
            prepaid.shrink(spent);
        }
        spent
    }

    /// Gives `amount` spent bytes back to the prepaid reservation.
    fn refund(&self, reservation: &MemoryReservation, amount: usize) {
        if amount > 0 {
            self.prepaid.lock().grow(amount);
            self.parent.shrink(reservation, amount);
        }
    }
}

impl std::fmt::Display for PrepaidPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PrepaidPool({} prepaid, over {})",
            self.prepaid.lock().size(),
            self.parent
        )
    }
}

impl MemoryPool for PrepaidPool {
    fn name(&self) -> &str {
        "PrepaidPool"
    }

    fn register(&self, consumer: &MemoryConsumer) {
        self.parent.register(consumer);
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        self.parent.unregister(consumer);
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        let spent = self.spend(reservation, additional);
        if additional > spent {
            self.parent.grow(reservation, additional - spent);
        }
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.parent.shrink(reservation, shrink);
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        let spent = self.spend(reservation, additional);
        if additional > spent
            && let Err(error) = self.parent.try_grow(reservation, additional - spent)
        {
            self.refund(reservation, spent);
            return Err(error);
        }
        Ok(())
    }

    fn reserved(&self) -> usize {
        self.parent.reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        self.parent.memory_limit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::execution::memory_pool::GreedyMemoryPool;

    #[test]
    fn prepaid_bytes_are_spent_first_and_cannot_be_taken() {
        let parent: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(1000));
        let prepaid = MemoryConsumer::new("spilling join").register(&parent);
        prepaid.try_grow(600).unwrap();
        let context = TaskContext::default().with_runtime(Arc::new(RuntimeEnv {
            memory_pool: Arc::clone(&parent),
            ..RuntimeEnv::default()
        }));
        let context = PrepaidPool::context_with(&context, prepaid);
        // Another operator takes the rest of the parent's room.
        let other = MemoryConsumer::new("repartition").register(&parent);
        other.try_grow(400).unwrap();
        assert!(other.try_grow(1).is_err());
        // The join still gets its 600 bytes, and no more.
        let join = MemoryConsumer::new("join").register(context.memory_pool());
        join.try_grow(500).unwrap();
        join.try_grow(100).unwrap();
        assert!(join.try_grow(1).is_err());
        assert_eq!(parent.reserved(), 1000);
        drop(join);
        assert_eq!(parent.reserved(), 400);
    }
}
