//! Dictionaries in a session: CREATE, DROP, SHOW CREATE and SYSTEM RELOAD
//! DICTIONARY; loading a dictionary's source through the session's own SQL
//! before a statement reads it; and binding `dictGet` and its family to the
//! rows loaded ([`super::key_lookup`]).

use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{Array, ArrayRef, StructArray};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema, SchemaRef};
use datafusion::logical_expr::ScalarUDF;
use datafusion::physical_plan::collect;
use datafusion::sql::sqlparser::ast::{
    Expr, Function, FunctionArg, FunctionArgExpr, ObjectName, Statement, TableFactor, Visit,
    VisitMut, Visitor, VisitorMut,
};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::dictionary::{DictionaryStatement, DictionaryText};
use strata_sql::literal_text::{string_value, unnamed_arguments};
use strata_sql::parse_statement;
use strata_sql::virtual_columns::tables_read;

use super::key_lookup::{
    Answer, KeyArguments, KeyLookup, RenameCalls, can_be_null, object_argument,
};
use super::{Session, StatementOutcome, strings_result};
use crate::engine::task_context;
use crate::sources::dictionary::Dictionary;
use crate::statements::create_table_columns;
use crate::table_definition::{TableIdentity, column_lines};

/// The functions of the dictGet family, as ClickHouse names them.
pub const DICTIONARY_FUNCTIONS: &[&str] = &[
    "dictGet",
    "dictGetOrDefault",
    "dictGetOrNull",
    "dictHas",
    "dictGetUInt8",
    "dictGetUInt16",
    "dictGetUInt32",
    "dictGetUInt64",
    "dictGetInt8",
    "dictGetInt16",
    "dictGetInt32",
    "dictGetInt64",
    "dictGetFloat32",
    "dictGetFloat64",
    "dictGetDate",
    "dictGetDateTime",
    "dictGetUUID",
    "dictGetIPv4",
    "dictGetIPv6",
    "dictGetString",
    "dictGetUInt8OrDefault",
    "dictGetUInt16OrDefault",
    "dictGetUInt32OrDefault",
    "dictGetUInt64OrDefault",
    "dictGetInt8OrDefault",
    "dictGetInt16OrDefault",
    "dictGetInt32OrDefault",
    "dictGetInt64OrDefault",
    "dictGetFloat32OrDefault",
    "dictGetFloat64OrDefault",
    "dictGetDateOrDefault",
    "dictGetDateTimeOrDefault",
    "dictGetUUIDOrDefault",
    "dictGetIPv4OrDefault",
    "dictGetIPv6OrDefault",
    "dictGetStringOrDefault",
];

impl Session {
    pub(crate) async fn create_dictionary(
        &mut self,
        text: DictionaryText,
    ) -> Result<StatementOutcome> {
        self.check_writable()?;
        let (database, name) = match &self.attaching {
            Some(stored) => (stored.database.clone(), stored.name.clone()),
            None => self.table_in_database(&text.name)?,
        };
        self.require("CREATE DICTIONARY", &[&database, &name])?;
        let schema_provider = self.database(&database)?;
        if schema_provider.table_exist(&name) {
            if text.if_not_exists {
                return self.done();
            }
            if !text.or_replace {
                return Err(StrataError::new(
                    ErrorCode::DICTIONARY_ALREADY_EXISTS,
                    format!("Dictionary {database}.{name} already exists"),
                ));
            }
            self.drop_table(&text.name, false, false)?;
        }
        let (fields, extras) = create_table_columns(&text.columns)?;
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let state = self
            .engine
            .query_state(&self.new_query(self.settings.clone()))?;
        let defaults = self.column_defaults(&state, &schema, &extras)?;
        let defaults = crate::statements::constant_defaults(&state, &schema, &extras, &defaults)?;
        let statement = format!(
            "CREATE DICTIONARY {}.{}\n(\n{}\n)\n{}",
            crate::table_definition::quote_name(&database),
            crate::table_definition::quote_name(&name),
            column_lines(&schema, &extras).join(",\n"),
            text.clauses_text()
        );
        let identity = TableIdentity {
            create_statement: statement,
            uuid: self
                .attaching
                .as_ref()
                .map_or_else(uuid::Uuid::new_v4, |stored| stored.uuid),
            database,
            name: name.clone(),
        };
        let dictionary = Dictionary::new(identity.clone(), text, schema, defaults)?;
        if self.attaching.is_none() {
            self.engine.data_path.store_table(&identity.stored())?;
        }
        schema_provider.register_table(name, Arc::new(dictionary))?;
        self.done()
    }

