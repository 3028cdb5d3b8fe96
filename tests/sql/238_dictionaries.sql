-- Dictionaries over a table: dictGet and its family, keys converted, defaults for missing keys.
CREATE TABLE dict_source (id UInt64, name String, score Float64, n Nullable(Int32)) ENGINE = MergeTree ORDER BY id;
INSERT INTO dict_source VALUES (1, 'a', 1.5, NULL), (2, 'b', 2.5, 7), (3, 'c', 3.5, 8);
CREATE DICTIONARY plain_dict (id UInt64, name String DEFAULT 'none', score Float64, n Nullable(Int32)) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'dict_source')) LAYOUT(HASHED()) LIFETIME(MIN 0 MAX 1000);
SELECT number, dictGet('plain_dict', 'name', number), dictGet('plain_dict', 'score', number), dictGet(plain_dict, 'n', number) AS n, toTypeName(n) FROM numbers(5);
SELECT dictGetOrDefault('plain_dict', 'name', number, 'dflt'), dictGetOrNull('plain_dict', 'name', number) AS x, toTypeName(x), dictHas('plain_dict', number) FROM numbers(5);
SELECT dictGetString('plain_dict', 'name', toUInt64(1)), dictGetFloat64('plain_dict', 'score', toUInt64(2)), dictGetStringOrDefault('plain_dict', 'name', toUInt64(9), 'nine');
SELECT dictGet('plain_dict', ('name', 'score'), toUInt64(2)) AS t, toTypeName(t);
SELECT dictGet('plain_dict', 'name', 1), dictGet('plain_dict', 'name', toInt32(2)), dictGet('default.plain_dict', 'name', toUInt8(3));
SELECT * FROM plain_dict ORDER BY id;
SELECT count(), sum(score) FROM dictionary('plain_dict');
SELECT name, status, type, key.names, attribute.names, element_count, source, lifetime_max FROM system.dictionaries WHERE database = currentDatabase() AND name = 'plain_dict';
SHOW CREATE DICTIONARY plain_dict;
SELECT dictGet('plain_dict', 'missing', toUInt64(1)); -- { serverError BAD_ARGUMENTS }
SELECT dictGet('no_such_dict', 'name', toUInt64(1)); -- { serverError BAD_ARGUMENTS }
SELECT dictGet('plain_dict', 'name', 'x'); -- { serverError CANNOT_PARSE_TEXT }
-- A source changed after loading shows after SYSTEM RELOAD DICTIONARY.
INSERT INTO dict_source VALUES (4, 'd', 4.5, 9);
SELECT dictHas('plain_dict', toUInt64(4));
SYSTEM RELOAD DICTIONARY plain_dict;
SELECT dictHas('plain_dict', toUInt64(4)), dictGet('plain_dict', 'name', toUInt64(4));
-- A composite key, from a query.
CREATE DICTIONARY pair_dict (a String, b UInt8, v String) PRIMARY KEY a, b SOURCE(CLICKHOUSE(QUERY 'SELECT toString(number) AS a, toUInt8(number) AS b, concat(''v'', toString(number)) AS v FROM numbers(3)')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0);
SELECT dictGet('pair_dict', 'v', ('1', toUInt8(1))), dictGet('pair_dict', 'v', tuple('1', toUInt8(2))), dictHas('pair_dict', ('2', toUInt8(2)));
SELECT * FROM pair_dict ORDER BY a;
SELECT type, key.names, key.types FROM system.dictionaries WHERE database = currentDatabase() AND name = 'pair_dict';
-- Duplicate keys: the first row wins.
CREATE TABLE dup_source (k UInt64, v String) ENGINE = Memory;
INSERT INTO dup_source VALUES (1, 'first'), (1, 'second');
CREATE DICTIONARY dup_dict (k UInt64, v String) PRIMARY KEY k SOURCE(CLICKHOUSE(TABLE 'dup_source')) LAYOUT(FLAT()) LIFETIME(0);
SELECT dictGet('dup_dict', 'v', toUInt64(1)), count() FROM dup_dict;
-- Dropping.
CREATE DICTIONARY plain_dict (id UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'dict_source')) LAYOUT(HASHED()) LIFETIME(0); -- { serverError DICTIONARY_ALREADY_EXISTS }
CREATE DICTIONARY IF NOT EXISTS plain_dict (id UInt64, name String) PRIMARY KEY id SOURCE(CLICKHOUSE(TABLE 'dict_source')) LAYOUT(HASHED()) LIFETIME(0);
DROP DICTIONARY dup_dict;
DROP DICTIONARY dup_dict; -- { serverError UNKNOWN_TABLE }
DROP DICTIONARY IF EXISTS dup_dict;
SELECT dictGet('dup_dict', 'v', toUInt64(1)); -- { serverError BAD_ARGUMENTS }
SELECT name FROM system.dictionaries WHERE database = currentDatabase() ORDER BY name;
