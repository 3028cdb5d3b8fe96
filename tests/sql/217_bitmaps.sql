-- Bitmaps: groupBitmap's state, built, read, combined and folded.
SELECT bitmapMin(bitmapBuild(emptyArrayUInt32())) a, bitmapMax(bitmapBuild(emptyArrayUInt32())) b, bitmapMin(bitmapBuild([3,1])) c, toTypeName(c), bitmapCardinality(bitmapBuild([1,1,2])) d;
SELECT bitmapToArray(bitmapBuild([-1, 5]::Array(Int32))) a, toTypeName(a);
SELECT toTypeName(groupBitmapAndState(bitmapBuild([1,2]))), groupBitmapAnd(bitmapBuild([1,2])), groupBitmapOr(x) FROM (SELECT bitmapBuild([number, 10]) x FROM numbers(3));
SELECT bitmapContains(bitmapBuild([1,5]), 5), toTypeName(bitmapContains(bitmapBuild([1,5]), 5)), bitmapHasAny(bitmapBuild([1]), bitmapBuild([1,2])), bitmapHasAll(bitmapBuild([1]), bitmapBuild([1,2])), toTypeName(bitmapAndCardinality(bitmapBuild([1]), bitmapBuild([1,2])));
SELECT bitmapToArray(bitmapSubsetInRange(bitmapBuild([1,5,7,9,20]), 5, 9)), bitmapToArray(bitmapSubsetLimit(bitmapBuild([1,5,7,9,20]), 6, 2)), bitmapToArray(subBitmap(bitmapBuild([1,5,7,9,20]), 1, 2)), bitmapToArray(bitmapTransform(bitmapBuild([1,2,3]), [1,2], [5,3]));
SELECT toTypeName(groupBitmapOr(bitmapBuild([1,2]))), toTypeName(groupBitmapXor(bitmapBuild([1,2]::Array(UInt32)))), groupBitmapXor(x), toTypeName(groupBitmapMerge(x)), groupBitmapMerge(x) FROM (SELECT bitmapBuild([number, 10]) x FROM numbers(3));
SELECT bitmapMin(bitmapBuild(emptyArrayUInt64())), bitmapMin(bitmapBuild(emptyArrayUInt8())), bitmapMax(bitmapBuild([-3]::Array(Int8))), bitmapMin(bitmapBuild([-3, 2]::Array(Int8)));
SELECT groupBitmapAnd(x) FROM (SELECT bitmapBuild([1]) x WHERE 0);
SELECT bitmapToArray(groupBitmapAndState(x)) FROM (SELECT bitmapBuild([number, 10]) x FROM numbers(3));
SELECT bitmapToArray(bitmapAnd(groupBitmapState(toUInt8(number)), bitmapBuild([5,1,3]::Array(UInt8)))) FROM numbers(100);
SELECT bitmapToArray(bitmapOr(bitmapBuild([5,1,3]::Array(UInt8)), bitmapBuild([4,2,1]::Array(UInt8)))), bitmapToArray(bitmapXor(bitmapBuild([5,1,3]::Array(UInt8)), bitmapBuild([4,2,1]::Array(UInt8)))), bitmapToArray(bitmapAndnot(bitmapBuild([5,1,3]::Array(UInt8)), bitmapBuild([4,2,1]::Array(UInt8))));
SELECT bitmapToArray(groupBitmapState(x)) FROM (SELECT arrayJoin([5,1,3,1,-1]::Array(Int32)) x);
SELECT k, bitmapCardinality(groupBitmapState(number)), bitmapToArray(groupBitmapOrState(bitmapBuild([number, 100]))) FROM numbers(10) GROUP BY number % 2 AS k ORDER BY k;