    pub(crate) async fn dictionary_statement(
        &mut self,
        statement: DictionaryStatement,
    ) -> Result<StatementOutcome> {
        match statement {
            DictionaryStatement::Drop { name, if_exists } => {
                self.check_writable()?;
                let (database, table) = self.table_name(&name)?;
                self.require("DROP DICTIONARY", &[&database, &table])?;
                if self.dictionary(&name).await?.is_none() {
                    if if_exists {
                        return self.done();
                    }
                    return Err(StrataError::new(
                        ErrorCode::UNKNOWN_TABLE,
                        format!("Table {database}.{table} does not exist"),
                    ));
                }
                self.drop_table(&name, false, false)?;
                self.done()
            }
            DictionaryStatement::ShowCreate(name) => {
                let (database, table) = self.table_name(&name)?;
                self.require_show(&[&database, &table])?;
                let dictionary = self
                    .dictionary(&name)
                    .await?
                    .ok_or_else(|| not_found(&database, &table))?;
                let (schema, batches) =
                    strings_result("statement", vec![dictionary.identity().create_statement])?;
                self.rows(schema, batches)
            }
            DictionaryStatement::Reload(name) => {
                self.require("SYSTEM RELOAD DICTIONARY", &[])?;
                let dictionaries = match name {
                    Some(name) => {
                        let (database, table) = self.table_name(&name)?;
                        vec![
                            self.dictionary(&name)
                                .await?
                                .ok_or_else(|| not_found(&database, &table))?,
                        ]
                    }
                    None => self.all_dictionaries().await?,
                };
                for dictionary in dictionaries {
                    self.load_dictionary(&dictionary).await?;
                }
                self.done()
            }
        }
    }

    /// The dictionary `name` names, if it names one.
    pub(crate) async fn dictionary(&self, name: &ObjectName) -> Result<Option<Arc<Dictionary>>> {
        self.named_table_of(name).await
    }

    async fn all_dictionaries(&self) -> Result<Vec<Arc<Dictionary>>> {
        let found = crate::system::tables_of::<Dictionary>(&self.engine.catalog).await?;
        Ok(found.into_iter().map(|(_, _, d)| d).collect())
    }

    /// Reads a dictionary's source now; a failure is kept for system.dictionaries.
    async fn load_dictionary(
        &self,
        dictionary: &Dictionary,
    ) -> Result<Arc<crate::sources::dictionary::Loaded>> {
        let started = Instant::now();
        let result = self.read_source(dictionary).await;
        let loaded =
            result.and_then(|(schema, batches)| dictionary.load(&schema, &batches, started));
        if let Err(error) = &loaded {
            *dictionary.last_error.lock() = Some(error.to_string());
        }
        loaded
    }

