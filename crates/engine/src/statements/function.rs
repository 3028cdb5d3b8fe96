//! CREATE FUNCTION and DROP FUNCTION: SQL user-defined functions
//! ([`crate::user_functions`]).

use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::user_functions::CreateFunction;

use crate::session::{Session, StatementOutcome};

impl Session {
    pub(crate) fn create_function(&self, create: CreateFunction) -> Result<StatementOutcome> {
        self.check_writable()?;
        self.require("CREATE FUNCTION", &[])?;
        let name = create.function.name.clone();
        if let Some(aggregate) = self.engine.system_function(&name) {
            let kind = if aggregate {
                "aggregate function"
            } else {
                "function"
            };
            return Err(StrataError::new(
                ErrorCode::FUNCTION_ALREADY_EXISTS,
                format!("The {kind} '{name}' already exists"),
            ));
        }
        let functions = &self.engine.instance.user_functions;
        if !functions.add(create.function, create.or_replace)? && !create.if_not_exists {
            return Err(StrataError::new(
                ErrorCode::FUNCTION_ALREADY_EXISTS,
                format!("User-defined object '{name}' already exists"),
            ));
        }
        self.done()
    }

    pub(crate) fn drop_function(&self, name: &str, if_exists: bool) -> Result<StatementOutcome> {
        self.check_writable()?;
        self.require("DROP FUNCTION", &[])?;
        if self.engine.system_function(name).is_some() {
            return Err(StrataError::new(
                ErrorCode::CANNOT_DROP_FUNCTION,
                format!("Cannot drop system function '{name}'"),
            ));
        }
        if !self.engine.instance.user_functions.remove(name)? && !if_exists {
            return Err(StrataError::new(
                ErrorCode::UNKNOWN_FUNCTION,
                format!("User-defined object '{name}' doesn't exist"),
            ));
        }
        self.done()
    }
}