-- Shapes: up to 32 values keep their order, more are ascending.
SELECT bitmapToArray(bitmapBuild([5,1,3,1])), bitmapToArray(bitmapBuild([2, -3]::Array(Int8))), bitmapToArray(bitmapBuild([-3, 2]::Array(Int64))), bitmapMin(bitmapBuild([-3, 2]::Array(Int64)));
SELECT bitmapToArray(groupBitmapState(number % 100 * 7 % 100)) FROM numbers(100);
SELECT bitmapToArray(bitmapOr(groupBitmapState(toUInt8(number*3)), bitmapBuild([4,2,1]::Array(UInt8)))) FROM numbers(40);
SELECT bitmapToArray(bitmapOr(bitmapBuild([4,2,1]::Array(UInt8)), groupBitmapState(toUInt8(number*3)))) FROM numbers(40);
SELECT bitmapToArray(bitmapAnd(bitmapBuild([5,1,3]::Array(UInt8)), groupBitmapState(toUInt8(number)))) FROM numbers(100);
SELECT bitmapToArray(bitmapTransform(bitmapBuild([3,1,2]), [1,2], [2,3])), bitmapToArray(bitmapSubsetInRange(bitmapBuild([9,3,1,5]), 2, 10)), bitmapToArray(bitmapSubsetLimit(bitmapBuild([9,3,1,5]), 2, 2)), bitmapToArray(subBitmap(bitmapBuild([9,3,1,5]), 1, 2));
SELECT bitmapHasAll(bitmapBuild([1]), bitmapBuild(emptyArrayUInt8())), bitmapHasAny(bitmapBuild([1]), bitmapBuild(emptyArrayUInt8())), bitmapHasAll(bitmapBuild(emptyArrayUInt8()), bitmapBuild(emptyArrayUInt8()));
SELECT bitmapAndCardinality(a, b), bitmapOrCardinality(a, b), bitmapXorCardinality(a, b), bitmapAndnotCardinality(a, b) FROM (SELECT bitmapBuild([1,2,3,4]) a, bitmapBuild([3,4,5]) b);
SELECT bitmapCardinality(bitmapAnd(a, b)), bitmapContains(a, toUInt64(99999)), bitmapMax(bitmapXor(a, b)) FROM (SELECT groupBitmapState(number * 3) a, groupBitmapState(number * 5) b FROM numbers(100000));
SELECT bitmapToArray(subBitmap(groupBitmapState(number), 99990, 5)), bitmapToArray(bitmapSubsetLimit(groupBitmapState(number), 500, 3)) FROM numbers(100000);
SELECT bitmapContains(bitmapBuild([-3]::Array(Int8)), toInt8(-3)), bitmapContains(bitmapBuild([-3]::Array(Int8)), 253), bitmapContains(bitmapBuild([-3]::Array(Int64)), -3), bitmapContains(bitmapBuild([-3]::Array(Int32)), -3), bitmapContains(bitmapBuild([7]::Array(UInt64)), 7);
-- Bitmaps stored in a table, merged per key.
DROP TABLE IF EXISTS bitmap_users;
CREATE TABLE bitmap_users (day UInt8, users AggregateFunction(groupBitmap, UInt32)) ENGINE = AggregatingMergeTree ORDER BY day;
INSERT INTO bitmap_users SELECT number % 3, groupBitmapState(toUInt32(number)) FROM numbers(50) GROUP BY number % 3;
INSERT INTO bitmap_users SELECT number % 3, groupBitmapState(toUInt32(number * 2)) FROM numbers(50) GROUP BY number % 3;
SELECT day, groupBitmapMerge(users), bitmapCardinality(groupBitmapMergeState(users)) FROM bitmap_users GROUP BY day ORDER BY day;
SELECT groupBitmapAnd(users), groupBitmapOr(users), groupBitmapXor(users) FROM bitmap_users;
SELECT bitmapToArray(groupBitmapAndState(users)) FROM bitmap_users WHERE day = 0;
DROP TABLE bitmap_users;
-- Errors.
SELECT bitmapBuild([1.5]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapBuild(['a']); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapAnd(bitmapBuild([1]::Array(UInt8)), bitmapBuild([1]::Array(UInt32))); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapToArray([1, 2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapSubsetInRange(bitmapBuild([1,5,7]), -1, 9); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT bitmapTransform(bitmapBuild([1,2,3]), [1,2,7], [5]); -- { serverError BAD_ARGUMENTS }
SELECT groupBitmapOr(number) FROM numbers(3); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
