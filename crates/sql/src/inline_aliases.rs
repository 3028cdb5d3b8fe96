//! Aliases defined inside an expression, `(expr AS name)`, as ClickHouse
//! allows anywhere (`SELECT (1 AS a) + a`, `WHERE (x * 2 AS y) > 0 AND y <
//! 10`), rewritten on the tokens, since sqlparser reads `AS` only after a
//! select item: the parentheses keep `(expr)`, and every other use of `name`
//! in the same query (not in its subqueries, not as a qualified or called
//! name) becomes `(expr)`. A whole select item `(expr AS name)` stays an
//! alias, `expr AS name`, so the column keeps its name. An argument of a
//! call or an element of a tuple or array may define one too (`tuple(1 AS
//! a, 'x' AS b)`, `plus(1 AS a, a)`, `[0 AS x]`): `AS name` is dropped there, and uses become
//! `(expr)` the same way; so may an item of GROUP BY (`GROUP BY x % 3 AS k`).

use datafusion::sql::sqlparser::keywords::Keyword;
use datafusion::sql::sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

use crate::clickhouse_tokens::{is_space, keyword, matching_open};

/// One `( expr AS name )` or argument `expr AS name`: the indexes of its
/// brackets (an argument's are `None`), of its expression's first token, of
/// `AS` and of the name.
struct Definition {
    brackets: Option<(usize, usize)>,
    start: usize,
    alias: usize,
    name: usize,
    /// The subquery whose text holds it (see [`scopes`]).
    scope: usize,
}

pub(crate) fn inline_aliases(tokens: Vec<TokenWithSpan>) -> Vec<TokenWithSpan> {
    let scopes = scopes(&tokens);
    let grouped = (0..tokens.len()).filter_map(|close| definition(&tokens, close, &scopes));
    let arguments = (0..tokens.len()).filter_map(|alias| argument(&tokens, alias, &scopes));
    let keys = (0..tokens.len()).filter_map(|alias| grouping_key(&tokens, alias, &scopes));
    let definitions: Vec<Definition> = grouped.chain(arguments).chain(keys).collect();
    if definitions.is_empty() {
        return tokens;
    }
    let mut replaced: Vec<Option<Vec<TokenWithSpan>>> = vec![None; tokens.len()];
    let mut used = Vec::new();
    for d in &definitions {
        if let Some((open, close)) = d.brackets
            && is_select_item(&tokens, open, close)
        {
            replaced[open] = Some(Vec::new());
            replaced[close] = Some(Vec::new());
            continue;
        }
        replaced[d.alias] = Some(Vec::new());
        replaced[d.name] = Some(Vec::new());
        used.push(d);
    }
    // Copies of an expression leave out the aliases defined inside it
    // (`if(x = 0 AS c, 1, 0) AS i`).
    let removed: Vec<bool> = replaced.iter().map(Option::is_some).collect();
    for d in used {
        let name = name_of(&tokens[d.name]);
        let expression: Vec<TokenWithSpan> = (d.start..d.alias)
            .filter(|&i| !removed[i])
            .map(|i| tokens[i].clone())
            .collect();
        for (i, token) in tokens.iter().enumerate() {
            let defining = definitions.iter().any(|o| o.name == i);
            if scopes[i] == d.scope && !defining && is_reference(&tokens, i, &name) {
                let bracket = |bracket| TokenWithSpan {
                    token: bracket,
                    span: token.span,
                };
                let mut use_ = vec![bracket(Token::LParen)];
                use_.extend_from_slice(&expression);
                use_.push(bracket(Token::RParen));
                // Used alone as a select item, the column keeps the alias's name.
                if is_select_item(&tokens, i, i) {
                    let space = bracket(Token::Whitespace(Whitespace::Space));
                    use_.extend([space.clone(), tokens[d.alias].clone(), space, token.clone()]);
                }
                replaced[i] = Some(use_);
            }
        }
    }
    tokens
        .iter()
        .zip(replaced)
        .flat_map(|(token, replacement)| replacement.unwrap_or_else(|| vec![token.clone()]))
        .collect()
}

