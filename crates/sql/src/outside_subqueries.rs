//! Rewriting one query's own expressions and not those of the queries
//! nested in them, which have a FROM (and so a meaning for names) of their own.

use std::ops::ControlFlow;

use datafusion::sql::sqlparser::ast::{Expr, Query, VisitMut, VisitorMut};

/// Calls `f` on every expression of `node` outside its subqueries,
/// innermost first; it returns whether it changed the expression. Returns
/// whether any call did.
pub(crate) fn rewrite_outside_subqueries<T: VisitMut + ?Sized>(
    node: &mut T,
    f: &mut dyn FnMut(&mut Expr) -> bool,
) -> bool {
    let mut visitor = OutsideSubqueries {
        depth: 0,
        changed: false,
        f,
    };
    let _ = node.visit(&mut visitor);
    visitor.changed
}

struct OutsideSubqueries<'a> {
    depth: usize,
    changed: bool,
    f: &'a mut dyn FnMut(&mut Expr) -> bool,
}

impl VisitorMut for OutsideSubqueries<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        debug_assert!(self.depth > 0, "a query left that was not entered");
        self.depth -= 1;
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.depth == 0 {
            self.changed |= (self.f)(expr);
        }
        ControlFlow::Continue(())
    }
}
