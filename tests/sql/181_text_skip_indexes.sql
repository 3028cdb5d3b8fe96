-- Token and n-gram Bloom filter indexes (tokenbf_v1, ngrambf_v1): every
-- condition they prune by still returns every matching row.
CREATE TABLE logs (k UInt64, msg String, tags Array(String), code FixedString(4), INDEX tok msg TYPE tokenbf_v1(256, 3, 0) GRANULARITY 1, INDEX grams lower(msg) TYPE ngrambf_v1(3, 512, 2, 7) GRANULARITY 2, INDEX tag_tok tags TYPE tokenbf_v1(128, 2, 1) GRANULARITY 1, INDEX code_grams code TYPE ngrambf_v1(2, 64, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 8;
INSERT INTO logs SELECT number, concat(['GET', 'POST', 'PUT'][number % 3 + 1], ' /api/v', toString(number % 4), '/item?id=', toString(number), if(number % 50 = 7, ' ERROR timeout', ' ok'), if(number % 97 = 0, ' Été déjà vu', '')), [concat('user', toString(number % 11)), if(number % 13 = 0, 'vip', 'std')], toFixedString(hex(number % 200), 4) FROM numbers(1000);
SELECT count() FROM logs WHERE hasToken(msg, 'ERROR');
SELECT count() FROM logs WHERE hasToken(msg, 'timeout') AND k < 500;
SELECT count() FROM logs WHERE msg LIKE '% ERROR %';
SELECT count() FROM logs WHERE msg LIKE '%ERROR%';
SELECT count() FROM logs WHERE msg LIKE 'POST /api/v2%';
SELECT k FROM logs WHERE msg LIKE '%id=507 %' ORDER BY k;
SELECT k FROM logs WHERE msg = 'PUT /api/v3/item?id=311 ok' ORDER BY k;
SELECT k FROM logs WHERE msg IN ('GET /api/v0/item?id=0 ok Été déjà vu', 'nothing here', 'POST /api/v1/item?id=1 ok') ORDER BY k;
SELECT count() FROM logs WHERE startsWith(msg, 'PUT /api/v1');
SELECT count() FROM logs WHERE endsWith(msg, 'timeout');
SELECT count() FROM logs WHERE msg LIKE '%déjà%';
SELECT count() FROM logs WHERE lower(msg) LIKE '%error timeout%';
SELECT count() FROM logs WHERE lower(msg) LIKE '%id=12_ %';
SELECT count() FROM logs WHERE multiSearchAny(msg, ['id=999 ', 'id=3 ']);
SELECT count() FROM logs WHERE hasToken(msg, 'ERROR') OR hasToken(msg, 'Été');
SELECT count() FROM logs WHERE NOT hasToken(msg, 'ERROR');
SELECT count() FROM logs WHERE msg NOT LIKE '%ERROR%';
SELECT count() FROM logs WHERE msg ILIKE '%error%';
SELECT count() FROM logs WHERE hasToken(msg, 'nothing');
SELECT count() FROM logs WHERE msg LIKE '%nothing at all%';
SELECT count() FROM logs WHERE has(tags, 'vip');
SELECT count() FROM logs WHERE code = '0A0B';
SELECT count() FROM logs WHERE code = toFixedString('1F', 4);
-- After a merge, an update and a delete.
OPTIMIZE TABLE logs FINAL;
SELECT count() FROM logs WHERE hasToken(msg, 'ERROR');
ALTER TABLE logs UPDATE msg = 'rewritten ERROR' WHERE k = 8 SETTINGS mutations_sync = 2;
SELECT k FROM logs WHERE msg = 'rewritten ERROR';
SELECT count() FROM logs WHERE hasToken(msg, 'ERROR');
DELETE FROM logs WHERE hasToken(msg, 'timeout') AND k < 100;
SELECT count() FROM logs WHERE hasToken(msg, 'timeout');
ALTER TABLE logs ADD INDEX late msg TYPE ngrambf_v1(4, 256, 2, 0) GRANULARITY 1;
ALTER TABLE logs MATERIALIZE INDEX late SETTINGS mutations_sync = 2;
SELECT count() FROM logs WHERE msg LIKE '%item?id=42%';
-- Declarations ClickHouse refuses.
CREATE TABLE bad (s String, INDEX i s TYPE tokenbf_v1(256) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (s String, INDEX i s TYPE ngrambf_v1(3, 256, 2) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (s String, INDEX i s TYPE ngrambf_v1(0, 256, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (s String, INDEX i s TYPE tokenbf_v1(0, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (s String, INDEX i s TYPE tokenbf_v1(256, 0, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (s String, INDEX i s TYPE tokenbf_v1('a', 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (n UInt64, INDEX i n TYPE tokenbf_v1(256, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (s Nullable(String), INDEX i s TYPE ngrambf_v1(3, 256, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (n UInt64, INDEX i n TYPE set GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError INCORRECT_QUERY }
CREATE TABLE bad (n UInt64, INDEX i n TYPE set(-1) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError INCORRECT_QUERY }
CREATE TABLE bad (n UInt64, INDEX i n TYPE bloom_filter(2) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
CREATE TABLE bad (n UInt64, INDEX i n TYPE bloom_filter(0.1, 2) GRANULARITY 1) ENGINE = MergeTree ORDER BY tuple(); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE bad (n UInt64, INDEX i n TYPE minmax GRANULARITY 0) ENGINE = MergeTree ORDER BY tuple(); -- { serverError BAD_ARGUMENTS }
ALTER TABLE logs ADD INDEX worse k TYPE tokenbf_v1(256, 2, 0) GRANULARITY 1; -- { serverError BAD_ARGUMENTS }
CREATE TABLE fine (s String, n UInt64, INDEX a s TYPE tokenbf_v1(256, 2, 0), INDEX b n TYPE minmax(1) GRANULARITY 3, INDEX c (s, lower(s)) TYPE ngrambf_v1(3, 100, 2, 0) GRANULARITY 1) ENGINE = MergeTree ORDER BY n;
SHOW CREATE TABLE fine;
INSERT INTO fine SELECT toString(number), number FROM numbers(20);
SELECT n FROM fine WHERE s LIKE '%17%' ORDER BY n;