/// `( expr AS name )` closing at `close`, where the bracket groups an
/// expression (not a call's arguments, a subquery or a tuple).
fn definition(tokens: &[TokenWithSpan], close: usize, scopes: &[usize]) -> Option<Definition> {
    if tokens[close].token != Token::RParen {
        return None;
    }
    let name = previous(tokens, close)?;
    let alias = previous(tokens, name)?;
    let Token::Word(_) = &tokens[name].token else {
        return None;
    };
    if keyword(&tokens[alias]) != Keyword::AS {
        return None;
    }
    let open = matching_open(tokens, close)?;
    let first = next(tokens, open)?;
    let starts_query = matches!(keyword(&tokens[first]), Keyword::SELECT | Keyword::WITH);
    let groups = previous(tokens, open).is_none_or(|before| groups_expression(&tokens[before]));
    let top_level = nesting(tokens, open, alias) == 0;
    let single = one_expression(tokens, open, alias);
    (first < alias && !starts_query && groups && top_level && single).then_some(Definition {
        brackets: Some((open, close)),
        start: first,
        alias,
        name,
        scope: scopes[open],
    })
}

/// `expr AS name` at `alias`, written as an argument of a call (not
/// `CAST(x AS T)` or a `REPLACE` transformer), an element of a tuple or of
/// an array literal: between the bracket or a comma and the next comma or
/// the closing bracket.
fn argument(tokens: &[TokenWithSpan], alias: usize, scopes: &[usize]) -> Option<Definition> {
    if keyword(&tokens[alias]) != Keyword::AS {
        return None;
    }
    let name = next(tokens, alias)?;
    let after = next(tokens, name)?;
    let Token::Word(_) = &tokens[name].token else {
        return None;
    };
    if !matches!(
        tokens[after].token,
        Token::Comma | Token::RParen | Token::RBracket
    ) {
        return None;
    }
    let open = enclosing_open(tokens, alias)?;
    let array = tokens[open].token == Token::LBracket;
    let first = next(tokens, open)?;
    let starts_query = matches!(keyword(&tokens[first]), Keyword::SELECT | Keyword::WITH);
    // `CAST(x AS T)` names a type, `* REPLACE (expr AS name)` a column.
    let not_alias = previous(tokens, open).is_some_and(|before| {
        matches!(
            keyword(&tokens[before]),
            Keyword::CAST | Keyword::TRY_CAST | Keyword::SAFE_CAST | Keyword::REPLACE
        )
    });
    // A single `(expr AS name)` is the grouped form [`definition`] finds.
    let single = tokens[after].token == Token::RParen && one_expression(tokens, open, alias);
    let groups = previous(tokens, open).is_none_or(|before| groups_expression(&tokens[before]));
    let grouped = starts_query || not_alias || (single && groups);
    if (grouped && !array) || nesting(tokens, open, alias) != 0 {
        return None;
    }
    let separator = (open + 1..alias)
        .rev()
        .find(|&i| tokens[i].token == Token::Comma && nesting(tokens, open, i) == 0);
    let start = next(tokens, separator.unwrap_or(open))?;
    (start < alias).then_some(Definition {
        brackets: None,
        start,
        alias,
        name,
        scope: scopes[open],
    })
}