    async fn read_source(
        &self,
        dictionary: &Dictionary,
    ) -> Result<(SchemaRef, Vec<datafusion::arrow::array::RecordBatch>)> {
        let text = dictionary.source_query()?;
        let Statement::Query(query) = parse_statement(&text)?.statement else {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("A dictionary's QUERY must be a SELECT: {text}"),
            ));
        };
        let (plan, state, _) =
            Box::pin(self.plan(Statement::Query(query), self.settings.clone())).await?;
        let schema: SchemaRef = Arc::new(plan.schema().as_arrow().clone());
        let physical = self.physical_plan(&state, &plan).await?;
        let batches = collect(physical, task_context(&state)).await?;
        Ok((schema, batches))
    }

    /// The rows of `dictionary`, loaded now unless fresh.
    async fn fresh_rows(
        &self,
        dictionary: &Dictionary,
    ) -> Result<Arc<crate::sources::dictionary::Loaded>> {
        match dictionary.fresh() {
            Some(loaded) => Ok(loaded),
            None => self.load_dictionary(dictionary).await,
        }
    }

    /// Before a statement is planned: `dictionary('d')` read as the table
    /// `d`, and each dictionary it reads loaded unless fresh.
    pub(crate) async fn prepare_dictionary_reads(&self, statement: &mut Statement) -> Result<()> {
        let mut functions = DictionaryFunctions(Ok(()));
        let _ = VisitMut::visit(statement, &mut functions);
        functions.0?;
        for name in tables_read(statement) {
            if let Some(dictionary) = self.dictionary(&name).await? {
                self.fresh_rows(&dictionary).await?;
            }
        }
        Ok(())
    }

    /// Binds the statement's dictGet-family calls to the rows of their
    /// dictionaries, each renamed to a function of its own.
    pub(crate) async fn bind_dictionary_calls(
        &self,
        statement: &mut Statement,
    ) -> Result<Vec<ScalarUDF>> {
        let mut found = Calls::default();
        if let ControlFlow::Break(error) = Visit::visit(&*statement, &mut found) {
            return Err(error);
        }
        let mut bound = Vec::with_capacity(found.0.len());
        for (n, call) in found.0.iter().enumerate() {
            let lookup = self
                .bind_dictionary_call(call, format!("__strata_dict_get_{n}"))
                .await?;
            bound.push(ScalarUDF::new_from_impl(lookup));
        }
        let mut rename = RenameCalls {
            prefix: "__strata_dict_get_",
            bound: |f: &Function| family_member(f).map(leading_arguments),
            next: 0,
        };
        let _ = VisitMut::visit(statement, &mut rename);
        Ok(bound)
    }

    async fn bind_dictionary_call(&self, call: &Call, name: String) -> Result<KeyLookup> {
        let (database, table) = self.table_name(&call.dictionary)?;
        let dictionary = self
            .dictionary(&call.dictionary)
            .await?
            .ok_or_else(|| not_found(&database, &table))?;
        self.require_select_any(&database, &table)?;
        let loaded = self.fresh_rows(&dictionary).await?;
        let arguments = match dictionary.complex_key() {
            true => KeyArguments::Tuple,
            false => KeyArguments::Converted,
        };
        if call.function == "dictHas" {
            let result = Arc::new(Field::new("dictHas", DataType::UInt8, false));
            let values = datafusion::arrow::array::new_null_array(&DataType::UInt8, 0);
            return KeyLookup::new(
                name,
                call.function,
                Arc::clone(&loaded.index),
                (arguments, Answer::Has),
                values,
                result,
            );
        }
        let attributes = call
            .attributes
            .iter()
            .map(|a| attribute(&dictionary, a))
            .collect::<Result<Vec<FieldRef>>>()?;
        let or_null = call.function == "dictGetOrNull";
        let answer = match call.function.ends_with("OrDefault") {
            true => Answer::ValueOr,
            false => Answer::Value,
        };
        let mut columns = Vec::with_capacity(attributes.len());
        let mut fields = Vec::with_capacity(attributes.len());
        for field in &attributes {
            let column = loaded
                .rows
                .column_by_name(field.name())
                .expect("an attribute is a column");
            let nullable = or_null && can_be_null(field.data_type());
            let missing = match (
                nullable || field.is_nullable(),
                dictionary.defaults.get(field.name()),
            ) {
                (true, _) => datafusion::common::ScalarValue::try_from(field.data_type())?,
                (false, Some(default)) => default.clone(),
                (false, None) => strata_common::types::field_default_value(field)?,
            };
            columns.push(KeyLookup::with_missing(
                std::slice::from_ref(column),
                &missing.to_array_of_size(1)?,
            )?);
            fields.push(Arc::new(
                field
                    .as_ref()
                    .clone()
                    .with_nullable(nullable || field.is_nullable()),
            ));
        }
        let (values, result): (ArrayRef, FieldRef) = match (call.tuple, columns.len()) {
            (false, 1) => (columns.remove(0), Arc::clone(&fields[0])),
            _ => {
                let fields = Fields::from(fields);
                let values: ArrayRef =
                    Arc::new(StructArray::try_new(fields.clone(), columns, None)?);
                (
                    values,
                    Arc::new(Field::new("dictGet", DataType::Struct(fields), false)),
                )
            }
        };
        debug_assert_eq!(values.len(), loaded.index.len as usize + 1);
        KeyLookup::new(
            name,
            call.function,
            Arc::clone(&loaded.index),
            (arguments, answer),
            values,
            result,
        )
    }
}

