//! The `file(path [, format [, structure [, compression]]])` table function:
//! the files a path or glob names, read by the readers of
//! `INSERT ... FORMAT`, one stream per file.
//!
//! The format defaults to the one the file name's extension names, the
//! structure to the one inferred from the first file's first rows, and the
//! compression to the one the name ends in (`data.csv.gz`), as ClickHouse
//! does. Globs take `*`, `?`, `**`, `{a,b}` and `{1..10}`. A query that
//! names `_path`, `_file`, `_size` or `_time` sees them too
//! ([`super::input_columns`]).

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::Result;
use datafusion::datasource::MemTable;
use strata_common::{ErrorCode, StrataError};
use strata_formats::encoding::Encoding;
use strata_formats::format_name_of_file;
use strata_formats::input::InputFormat;

use super::format_function::{target_of_columns, target_of_structure, text_arguments};
use super::input_columns::InputFacts;
use super::input_stream::{InputStream, Location, Source, with_virtual_fields};
use super::inputs_table::InputsTable;
use crate::query_context::QueryContext;

/// Rows per block read from a file.
const BLOCK_ROWS: usize = 65_536;

/// The table function's name.
pub const NAME: &str = "file";

/// Where `file()` paths lead: anywhere, relative to the current directory
/// (`strata local`), or only inside one directory (the server's
/// `user_files_path`).
#[derive(Debug, Clone)]
pub enum UserFiles {
    Anywhere,
    Inside(PathBuf),
}

impl UserFiles {
    /// From the `user_files_path` server setting.
    pub fn from_setting(path: &str) -> Self {
        match path {
            "" => UserFiles::Anywhere,
            path => UserFiles::Inside(PathBuf::from(path)),
        }
    }

    /// The files `pattern` names, sorted; a pattern without glob characters
    /// names its one file whether or not it exists.
    fn files(&self, pattern: &str) -> std::result::Result<Vec<PathBuf>, StrataError> {
        let base = match self {
            UserFiles::Anywhere => std::env::current_dir().map_err(|e| {
                StrataError::new(
                    ErrorCode::CANNOT_STAT,
                    format!("Cannot read the current directory: {e}"),
                )
            })?,
            UserFiles::Inside(root) => root.clone(),
        };
        let mut files = Vec::new();
        for pattern in expand_braces(pattern) {
            let path = base.join(&pattern);
            self.check_inside(&path)?;
            if !has_glob(&pattern) {
                files.push(path);
                continue;
            }
            let matched = glob::glob(&path.to_string_lossy()).map_err(|e| {
                StrataError::new(
                    ErrorCode::BAD_ARGUMENTS,
                    format!("Bad glob '{pattern}': {e}"),
                )
            })?;
            for path in matched.filter_map(std::result::Result::ok) {
                if path.is_file() {
                    self.check_inside(&path)?;
                    files.push(path);
                }
            }
        }
        files.sort();
        files.dedup();
        Ok(files)
    }

    /// The one file an insert writes, named without globs.
    pub(crate) fn file_to_write(&self, name: &str) -> std::result::Result<PathBuf, StrataError> {
        match self.files(name)?.as_slice() {
            [path] if !has_glob(name) => Ok(path.clone()),
            _ => Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Table function '{NAME}' writes one file: '{name}' is a glob"),
            )),
        }
    }

    /// Refuses a path that leaves the user files directory.
    fn check_inside(&self, path: &Path) -> std::result::Result<(), StrataError> {
        let UserFiles::Inside(root) = self else {
            return Ok(());
        };
        let inside = lexically_normal(path).starts_with(lexically_normal(root));
        // A symbolic link inside may lead outside: an existing file is
        // judged by where it really is.
        let really_inside = match (path.canonicalize(), root.canonicalize()) {
            (Ok(path), Ok(root)) => path.starts_with(root),
            _ => true,
        };
        if inside && really_inside {
            return Ok(());
        }
        Err(StrataError::new(
            ErrorCode::DATABASE_ACCESS_DENIED,
            format!("File {} is not inside {}", path.display(), root.display()),
        ))
    }
}

/// `path` with `.` and `..` resolved by name, without touching the disk.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

pub(crate) fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?'])
}