/// `expr AS name` at `alias`, written as an item of GROUP BY: after `GROUP
/// BY` or a comma of its list, before a comma or the clause's end.
fn grouping_key(tokens: &[TokenWithSpan], alias: usize, scopes: &[usize]) -> Option<Definition> {
    if keyword(&tokens[alias]) != Keyword::AS {
        return None;
    }
    let name = next(tokens, alias)?;
    let Token::Word(_) = &tokens[name].token else {
        return None;
    };
    let ends = next(tokens, name).is_none_or(|after| {
        matches!(
            tokens[after].token,
            Token::Comma | Token::RParen | Token::SemiColon
        ) || matches!(
            keyword(&tokens[after]),
            Keyword::HAVING
                | Keyword::ORDER
                | Keyword::LIMIT
                | Keyword::WITH
                | Keyword::WINDOW
                | Keyword::QUALIFY
                | Keyword::SETTINGS
                | Keyword::FORMAT
                | Keyword::UNION
                | Keyword::EXCEPT
                | Keyword::INTERSECT
        )
    });
    if !ends {
        return None;
    }
    // Walk back over this level's tokens to `GROUP BY`, remembering the last comma.
    let mut depth = 0i32;
    let mut separator = None;
    for i in (0..alias).rev() {
        match tokens[i].token {
            Token::RParen | Token::RBracket => depth += 1,
            Token::LParen | Token::LBracket if depth == 0 => return None,
            Token::LParen | Token::LBracket => depth -= 1,
            _ if depth > 0 => {}
            Token::Comma => {
                separator.get_or_insert(i);
            }
            _ => match keyword(&tokens[i]) {
                Keyword::BY => {
                    let grouped =
                        previous(tokens, i).is_some_and(|g| keyword(&tokens[g]) == Keyword::GROUP);
                    let start = next(tokens, separator.unwrap_or(i))?;
                    return (grouped && start < alias).then_some(Definition {
                        brackets: None,
                        start,
                        alias,
                        name,
                        scope: scopes[alias],
                    });
                }
                Keyword::SELECT | Keyword::FROM | Keyword::WHERE => return None,
                _ => {}
            },
        }
    }
    None
}

/// Whether a bracket after `token` groups an expression: after an
/// operator, a comma, another bracket or a keyword that starts one; after a
/// name it holds a call's arguments.
pub(crate) fn groups_expression(token: &TokenWithSpan) -> bool {
    match &token.token {
        Token::Word(w) if w.quote_style.is_some() => false,
        Token::Word(_) => matches!(
            keyword(token),
            Keyword::SELECT
                | Keyword::WHERE
                | Keyword::PREWHERE
                | Keyword::HAVING
                | Keyword::AND
                | Keyword::OR
                | Keyword::NOT
                | Keyword::ON
                | Keyword::WHEN
                | Keyword::THEN
                | Keyword::ELSE
                | Keyword::BY
                | Keyword::DISTINCT
                | Keyword::IN
                | Keyword::LIKE
                | Keyword::ILIKE
                | Keyword::BETWEEN
        ),
        Token::Number(..) | Token::SingleQuotedString(_) | Token::RParen | Token::RBracket => false,
        _ => true,
    }
}

/// A select item of its own: after SELECT, DISTINCT or a comma of the select
/// list, before a comma, FROM or the end.
fn is_select_item(tokens: &[TokenWithSpan], open: usize, close: usize) -> bool {
    let before = previous(tokens, open).map(|i| &tokens[i]);
    let after = next(tokens, close).map(|i| &tokens[i]);
    let starts = before.is_some_and(|t| {
        t.token == Token::Comma || matches!(keyword(t), Keyword::SELECT | Keyword::DISTINCT)
    });
    let ends = after.is_none_or(|t| {
        matches!(t.token, Token::Comma | Token::SemiColon | Token::EOF)
            || keyword(t) == Keyword::FROM
    });
    // A comma inside a call's brackets is not the select list's.
    let in_call = enclosing_open(tokens, open)
        .is_some_and(|open| previous(tokens, open).is_some_and(|i| !groups_expression(&tokens[i])));
    starts && ends && !in_call && in_select_list(tokens, open)
}

