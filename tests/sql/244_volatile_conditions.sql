-- A condition that reads no column but calls a volatile function decides each row,
-- and a NULL branch keeps the result Nullable whatever a draw at planning would say.
SELECT if(rowNumberInAllBlocks() < 2, NULL, 5) FROM numbers(3);
SELECT CASE WHEN rowNumberInAllBlocks() = 1 THEN NULL ELSE 'b' END FROM numbers(3);
SELECT multiIf(rowNumberInAllBlocks() = 0, NULL, 9) FROM numbers(3);
SELECT toTypeName(if(rand() % 2 = 0, NULL, 5));
SELECT count(), count(x) <= 1000 FROM (SELECT if(rand() % 2 = 0, NULL, number) AS x FROM numbers(1000));
SELECT count(), count(x) <= 1000 FROM (SELECT if(rand(1) % 3 = 0, 1, NULL) AS x FROM numbers(1000));
SELECT count(), count(x) <= 1000 FROM (SELECT CASE WHEN rand() % 2 = 0 THEN NULL WHEN rand(2) % 2 = 0 THEN 1 ELSE 2 END AS x FROM numbers(1000));
SELECT sum(x IS NULL) + sum(x IS NOT NULL) FROM (SELECT if(randCanonical() < 0.5, NULL, toString(number)) AS x FROM numbers(500));
