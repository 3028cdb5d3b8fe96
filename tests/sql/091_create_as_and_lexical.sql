#!/usr/bin/env strata
-- CREATE TABLE AS another table, EMPTY AS SELECT, # comments, escapes in names and DDL strings.
CREATE TABLE src (k UInt64, s String DEFAULT 'q\'r' CODEC(ZSTD(1))) ENGINE = MergeTree ORDER BY k;
CREATE TABLE cp AS src;
SHOW CREATE TABLE cp;
CREATE TABLE cp2 AS default.src ENGINE = Memory;
SHOW CREATE TABLE cp2;
INSERT INTO cp (k) VALUES (1);
SELECT * FROM cp;
CREATE TABLE em ENGINE = MergeTree ORDER BY a EMPTY AS SELECT number AS a, toString(number) AS b FROM numbers(5);
SHOW CREATE TABLE em;
SELECT count() FROM em;
CREATE TABLE em2 (a UInt64, b String) ENGINE = Memory EMPTY AS SELECT number AS a, toString(number) AS b FROM numbers(5);
SELECT count() FROM em2;
CREATE TABLE em3 ENGINE = Memory AS SELECT number AS a FROM numbers(5);
SELECT count() FROM em3;
# a comment
SELECT 1 # a trailing comment
;
SELECT 2 #! another
;
WITH dummy = 2 SELECT 1;
WITH 1 + 1, 3 AS x SELECT x;
SELECT 1 AS `a\`b`, 2 AS `c``d` FORMAT TSVWithNames;
CREATE TABLE d (k UInt64, c String DEFAULT 'x\'y') ENGINE = MergeTree ORDER BY k;
INSERT INTO d (k) VALUES (1);
SELECT * FROM d;
SHOW CREATE TABLE d;
CREATE TABLE p (k UInt64, category String) ENGINE = MergeTree PARTITION BY (category = 'a\\') ORDER BY k;
INSERT INTO p VALUES (1, 'a\\'), (2, 'b');
SELECT *, _partition_id FROM p ORDER BY k;
