-- A NULL modifier makes a column Nullable; NOT NULL keeps it as it is.
DROP TABLE IF EXISTS null_modifier;
CREATE TABLE null_modifier (s String NULL, n Int32 NOT NULL, d String DEFAULT 'x' NULL) ENGINE = Memory;
DESCRIBE null_modifier;
INSERT INTO null_modifier VALUES (NULL, 1, NULL), ('a', 2, 'b');
SELECT * FROM null_modifier ORDER BY n;
DROP TABLE null_modifier;
CREATE TABLE null_modifier (s Nullable(String) NULL) ENGINE = Memory; -- { serverError ILLEGAL_SYNTAX_FOR_DATA_TYPE }
CREATE TABLE null_modifier (s Nullable(String) NOT NULL) ENGINE = Memory; -- { serverError ILLEGAL_SYNTAX_FOR_DATA_TYPE }