/// Whether `at` stands in a select list: walking back over its level's
/// tokens meets SELECT before any other clause.
fn in_select_list(tokens: &[TokenWithSpan], at: usize) -> bool {
    let mut depth = 0i32;
    for i in (0..at).rev() {
        match tokens[i].token {
            Token::RParen | Token::RBracket => depth += 1,
            Token::LParen | Token::LBracket if depth == 0 => return false,
            Token::LParen | Token::LBracket => depth -= 1,
            _ if depth > 0 => {}
            _ => match keyword(&tokens[i]) {
                Keyword::SELECT => return true,
                Keyword::FROM
                | Keyword::WHERE
                | Keyword::PREWHERE
                | Keyword::BY
                | Keyword::HAVING
                | Keyword::ON
                | Keyword::USING
                | Keyword::LIMIT
                | Keyword::QUALIFY
                | Keyword::WINDOW
                | Keyword::SETTINGS
                | Keyword::VALUES => return false,
                _ => {}
            },
        }
    }
    false
}

/// `name` used as a value at `i`: not qualified (`t.name`), not called
/// (`name(`), not itself an alias (`AS name`).
fn is_reference(tokens: &[TokenWithSpan], i: usize, name: &str) -> bool {
    if !matches!(&tokens[i].token, Token::Word(_)) || name_of(&tokens[i]) != name {
        return false;
    }
    let before = previous(tokens, i).map(|j| &tokens[j].token);
    let after = next(tokens, i).map(|j| &tokens[j].token);
    let qualified = matches!(before, Some(Token::Period)) || matches!(after, Some(Token::Period));
    let called = matches!(after, Some(Token::LParen));
    let aliased = previous(tokens, i).is_some_and(|j| keyword(&tokens[j]) == Keyword::AS);
    !qualified && !called && !aliased
}

fn name_of(token: &TokenWithSpan) -> String {
    match &token.token {
        Token::Word(w) => w.value.clone(),
        _ => String::new(),
    }
}

/// For each token, the index of the `(` that opens the subquery holding
/// it (`(SELECT ...`), or `usize::MAX` for the outermost query.
fn scopes(tokens: &[TokenWithSpan]) -> Vec<usize> {
    let mut stack: Vec<(usize, bool)> = Vec::new();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let scope = |stack: &[(usize, bool)]| {
            stack
                .iter()
                .rev()
                .find(|(_, query)| *query)
                .map_or(usize::MAX, |(open, _)| *open)
        };
        match token.token {
            Token::LParen => {
                out.push(scope(&stack));
                let query = next(tokens, i).is_some_and(|j| {
                    matches!(keyword(&tokens[j]), Keyword::SELECT | Keyword::WITH)
                });
                stack.push((i, query));
            }
            Token::RParen => {
                stack.pop();
                out.push(scope(&stack));
            }
            _ => out.push(scope(&stack)),
        }
    }
    out
}

/// Whether the tokens between `open` and `alias` are one expression: no
/// comma or other `AS` outside brackets (a tuple `(1 AS a, 2 AS b)` is not).
fn one_expression(tokens: &[TokenWithSpan], open: usize, alias: usize) -> bool {
    (open + 1..alias).all(|i| {
        let separates = tokens[i].token == Token::Comma || keyword(&tokens[i]) == Keyword::AS;
        !separates || nesting(tokens, open, i) != 0
    })
}

/// How many brackets are open at `at` counting from just after `open`.
fn nesting(tokens: &[TokenWithSpan], open: usize, at: usize) -> i32 {
    tokens[open + 1..at]
        .iter()
        .map(|t| match t.token {
            Token::LParen | Token::LBracket => 1,
            Token::RParen | Token::RBracket => -1,
            _ => 0,
        })
        .sum()
}

/// The bracket, `(` or `[`, enclosing the token at `open`, if any.
fn enclosing_open(tokens: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for i in (0..open).rev() {
        match tokens[i].token {
            Token::RParen | Token::RBracket => depth += 1,
            Token::LParen | Token::LBracket if depth == 0 => return Some(i),
            Token::LParen | Token::LBracket => depth -= 1,
            _ => {}
        }
    }
    None
}

fn previous(tokens: &[TokenWithSpan], i: usize) -> Option<usize> {
    (0..i).rev().find(|&j| !is_space(&tokens[j]))
}

fn next(tokens: &[TokenWithSpan], i: usize) -> Option<usize> {
    (i + 1..tokens.len()).find(|&j| !is_space(&tokens[j]) && tokens[j].token != Token::EOF)
}

