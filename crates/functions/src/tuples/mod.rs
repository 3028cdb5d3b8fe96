//! Tuple functions: `tupleElement` ([`element`]), arithmetic on tuples
//! (`tuplePlus`, `tupleMultiplyByNumber`, `tupleNegate`, ...), the vector
//! functions on tuples (`dotProduct`, `L2Norm`, `cosineDistance`, ...,
//! which take arrays too), and the functions of a tuple's shape
//! (`tupleNames`, `tupleConcat`, `flattenTuple`, ...).

pub mod element;
mod functions;
mod operand;
mod shape;

use std::sync::Arc;

use datafusion::logical_expr::ScalarUDF;

pub use element::TupleElement;

/// Adds the tuple functions to `registered`, which must hold the element
/// functions they apply; a vector function registered for arrays becomes
/// one that takes a tuple or an array.
pub(crate) fn register(registered: &mut Vec<ScalarUDF>) {
    let elements = Arc::new(functions::Elements::from(registered.as_slice()));
    for function in functions::all(&elements, registered) {
        let function = ScalarUDF::new_from_impl(function);
        registered.retain(|f| f.name() != function.name());
        registered.push(function);
    }
    registered.extend(shape::scalar_functions());
}
