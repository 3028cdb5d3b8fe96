//! Dictionaries (`CREATE DICTIONARY`): the rows of a source query kept in RAM
//! by key, for `dictGet` and its family and for `SELECT ... FROM dict`. As
//! in ClickHouse they load at first use (so a dictionary may be created or
//! loaded at start before its source table), and again once older than
//! `LIFETIME`'s MAX (ClickHouse reloads at a random moment between MIN and
//! MAX) or on `SYSTEM RELOAD DICTIONARY`. Every layout of one hash map per
//! key (`FLAT`, `HASHED`, `SPARSE_HASHED`, `HASHED_ARRAY`, their
//! `COMPLEX_KEY_` forms, `CACHE` and `DIRECT`, which here read the whole
//! source once too) is the same index of the rows; a key's first row wins
//! (its last for `FLAT`).
//! The source is ClickHouse's own (`CLICKHOUSE(TABLE 't' [DB 'd'] [WHERE
//! 'c'] | QUERY 'q')`), read through this process's SQL.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use datafusion::arrow::array::{RecordBatch, UInt32Array};
use datafusion::arrow::compute::{cast, concat_batches, take_record_batch};
use datafusion::arrow::datatypes::{FieldRef, SchemaRef};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{Result as DfResult, ScalarValue};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{Expr, TableType};
use datafusion::physical_plan::ExecutionPlan;
use parking_lot::{Mutex, RwLock};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::dictionary::DictionaryText;

use super::counting::CountingExec;
use crate::session::key_lookup::KeyIndex;
use crate::table_definition::{TableIdentity, quote_name};

/// Layouts this module reads (one hash index of the rows each), and the
/// name system.dictionaries shows for each.
const LAYOUTS: &[(&str, &str)] = &[
    ("FLAT", "Flat"),
    ("HASHED", "Hashed"),
    ("SPARSE_HASHED", "SparseHashed"),
    ("HASHED_ARRAY", "HashedArray"),
    ("CACHE", "Cache"),
    ("DIRECT", "Direct"),
    ("COMPLEX_KEY_HASHED", "ComplexKeyHashed"),
    ("COMPLEX_KEY_SPARSE_HASHED", "ComplexKeySparseHashed"),
    ("COMPLEX_KEY_HASHED_ARRAY", "ComplexKeyHashedArray"),
    ("COMPLEX_KEY_CACHE", "ComplexKeyCache"),
    ("COMPLEX_KEY_DIRECT", "ComplexKeyDirect"),
];

/// A dictionary's rows as loaded: each key once.
#[derive(Debug)]
pub struct Loaded {
    pub rows: RecordBatch,
    pub(crate) index: Arc<KeyIndex>,
    at: Instant,
    pub duration: Duration,
}

#[derive(Debug)]
pub struct Dictionary {
    identity: RwLock<TableIdentity>,
    pub text: DictionaryText,
    schema: SchemaRef,
    /// Each attribute's constant DEFAULT: what a missing key reads.
    pub defaults: HashMap<String, ScalarValue>,
    loaded: RwLock<Option<Arc<Loaded>>>,
    pub last_error: Mutex<Option<String>>,
}