#[cfg(test)]
mod tests {
    use datafusion::sql::sqlparser::dialect::ClickHouseDialect;

    use crate::clickhouse_tokens::tokenize;

    /// The rewritten statement, its spaces collapsed to one.
    fn rewritten(sql: &str) -> String {
        let text: String = tokenize(&ClickHouseDialect {}, sql)
            .unwrap()
            .iter()
            .map(|t| t.token.to_string())
            .collect();
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn aliases_inside_expressions() {
        assert_eq!(rewritten("SELECT (1 AS a) + a"), "SELECT (1 ) + (1 )");
        assert_eq!(rewritten("SELECT f((1 AS a), a)"), "SELECT f((1 ), (1 ))");
        assert_eq!(
            rewritten("SELECT x FROM t WHERE (x * 2 AS y) > 0 AND y < 10"),
            "SELECT x FROM t WHERE (x * 2 ) > 0 AND (x * 2 ) < 10"
        );
        // A select item of its own keeps its alias and name.
        assert_eq!(rewritten("SELECT (1 AS a), a + 1"), "SELECT 1 AS a, a + 1");
        // Used alone as a select item, it keeps the alias's name; elsewhere not.
        assert_eq!(
            rewritten("SELECT (1 AS a) + 1, a FROM t ORDER BY x, a"),
            "SELECT (1 ) + 1, (1 ) AS a FROM t ORDER BY x, (1 )"
        );
    }

    #[test]
    fn grouping_keys_define_aliases() {
        assert_eq!(
            rewritten("SELECT k, count() FROM t GROUP BY x % 3 AS k ORDER BY k"),
            "SELECT (x % 3 ) AS k, count() FROM t GROUP BY x % 3 ORDER BY (x % 3 )"
        );
        assert_eq!(
            rewritten("SELECT a, b FROM t GROUP BY x AS a, f(y, 1) AS b"),
            "SELECT (x ) AS a, (f(y, 1) ) AS b FROM t GROUP BY x , f(y, 1)"
        );
        let window = "SELECT sum(x) OVER (PARTITION BY y ORDER BY z) AS w FROM t";
        assert_eq!(rewritten(window), window);
    }

    #[test]
    fn other_brackets_with_as_stay() {
        for sql in [
            "SELECT CAST(1 AS String)",
            "SELECT * REPLACE (x * 10 AS x) FROM t",
            "SELECT * REPLACE (x * 10 AS x, y + 1 AS y) FROM t",
            "SELECT * FROM (SELECT 1 AS a) AS t",
            "SELECT a FROM t WHERE a IN (SELECT b AS a FROM u)",
        ] {
            let out = rewritten(sql);
            assert!(out.contains(" AS "), "{sql} became {out}");
        }
        // Arguments and tuple elements define aliases too.
        assert_eq!(
            rewritten("SELECT tuple(1 AS a, 'x' AS b) AS t, a"),
            "SELECT tuple(1 , 'x' ) AS t, (1 ) AS a"
        );
        assert_eq!(
            rewritten("SELECT (1 AS a, 2 AS b), b"),
            "SELECT (1 , 2 ), (2 ) AS b"
        );
        assert_eq!(rewritten("SELECT plus(1 AS a, a)"), "SELECT plus(1 , (1 ))");
        assert_eq!(
            rewritten("SELECT has([0 AS x], x)"),
            "SELECT has([0 ], (0 ))"
        );
        assert_eq!(
            rewritten("SELECT [1, 2 AS y], y"),
            "SELECT [1, 2 ], (2 ) AS y"
        );
        // Not inside a subquery, nor as a qualified or called name.
        assert_eq!(
            rewritten("SELECT (2 AS b) * b, t.b, b(1) FROM (SELECT b FROM u) AS t"),
            "SELECT (2 ) * (2 ), t.b, b(1) FROM (SELECT b FROM u) AS t"
        );
    }
}