fn not_found(database: &str, name: &str) -> StrataError {
    StrataError::new(
        ErrorCode::BAD_ARGUMENTS,
        format!("Dictionary ({database}.{name}) not found"),
    )
}

fn attribute(dictionary: &Dictionary, name: &str) -> Result<FieldRef> {
    dictionary
        .attributes()
        .into_iter()
        .find(|a| a.name() == name)
        .ok_or_else(|| {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("No such attribute '{name}'"),
            )
        })
}

/// A dictGet-family call as written.
struct Call {
    function: &'static str,
    dictionary: ObjectName,
    /// The attribute, or the attributes of a tuple.
    attributes: Vec<String>,
    tuple: bool,
}

fn family_member(function: &Function) -> Option<&'static str> {
    let name = function.name.0.last()?.as_ident()?.value.as_str();
    DICTIONARY_FUNCTIONS.iter().copied().find(|n| *n == name)
}

/// How many leading arguments name the dictionary and attributes.
fn leading_arguments(function: &str) -> usize {
    match function {
        "dictHas" => 1,
        _ => 2,
    }
}

#[derive(Default)]
struct Calls(Vec<Call>);

impl Visitor for Calls {
    type Break = StrataError;

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<StrataError> {
        if let Expr::Function(f) = expr
            && let Some(function) = family_member(f)
        {
            match call(function, f) {
                Ok(call) => self.0.push(call),
                Err(error) => return ControlFlow::Break(error),
            }
        }
        ControlFlow::Continue(())
    }
}

fn call(function: &'static str, f: &Function) -> Result<Call> {
    let args = unnamed_arguments(&f.args);
    let leading = leading_arguments(function);
    if args.len() <= leading {
        return Err(StrataError::new(
            ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
            format!(
                "Number of arguments for function {function} doesn't match: passed {}, should be at least {}",
                args.len(),
                leading + 1
            ),
        ));
    }
    let dictionary = object_argument(args[0])?.ok_or_else(|| constant(function, "first"))?;
    let (attributes, tuple) = match (leading, args.get(1)) {
        (1, _) => (Vec::new(), false),
        (_, Some(Expr::Tuple(items))) => (
            items
                .iter()
                .map(|i| string_value(i).ok_or_else(|| constant(function, "second")))
                .collect::<Result<Vec<_>>>()?,
            true,
        ),
        (_, Some(other)) => (
            vec![string_value(other).ok_or_else(|| constant(function, "second"))?],
            false,
        ),
        (_, None) => unreachable!("the count was checked"),
    };
    Ok(Call {
        function,
        dictionary,
        attributes,
        tuple,
    })
}

fn constant(function: &str, which: &str) -> StrataError {
    StrataError::new(
        ErrorCode::ILLEGAL_TYPE_OF_ARGUMENT,
        format!(
            "The {which} argument of function {function} must be a constant String (or a tuple of them)"
        ),
    )
}

/// `dictionary('d')` in FROM, read as the table `d`.
struct DictionaryFunctions(Result<()>);

impl VisitorMut for DictionaryFunctions {
    type Break = ();

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<()> {
        let TableFactor::Table { name, args, .. } = factor else {
            return ControlFlow::Continue(());
        };
        let Some(arguments) = args.as_ref().filter(|_| name.to_string() == "dictionary") else {
            return ControlFlow::Continue(());
        };
        let named = match arguments.args.as_slice() {
            [FunctionArg::Unnamed(FunctionArgExpr::Expr(e))] => object_argument(e)
                .and_then(|name| name.ok_or_else(|| constant("dictionary", "first"))),
            _ => Err(constant("dictionary", "first")),
        };
        match named {
            Ok(dictionary) => {
                *name = dictionary;
                *args = None;
                ControlFlow::Continue(())
            }
            Err(error) => {
                self.0 = Err(error);
                ControlFlow::Break(())
            }
        }
    }
}

/// The ClickHouse type names of some fields, for system.dictionaries.
pub(crate) fn type_names(fields: &[FieldRef]) -> Vec<String> {
    fields
        .iter()
        .map(|f| strata_common::types::field_type_name(f))
        .collect()
}
