-- visibleWidth: the terminal columns of a value's text; Pretty formats align by it.
SELECT visibleWidth('abc'), visibleWidth(''), visibleWidth(NULL), visibleWidth(toNullable('abc'));
SELECT visibleWidth([1, 2]), visibleWidth(['a', 'bc']), visibleWidth((1, 'x')), visibleWidth(map('a', 1));
SELECT visibleWidth(3.5), visibleWidth(-1.5e20), visibleWidth(1 / 0), visibleWidth(true), visibleWidth(toDate('2020-01-01'));
SELECT visibleWidth('日本'), visibleWidth('é'), visibleWidth('a\nb'), visibleWidth('\t'), visibleWidth('abcdefgh\tx'), visibleWidth('\x01');
SELECT toTypeName(visibleWidth('a')), toTypeName(visibleWidth(toNullable('a')));
SELECT s, visibleWidth(s) FROM (SELECT arrayJoin(['', 'x', 'Ω', '中文字', [NULL, 'z']::Array(Nullable(String))::String]) AS s);
SELECT * FROM (SELECT '日本' AS a, 'xyz' AS b UNION ALL SELECT 'abcde', 'q') ORDER BY b DESC FORMAT PrettyCompactMonoBlock;
SELECT CAST([1, 2] AS String), CAST((1, 'a') AS String), CAST(map('a', 1) AS String), CAST([NULL, 'z'] AS Nullable(String));
SELECT '日本語' AS wide, 1 AS n FORMAT Pretty;
