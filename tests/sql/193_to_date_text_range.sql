-- text dates outside a Date's range stop at its ends (Date32 keeps them)
SELECT toDate('1969-12-31'), toDate('1900-01-01'), toDate('2150-01-01'), toDate('2149-06-06'), toDate('2000-01-01'), CAST('1960-01-01' AS Date);
SELECT toDate(s), toDate32(s) FROM (SELECT '1950-05-05' AS s UNION ALL SELECT '2200-01-01' UNION ALL SELECT '2024-02-29') ORDER BY 1;