impl Dictionary {
    /// A dictionary not loaded yet; its layout, source and keys checked.
    pub fn new(
        identity: TableIdentity,
        text: DictionaryText,
        schema: SchemaRef,
        defaults: HashMap<String, ScalarValue>,
    ) -> Result<Dictionary> {
        if layout_type(&text.layout.0).is_none() {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Dictionary layout {} is not supported yet (hashed layouts, FLAT, CACHE and DIRECT are)",
                    text.layout.0
                ),
            ));
        }
        if text.source.kind != "CLICKHOUSE" {
            return Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!(
                    "Dictionary source {} is not supported yet (CLICKHOUSE is)",
                    text.source.kind
                ),
            ));
        }
        for key in &text.primary_key {
            if schema.index_of(key).is_err() {
                return Err(StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Key {key} is not among the dictionary's columns"),
                ));
            }
        }
        Ok(Dictionary {
            identity: RwLock::new(identity),
            text,
            schema,
            defaults,
            loaded: RwLock::new(None),
            last_error: Mutex::new(None),
        })
    }

    pub fn identity(&self) -> TableIdentity {
        self.identity.read().clone()
    }

    pub fn set_identity(&self, identity: TableIdentity) {
        *self.identity.write() = identity;
    }

    /// The key columns' positions, in PRIMARY KEY order.
    pub fn key_columns(&self) -> Vec<usize> {
        self.text
            .primary_key
            .iter()
            .map(|k| self.schema.index_of(k).expect("keys were checked"))
            .collect()
    }

    pub fn key_fields(&self) -> Vec<FieldRef> {
        self.key_columns()
            .into_iter()
            .map(|i| Arc::new(self.schema.field(i).clone()))
            .collect()
    }

    /// The columns that are not keys.
    pub fn attributes(&self) -> Vec<FieldRef> {
        let keys = self.key_columns();
        (0..self.schema.fields().len())
            .filter(|i| !keys.contains(i))
            .map(|i| Arc::new(self.schema.field(i).clone()))
            .collect()
    }

    /// Whether a key is given as a tuple (`COMPLEX_KEY_` layouts).
    pub fn complex_key(&self) -> bool {
        self.text.layout.0.starts_with("COMPLEX_KEY")
    }

    /// The layout as system.dictionaries names it.
    pub fn layout_type(&self) -> &'static str {
        layout_type(&self.text.layout.0).expect("the layout was checked")
    }

    /// The source as system.dictionaries shows it.
    pub fn source_text(&self) -> String {
        match &self.text.source.get("QUERY") {
            Some(query) => format!("ClickHouse: {query}"),
            None => {
                let (database, table) = self.source_table();
                format!("ClickHouse: {database}.{table}")
            }
        }
    }

    fn source_table(&self) -> (String, String) {
        let database = self
            .text
            .source
            .get("DB")
            .map_or_else(|| self.identity().database, str::to_string);
        let table = self
            .text
            .source
            .get("TABLE")
            .unwrap_or_default()
            .to_string();
        (database, table)
    }

    /// The query that reads the source.
    pub fn source_query(&self) -> Result<String> {
        if let Some(query) = self.text.source.get("QUERY") {
            return Ok(query.to_string());
        }
        let (database, table) = self.source_table();
        if table.is_empty() {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                "A CLICKHOUSE dictionary source needs TABLE or QUERY",
            ));
        }
        let columns: Vec<String> = self
            .schema
            .fields()
            .iter()
            .map(|f| quote_name(f.name()))
            .collect();
        let mut query = format!(
            "SELECT {} FROM {}.{}",
            columns.join(", "),
            quote_name(&database),
            quote_name(&table)
        );
        if let Some(condition) = self.text.source.get("WHERE") {
            query.push_str(&format!(" WHERE {condition}"));
        }
        Ok(query)
    }

    /// The rows as loaded, if they are and have not outlived LIFETIME.
    pub fn fresh(&self) -> Option<Arc<Loaded>> {
        let loaded = self.loaded.read().clone()?;
        let max = self.text.lifetime.1;
        let expired = max > 0 && loaded.at.elapsed() > Duration::from_secs(max);
        (!expired).then_some(loaded)
    }

    /// The rows as last loaded, however old.
    pub fn loaded(&self) -> Option<Arc<Loaded>> {
        self.loaded.read().clone()
    }

    /// Takes the source's rows (`batches`, whose columns `named` names),
    /// columns by name in the dictionary's types, each key's first row.
    pub fn load(
        &self,
        named: &SchemaRef,
        batches: &[RecordBatch],
        started: Instant,
    ) -> Result<Arc<Loaded>> {
        let all = concat_batches(named, batches)?;
        let columns = self
            .schema
            .fields()
            .iter()
            .map(|field| {
                let column = all.column_by_name(field.name()).ok_or_else(|| {
                    StrataError::new(
                        ErrorCode::UNKNOWN_IDENTIFIER,
                        format!(
                            "Unknown expression identifier `{}` in the source of dictionary {}",
                            field.name(),
                            self.identity().qualified_name()
                        ),
                    )
                })?;
                Ok(cast(column, field.data_type())?)
            })
            .collect::<Result<Vec<_>>>()?;
        let rows = RecordBatch::try_new(Arc::clone(&self.schema), columns)?;
        // FLAT keeps a key's last row, as ClickHouse's array by key does;
        // the hashed layouts its first.
        let last_wins = self.text.layout.0 == "FLAT";
        let index = KeyIndex::build(
            self.key_fields(),
            std::slice::from_ref(&rows),
            &self.key_columns(),
            last_wins,
        )?;
        // Each key's row, in the source's order.
        let mut kept: Vec<u32> = index.rows.values().copied().collect();
        kept.sort_unstable();
        let rows = take_record_batch(&rows, &UInt32Array::from(kept))?;
        let index = KeyIndex::build(
            self.key_fields(),
            std::slice::from_ref(&rows),
            &self.key_columns(),
            false,
        )?;
        let loaded = Arc::new(Loaded {
            rows,
            index: Arc::new(index),
            at: Instant::now(),
            duration: started.elapsed(),
        });
        *self.loaded.write() = Some(Arc::clone(&loaded));
        *self.last_error.lock() = None;
        Ok(loaded)
    }

    /// Forgets the rows: the next use loads them again.
    pub fn unload(&self) {
        *self.loaded.write() = None;
    }
}

fn layout_type(layout: &str) -> Option<&'static str> {
    LAYOUTS.iter().find(|(l, _)| *l == layout).map(|(_, t)| *t)
}

#[async_trait]
impl TableProvider for Dictionary {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        _state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        let loaded = self.loaded().ok_or_else(|| {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Dictionary {} is not loaded",
                    self.identity().qualified_name()
                ),
            )
            .into_datafusion()
        })?;
        Ok(CountingExec::new(MemorySourceConfig::try_new_exec(
            &[vec![loaded.rows.clone()]],
            Arc::clone(&self.schema),
            projection.cloned(),
        )?))
    }

    async fn insert_into(
        &self,
        _state: &dyn Session,
        _input: Arc<dyn ExecutionPlan>,
        _insert_op: InsertOp,
    ) -> DfResult<Arc<dyn ExecutionPlan>> {
        Err(super::write_refused("Dictionary"))
    }
}
