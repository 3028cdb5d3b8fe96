//! The SQL user-defined functions of a process: kept by name, each stored
//! as its CREATE FUNCTION in `user_defined/function_<name>.sql` under the
//! data path (ClickHouse's layout), written to a temporary name and renamed,
//! and read back at start.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use parking_lot::RwLock;
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::user_functions::{UserFunction, parse_create_function};

#[derive(Debug)]
pub struct UserFunctions {
    directory: PathBuf,
    functions: RwLock<BTreeMap<String, UserFunction>>,
}

impl UserFunctions {
    /// The functions stored in `directory` (created if missing).
    pub fn open(directory: PathBuf) -> Result<UserFunctions> {
        fs::create_dir_all(&directory).map_err(|e| io_error(&directory, e))?;
        let mut functions = BTreeMap::new();
        let mut paths: Vec<PathBuf> = fs::read_dir(&directory)
            .map_err(|e| io_error(&directory, e))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "sql"))
            .collect();
        paths.sort();
        for path in paths {
            let text = fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
            let Some(create) = parse_create_function(&text)? else {
                return Err(StrataError::new(
                    ErrorCode::CORRUPTED_DATA,
                    format!("{} does not hold a CREATE FUNCTION", path.display()),
                ));
            };
            functions.insert(create.function.name.clone(), create.function);
        }
        Ok(UserFunctions {
            directory,
            functions: RwLock::new(functions),
        })
    }

    pub fn get(&self, name: &str) -> Option<UserFunction> {
        self.functions.read().get(name).cloned()
    }

    /// Every function, by name.
    pub fn all(&self) -> Vec<UserFunction> {
        self.functions.read().values().cloned().collect()
    }

    /// Stores `function`, replacing one of its name when `replace`; false
    /// when one exists and is kept.
    pub fn add(&self, function: UserFunction, replace: bool) -> Result<bool> {
        let mut functions = self.functions.write();
        if functions.contains_key(&function.name) && !replace {
            return Ok(false);
        }
        let path = self.file(&function.name);
        let temporary = path.with_extension("sql.tmp");
        fs::write(&temporary, function.create_query()).map_err(|e| io_error(&temporary, e))?;
        fs::rename(&temporary, &path).map_err(|e| io_error(&path, e))?;
        functions.insert(function.name.clone(), function);
        Ok(true)
    }

    /// Removes the function `name`; false when there is none.
    pub fn remove(&self, name: &str) -> Result<bool> {
        let mut functions = self.functions.write();
        if functions.remove(name).is_none() {
            return Ok(false);
        }
        let path = self.file(name);
        fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
        Ok(true)
    }

    fn file(&self, name: &str) -> PathBuf {
        let escaped: String = name
            .chars()
            .map(|c| match c.is_ascii_alphanumeric() || c == '_' {
                true => c.to_string(),
                false => format!("%{:02X}", c as u32),
            })
            .collect();
        self.directory.join(format!("function_{escaped}.sql"))
    }
}

fn io_error(path: &Path, error: std::io::Error) -> StrataError {
    StrataError::new(
        ErrorCode::CANNOT_OPEN_FILE,
        format!("{}: {error}", path.display()),
    )
}
