-- MergeTree scans apply WHERE and PREWHERE themselves, reading the filter's
-- columns first and the others only where rows pass: every filter shape must
-- give the rows it gives anywhere else, NULLs, virtual columns and
-- columns left out of the select list included.
CREATE TABLE f (k UInt64, s String, n Nullable(Int32), d Date) ENGINE = MergeTree PARTITION BY toYYYYMM(d) ORDER BY k SETTINGS index_granularity = 16;
INSERT INTO f SELECT number, toString(number % 37), if(number % 5 = 0, NULL, toInt32(number % 11)), toDate('2024-01-25') + intDiv(number, 100) FROM numbers(1000);
SELECT k, n FROM f WHERE s = '12' ORDER BY k LIMIT 5;
SELECT count() FROM f WHERE s = '12';
SELECT count() FROM f WHERE '12' = s;
SELECT count() FROM f WHERE s != '12';
SELECT count() FROM f WHERE s = '';
SELECT count() FROM f WHERE s = 'no such value';
SELECT count(), sum(k) FROM f WHERE n = 3;
SELECT count() FROM f WHERE n IS NULL;
SELECT count() FROM f WHERE n != 3;
SELECT count() FROM f WHERE NOT (n = 3);
SELECT k FROM f WHERE s = '5' AND n > 4 ORDER BY k;
SELECT k FROM f WHERE s = '5' OR k = 999 ORDER BY k DESC LIMIT 3;
SELECT d, count() FROM f WHERE s IN ('1', '2') AND d >= '2024-02-01' GROUP BY d ORDER BY d LIMIT 3;
SELECT k FROM f PREWHERE s = '30' WHERE k > 500 ORDER BY k;
SELECT k, s FROM f WHERE length(s) = 2 AND k % 100 = 99 ORDER BY k LIMIT 4;
SELECT _partition_id, count() FROM f WHERE s = '7' GROUP BY _partition_id ORDER BY _partition_id;
SELECT count() FROM f WHERE _partition_id = '202402' AND s = '7';
SELECT count() FROM f WHERE rand() >= 0;
SELECT count() FROM f WHERE k < 3 AND s = '1';
SELECT max(k) FROM f WHERE k < 1000000 AND s LIKE '3%';
SELECT k FROM f WHERE toUInt64(s) = k ORDER BY k;
SELECT count() FROM f WHERE 1;
SELECT count() FROM f WHERE 0;
SELECT * FROM f WHERE k = 517;