/// ClickHouse's brace alternatives, `{a,b}` and `{1..3}`, as the patterns
/// they stand for (globs with `*` and `?` are left to the glob crate).
pub(crate) fn expand_braces(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_string()];
    };
    let Some(length) = pattern[open..].find('}') else {
        return vec![pattern.to_string()];
    };
    let (head, inside, tail) = (
        &pattern[..open],
        &pattern[open + 1..open + length],
        &pattern[open + length + 1..],
    );
    let alternatives: Vec<String> = match inside.split_once("..") {
        Some((from, to)) if from.parse::<u64>().is_ok() && to.parse::<u64>().is_ok() => {
            let (from, to) = (
                from.parse::<u64>().unwrap_or(0),
                to.parse::<u64>().unwrap_or(0),
            );
            // A leading zero pads every number to the width of the first.
            let width = if inside.starts_with('0') {
                inside.find("..").unwrap_or(0)
            } else {
                0
            };
            (from.min(to)..=from.max(to))
                .map(|n| format!("{n:0width$}"))
                .collect()
        }
        _ => inside.split(',').map(str::to_string).collect(),
    };
    alternatives
        .iter()
        .flat_map(|alternative| expand_braces(&format!("{head}{alternative}{tail}")))
        .collect()
}

/// The input format a file's or object's name names by its extension.
fn format_of_name(name: &str) -> Option<InputFormat> {
    let base = name.rsplit('/').next().unwrap_or(name);
    InputFormat::from_name(format_name_of_file(base)?).ok()
}

#[derive(Debug)]
pub struct FileFunction {
    pub user_files: UserFiles,
}

impl TableFunctionImpl for FileFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        self.table(args).map_err(StrataError::into_datafusion)
    }
}

impl FileFunction {
    fn table(
        &self,
        args: TableFunctionArgs,
    ) -> std::result::Result<Arc<dyn TableProvider>, StrataError> {
        let texts = text_arguments(NAME, &args)?;
        let arguments = FileArguments::of_texts(texts)?;
        let shows_facts = shows_input_columns(&args);
        let inputs = self
            .user_files
            .files(&arguments.path)?
            .into_iter()
            .map(|path| Input {
                name: path.to_string_lossy().into_owned(),
                facts: shows_facts.then(|| InputFacts::of_file(&path)),
                location: Location::File(path),
            })
            .collect();
        table_of_inputs(NAME, &arguments, inputs, shows_facts)
    }
}

/// Whether the query calling a table function names its virtual columns.
pub(crate) fn shows_input_columns(args: &TableFunctionArgs) -> bool {
    let query = args.session().config().get_extension::<QueryContext>();
    query.is_some_and(|query| query.names_input_columns())
}

/// One file or object a table function reads: its name tells its format
/// and compression.
pub(crate) struct Input {
    pub name: String,
    pub location: Location,
    /// The virtual columns' values, for a query that names them.
    pub facts: Option<InputFacts>,
}

/// The table of `inputs`, one stream each, in the format and structure the
/// arguments give, else those inferred from the first input; with the
/// virtual columns after the data's where `shows_facts`.
pub(crate) fn table_of_inputs(
    function: &str,
    arguments: &FileArguments,
    inputs: Vec<Input>,
    shows_facts: bool,
) -> std::result::Result<Arc<dyn TableProvider>, StrataError> {
    let (inferred, target) = match &arguments.structure {
        Some(structure) => (None, target_of_structure(function, structure)?),
        None => {
            let first = inputs.first().ok_or_else(|| {
                StrataError::new(
                    ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
                    format!(
                        "The table structure cannot be extracted, because there are no files with path '{}': give the structure",
                        arguments.path
                    ),
                )
            })?;
            let named = arguments.format(&first.name)?;
            let encoding = arguments.encoding(&first.name)?;
            let inferred = first.location.infer(named, encoding)?;
            let target = target_of_columns(&inferred.columns)?;
            (Some((named, inferred.format)), target)
        }
    };
    let schema = match shows_facts {
        true => with_virtual_fields(&target.schema()),
        false => target.schema(),
    };
    if inputs.is_empty() {
        // A glob that matches nothing is an empty table, as in ClickHouse.
        let empty =
            MemTable::try_new(schema, vec![Vec::new()]).map_err(StrataError::from_datafusion)?;
        return Ok(Arc::new(empty));
    }
    let streams = inputs
        .into_iter()
        .map(|input| {
            // Each input is read in the format its name gives; those of the
            // first one's format as inference found it (a header).
            let format = match (arguments.format(&input.name)?, inferred) {
                (named, Some((first, found))) if named == first => found,
                (named, _) => named,
            };
            let encoding = arguments.encoding(&input.name)?;
            let source = Source::Stored {
                location: input.location,
                encoding,
            };
            let mut stream = InputStream::new(format, target.clone(), source, BLOCK_ROWS);
            if let Some(facts) = input.facts {
                stream = stream.with_virtual_columns(facts);
            }
            Ok(stream)
        })
        .collect::<std::result::Result<Vec<_>, StrataError>>()?;
    Ok(Arc::new(InputsTable::new(schema, streams)))
}

