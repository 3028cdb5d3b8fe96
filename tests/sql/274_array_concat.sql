-- arrayConcat: the arrays' common element type, Nullable only where some array's elements are.
SELECT arrayConcat([1], [2.5], [-3]) AS a, toTypeName(a);
SELECT toTypeName(arrayConcat([toUInt8(1)], [toInt16(-1)])), arrayConcat(['a'], emptyArrayString()), arrayConcat([[1]], [[2, 3]]) AS n, toTypeName(n);
SELECT arrayConcat([1, NULL], [2]) AS a, toTypeName(a);
SELECT number, arrayConcat(range(number), [number], []) FROM numbers(4) ORDER BY number;
SELECT arrayConcat([1], ['a']); -- { serverError NO_COMMON_TYPE }
SELECT arrayConcat(1, [2]); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
