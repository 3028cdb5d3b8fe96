-- VALUES as a table in FROM: its rows typed as ClickHouse types literals, to their common type
SELECT * FROM (VALUES (1, 'x'), (300, 'y'));
SELECT toTypeName(c1), toTypeName(c2), c1 FROM (VALUES (1, 'x'), (-2, 'y')) AS t(c1, c2) ORDER BY c1;
SELECT count(), sum(c1) FROM (VALUES (1), (2), (3)) AS t(c1);