/// `file()`'s arguments as written, `auto` as absent.
pub(crate) struct FileArguments {
    pub path: String,
    pub format: Option<String>,
    pub structure: Option<String>,
    pub compression: Option<String>,
}

impl FileArguments {
    pub(crate) fn of_texts(texts: Vec<String>) -> std::result::Result<Self, StrataError> {
        if texts.is_empty() || texts.len() > 4 {
            return Err(StrataError::new(
                ErrorCode::NUMBER_OF_ARGUMENTS_DOESNT_MATCH,
                format!(
                    "Table function '{NAME}' takes a path, a format, a structure and a compression, got {} arguments",
                    texts.len()
                ),
            ));
        }
        let given = |i: usize| texts.get(i).filter(|t| *t != "auto").cloned();
        Ok(FileArguments {
            path: texts[0].clone(),
            format: given(1),
            structure: given(2),
            compression: given(3),
        })
    }

    /// The input format of the file or object `name`: the one given, else
    /// its name's.
    fn format(&self, name: &str) -> std::result::Result<InputFormat, StrataError> {
        match &self.format {
            Some(format) => InputFormat::from_name(format),
            None => format_of_name(name).ok_or_else(|| {
                StrataError::new(
                    ErrorCode::CANNOT_EXTRACT_TABLE_STRUCTURE,
                    format!(
                        "The data format of '{name}' cannot be told from its name: give it, as in file(path, CSV)"
                    ),
                )
            }),
        }
    }

    /// The compression of the file or object `name`: the one given, else
    /// its name's.
    pub(crate) fn encoding(
        &self,
        name: &str,
    ) -> std::result::Result<Option<Encoding>, StrataError> {
        match &self.compression {
            Some(compression) => Encoding::from_compression_name(compression),
            None => Ok(Encoding::from_file_name(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_expand_to_alternatives_and_ranges() {
        assert_eq!(expand_braces("d.{csv,tsv}"), ["d.csv", "d.tsv"]);
        assert_eq!(expand_braces("p{1..3}/x"), ["p1/x", "p2/x", "p3/x"]);
        assert_eq!(expand_braces("f{01..03}"), ["f01", "f02", "f03"]);
        assert_eq!(expand_braces("{a,b}{1..2}"), ["a1", "a2", "b1", "b2"]);
        assert_eq!(expand_braces("plain"), ["plain"]);
    }

    #[test]
    fn a_path_leaving_user_files_is_refused() {
        let files = UserFiles::Inside(PathBuf::from("/srv/user_files"));
        assert!(
            files
                .check_inside(Path::new("/srv/user_files/a/../b.csv"))
                .is_ok()
        );
        let error = files
            .check_inside(Path::new("/srv/user_files/../secret"))
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::DATABASE_ACCESS_DENIED);
        assert!(files.files("/etc/passwd").is_err());
    }

    #[test]
    fn the_extension_names_the_format() {
        let format = format_of_name;
        assert_eq!(format("a/d.csv.gz"), InputFormat::from_name("CSV").ok());
        assert_eq!(
            format("d.jsonl"),
            InputFormat::from_name("JSONEachRow").ok()
        );
        assert_eq!(format("d.xyz"), None);
    }
}
