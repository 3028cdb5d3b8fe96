//! The interactive prompt `strata local` and `strata client` share: line
//! editing and history (rustyline), statements over several lines until the
//! `;`, and Tab completion of keywords, functions, databases, tables and
//! columns, with only tables and databases offered after `FROM`, `JOIN`,
//! `INTO`, `TABLE` and the like.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::sql::sqlparser::keywords::ALL_KEYWORDS;
use parking_lot::RwLock;
use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

/// Candidates shown for one Tab at most.
const CANDIDATES_MAX: usize = 200;

/// Words after which a table (or database) name comes.
const TABLE_CONTEXT: [&str; 10] = [
    "FROM", "JOIN", "INTO", "TABLE", "UPDATE", "DESCRIBE", "DESC", "EXISTS", "TRUNCATE", "OPTIMIZE",
];

/// What the prompt completes, as read from the server's catalog.
#[derive(Debug, Default)]
pub struct Names {
    /// Tables of the current database unqualified, and every table as `db.table`.
    tables: Vec<String>,
    databases: Vec<String>,
    /// Functions and columns.
    other: Vec<String>,
}

impl Names {
    /// Lists names as `kind<TAB>name` rows; [`Names::from_tsv`] reads its result.
    pub const QUERY: &str = "SELECT 'function', name FROM system.functions \
        UNION ALL SELECT 'database', name FROM system.databases \
        UNION ALL SELECT 'table', name FROM system.tables WHERE database = currentDatabase() \
        UNION ALL SELECT 'table', concat(database, '.', name) FROM system.tables \
        UNION ALL SELECT DISTINCT 'column', name FROM system.columns";

    pub fn from_tsv(text: &str) -> Names {
        let mut names = Names::default();
        for line in text.lines() {
            let Some((kind, name)) = line.split_once('\t') else {
                continue;
            };
            let list = match kind {
                "table" => &mut names.tables,
                "database" => &mut names.databases,
                _ => &mut names.other,
            };
            list.push(name.to_string());
        }
        for list in [&mut names.tables, &mut names.databases, &mut names.other] {
            list.sort_unstable();
            list.dedup();
        }
        names
    }

    /// Completions of `word`, given the word before it.
    fn candidates(&self, word: &str, previous: &str) -> Vec<String> {
        let lower = word.to_ascii_lowercase();
        let matches = |name: &&String| name.to_ascii_lowercase().starts_with(&lower);
        let previous = previous.to_ascii_uppercase();
        let mut found: Vec<String> = if TABLE_CONTEXT.contains(&previous.as_str()) {
            let tables = self.tables.iter().chain(&self.databases);
            tables.filter(matches).cloned().collect()
        } else {
            // Keywords in the case the word was typed in (upper when it is empty).
            let lower_case = word.chars().next().is_some_and(|c| c.is_ascii_lowercase());
            let keywords = ALL_KEYWORDS
                .iter()
                .filter(|k| k.to_ascii_lowercase().starts_with(&lower))
                .map(|k| {
                    if lower_case {
                        k.to_ascii_lowercase()
                    } else {
                        k.to_string()
                    }
                });
            let names = self.other.iter().chain(&self.tables).filter(matches);
            keywords.chain(names.cloned()).collect()
        };
        found.sort_unstable();
        found.dedup();
        found.truncate(CANDIDATES_MAX);
        found
    }
}

struct SqlHelper {
    names: Arc<RwLock<Names>>,
}

