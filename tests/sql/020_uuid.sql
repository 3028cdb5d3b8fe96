-- UUID: read from text however a ClickHouse user writes one, shown as text,
-- compared with strings, kept by MergeTree parts. The values are chosen so
-- that ClickHouse's order (second half first) and Strata's (byte order) agree.
SELECT toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0'), toTypeName(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0'));
SELECT toUUID('61F0C4045CB311E7907BA6006AD3DBA0');
SELECT CAST('61f0c404-5cb3-11e7-907b-a6006ad3dba0' AS UUID), toTypeName(CAST('61f0c404-5cb3-11e7-907b-a6006ad3dba0' AS UUID));
SELECT toUUIDOrNull('nope'), toUUIDOrZero('nope'), toTypeName(toUUIDOrNull('nope'));
SELECT toString(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')), toTypeName(toString(toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')));
SELECT toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0') = '61f0c404-5cb3-11e7-907b-a6006ad3dba0';
SELECT toTypeName(generateUUIDv4()), length(toString(generateUUIDv4()));
SELECT uniqExact(u), count() FROM (SELECT generateUUIDv4() AS u FROM numbers(1000));
SELECT toUUID('nope'); -- { serverError CANNOT_PARSE_UUID }
SELECT toUUID('{61f0c404-5cb3-11e7-907b-a6006ad3dba0}'); -- { serverError CANNOT_PARSE_UUID }
CREATE TABLE u (id UUID, n UInt32, maybe Nullable(UUID)) ENGINE = MergeTree ORDER BY id;
INSERT INTO u VALUES ('61f0c404-5cb3-11e7-907b-a6006ad3dba0', 1, NULL), ('7e2a5b8f-1c3d-4e5f-9a9b-0c1d2e3f4a5b', 2, '61f0c404-5cb3-11e7-907b-a6006ad3dba0');
INSERT INTO u (n, id) VALUES (3, 'ffffffff-ffff-ffff-ffff-ffffffffffff');
INSERT INTO u SELECT toUUIDOrZero(''), 4, toUUID('7e2a5b8f-1c3d-4e5f-9a9b-0c1d2e3f4a5b');
INSERT INTO u FORMAT CSV
"0e2a5b8f-1c3d-4e5f-8a9b-0c1d2e3f4a5b",5,
0E2A5B8F1C3D4E5F8A9B0C1D2E3F4A5C,6,ffffffff-ffff-ffff-ffff-ffffffffffff
;
SELECT * FROM u ORDER BY n;
SELECT id, toTypeName(id), toTypeName(maybe) FROM u WHERE id = '7e2a5b8f-1c3d-4e5f-9a9b-0c1d2e3f4a5b';
SELECT n FROM u WHERE id IN ('61f0c404-5cb3-11e7-907b-a6006ad3dba0', 'ffffffff-ffff-ffff-ffff-ffffffffffff') ORDER BY n;
SELECT n FROM u WHERE '61f0c404-5cb3-11e7-907b-a6006ad3dba0' < id ORDER BY n;
SELECT id FROM u ORDER BY id;
SELECT id, count() FROM u GROUP BY id ORDER BY id DESC LIMIT 2;
SELECT count(), uniqExact(id), uniqExact(maybe) FROM u;
SELECT a.n, b.n, a.id FROM u AS a JOIN u AS b ON a.id = b.maybe ORDER BY a.n;
SELECT n FROM u WHERE maybe IS NULL ORDER BY n;
SELECT min(id), max(id), argMax(id, n), toTypeName(max(id)), max(maybe), toTypeName(max(maybe)) FROM u;
SELECT any(id), toTypeName(any(id)) FROM u WHERE n = 2;
SELECT min(id), toTypeName(min(id)) FROM u WHERE n > 100;
SELECT n % 2 AS odd, max(id) FROM u GROUP BY odd ORDER BY odd;
SELECT if(n < 3, id, toUUID('61f0c404-5cb3-11e7-907b-a6006ad3dba0')), coalesce(maybe, id) FROM u ORDER BY n;
SELECT n FROM u WHERE id BETWEEN '0e2a5b8f-1c3d-4e5f-8a9b-0c1d2e3f4a5c' AND '7e2a5b8f-1c3d-4e5f-9a9b-0c1d2e3f4a5b' ORDER BY n;
SELECT n FROM u WHERE id NOT IN ('61f0c404-5cb3-11e7-907b-a6006ad3dba0') AND id != '00000000-0000-0000-0000-000000000000' ORDER BY n;
SELECT * FROM u WHERE n = 2 FORMAT JSONEachRow;
SELECT * FROM u WHERE n = 2 FORMAT CSV;
SELECT * FROM u WHERE n = 2 FORMAT TSVWithNamesAndTypes;
SHOW CREATE TABLE u;
SELECT name, type FROM system.columns WHERE table = 'u' ORDER BY position;
INSERT INTO u VALUES ('not-a-uuid', 7, NULL); -- { serverError CANNOT_PARSE_UUID }
SELECT count() FROM u;
OPTIMIZE TABLE u FINAL;
SELECT id, n FROM u ORDER BY id LIMIT 3;
-- Two UUIDv7s differ and say their version; their order is not their time
-- order, since UUIDs compare by their low half (a counter ClickHouse reseeds
-- every millisecond) first.
SELECT generateUUIDv7() != generateUUIDv7(1), substring(toString(generateUUIDv7()), 15, 1), toTypeName(generateUUIDv7());