impl Completer for SqlHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
        let before = &line[..pos];
        let start = before
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_word(*c))
            .last()
            .map_or(pos, |(i, _)| i);
        let word = &before[start..];
        let previous = before[..start]
            .split(|c: char| !is_word(c))
            .rfind(|w| !w.is_empty())
            .unwrap_or("");
        let pairs = self
            .names
            .read()
            .candidates(word, previous)
            .into_iter()
            .map(|name| Pair {
                display: name.clone(),
                replacement: name,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for SqlHelper {
    type Hint = String;
}

impl Highlighter for SqlHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        _default: bool,
    ) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

impl Validator for SqlHelper {}

impl Helper for SqlHelper {}

/// Reads statements at the terminal.
pub struct Prompt {
    editor: Editor<SqlHelper, FileHistory>,
    names: Arc<RwLock<Names>>,
    history: Option<PathBuf>,
}

impl Prompt {
    pub fn new() -> Result<Prompt, String> {
        let mut editor: Editor<SqlHelper, FileHistory> =
            Editor::new().map_err(|e| format!("Cannot start the line editor: {e}"))?;
        let names = Arc::new(RwLock::new(Names::default()));
        editor.set_helper(Some(SqlHelper {
            names: Arc::clone(&names),
        }));
        let history =
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".strata_history"));
        if let Some(path) = &history {
            let _ = editor.load_history(path);
        }
        Ok(Prompt {
            editor,
            names,
            history,
        })
    }

    /// Replaces what Tab completes.
    pub fn set_names(&self, names: Names) {
        *self.names.write() = names;
    }

    /// The next statement, read over as many lines as it takes to reach a
    /// `;`; None when the user leaves (`exit`, `quit`, Ctrl-D). Ctrl-C
    /// drops the statement being typed.
    pub fn next_statement(&mut self) -> Option<String> {
        let mut buffer = String::new();
        loop {
            let prompt = if buffer.is_empty() {
                "strata :) "
            } else {
                ":-] "
            };
            match self.editor.readline(prompt) {
                Ok(line) => {
                    let trimmed = line.trim();
                    if buffer.is_empty() && is_exit(trimmed) {
                        return None;
                    }
                    if !buffer.is_empty() {
                        buffer.push('\n');
                    }
                    buffer.push_str(&line);
                    if buffer.trim_end().ends_with(';') {
                        let _ = self.editor.add_history_entry(buffer.trim());
                        return Some(buffer);
                    }
                }
                Err(ReadlineError::Interrupted) => buffer.clear(),
                Err(ReadlineError::Eof) => return None,
                Err(e) => {
                    eprintln!("{e}");
                    return None;
                }
            }
        }
    }
}

impl Drop for Prompt {
    fn drop(&mut self) {
        if let Some(path) = &self.history {
            let _ = self.editor.save_history(path);
        }
    }
}

fn is_exit(line: &str) -> bool {
    ["exit", "quit", "exit;", "quit;", "q", "\\q"].contains(&line)
}

/// Whether a statement may change what Tab completes.
pub fn changes_names(statement: &str) -> bool {
    let first = statement.split_whitespace().next().unwrap_or("");
    [
        "CREATE", "DROP", "ALTER", "RENAME", "ATTACH", "DETACH", "USE",
    ]
    .iter()
    .any(|k| first.eq_ignore_ascii_case(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        Names::from_tsv(
            "function\tsum\nfunction\tsubstring\ndatabase\tsales\ntable\tsummary\n\
             table\tsales.summary\ncolumn\tsubtotal\n",
        )
    }

    #[test]
    fn after_from_only_tables_and_databases_are_offered() {
        assert_eq!(
            names().candidates("s", "from"),
            vec!["sales", "sales.summary", "summary"]
        );
    }

    #[test]
    fn elsewhere_keywords_come_in_the_case_typed_with_functions_and_columns() {
        let found = names().candidates("su", "SELECT");
        assert!(found.contains(&"substring".to_string()), "{found:?}");
        assert!(found.contains(&"subtotal".to_string()), "{found:?}");
        assert!(found.contains(&"sum".to_string()), "{found:?}");
        let upper = names().candidates("SEL", "");
        assert!(upper.contains(&"SELECT".to_string()), "{upper:?}");
        let lower = names().candidates("sel", "");
        assert!(lower.contains(&"select".to_string()), "{lower:?}");
    }

    #[test]
    fn statements_that_change_the_catalog_are_recognised() {
        assert!(changes_names("create table t (a UInt8) ENGINE = Memory;"));
        assert!(!changes_names("SELECT 1;"));
    }
}
