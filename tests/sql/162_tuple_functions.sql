-- Tuple functions: arithmetic on tuples (functions and operators), vector functions of tuples, shape functions and untuple
SELECT tuplePlus((1, 2), (3, 4)) AS a, toTypeName(a), tupleMinus((5, 7), (2, 4)) AS b, toTypeName(b), tupleMultiply((5, 7), (2, 4)) AS c, toTypeName(c), tupleDivide((5, 7), (2, 4)) AS d, toTypeName(d);
SELECT tupleModulo((5, 7), (3, 4)), tupleIntDiv((5, 7), (3, 4)), tupleIntDivOrZero((5, 7), (0, 4)), tupleNegate((1, -2)) AS n, toTypeName(n);
SELECT tupleMultiplyByNumber((1, 2.5), 2) AS a, toTypeName(a), tupleDivideByNumber((1, 2), 0), tupleModuloByNumber((5, 7), 3), tupleIntDivByNumber((7, 9), 2), tupleIntDivOrZeroByNumber((1, 2), 0), tuplePositiveModuloByNumber((-5, 7), 3) AS p, toTypeName(p);
SELECT tuplePlus(CAST((1, 2) AS Tuple(a UInt8, b UInt8)), (3, 4)) AS t, toTypeName(t);
SELECT number, tuplePlus((number, 1), (2, number)), tupleMultiplyByNumber((number, number + 1), number) FROM numbers(3);
SELECT (1, 2) + (3, 4) AS a, (1, 2) * 2 AS b, 2 * (1, 2) AS c, (4, 6) / 2 AS d, -(1, 2) AS e, (5, 6) - (1, 1) AS f, toTypeName(f), (1, 2) * (3, 4) AS g, (5, 7) % 3 AS h;
SELECT plus((1, 2), (3, 4)), intDiv((4, 6), 2), arrayMap(t -> t * 2, [(1, 2), (3, 4)]);
SELECT dotProduct((1, 2), (3, 4)) AS a, toTypeName(a), scalarProduct((1, 2.5), (3, 4)) AS b, toTypeName(b), dotProduct([1, 2], [3, 4]) AS c, toTypeName(c);
SELECT tupleHammingDistance((1, 2, 3), (1, 5, 3)) AS a, toTypeName(a), tupleHammingDistance(('a', 'b'), ('a', 'c')) AS b, toTypeName(b), tupleHammingDistance((1, 2), (1.0, 2.5));
SELECT L1Norm((3, -4)) AS a, toTypeName(a), L2Norm((3, 4)), LinfNorm((3, -4)), LpNorm((3, 4), 3), L2SquaredNorm((1, 2)) AS b, toTypeName(b);
SELECT L1Distance((1, 2), (4, 6)) AS a, toTypeName(a), L2Distance((1, 2), (4, 6)), L2SquaredDistance((1, 2), (4, 6)) AS b, toTypeName(b), LinfDistance((1, 2), (4, 6)), LpDistance((1, 2), (4, 6), 2), cosineDistance((1, 0), (0, 1));
SELECT L1Normalize((3, 4)) AS a, toTypeName(a), L2Normalize((3, 4)), LinfNormalize((3, -4)), LpNormalize((3, 4), 2), L2Norm([3, 4]), L1Distance([1, 2], [4, 6]);
SELECT number, L2Distance((number, 0), (0, number)), L1Norm((number, -1)) FROM numbers(3);
SELECT tupleNames(CAST((1, 2) AS Tuple(a UInt8, b UInt8))), tupleNames((1, 'x')), tupleToNameValuePairs(CAST((1, 2) AS Tuple(a UInt8, b UInt8))) AS p, toTypeName(p);
SELECT tupleToNameValuePairs(CAST((1, NULL) AS Tuple(a Nullable(UInt8), b Nullable(UInt8)))) AS p, toTypeName(p), tupleToNameValuePairs((number, number * 2)) FROM numbers(2);
SELECT tupleConcat((1, 'a'), tuple(2.5), CAST(tuple(3) AS Tuple(z UInt8))) AS t, toTypeName(t);
SELECT flattenTuple(CAST((1, (2, 3)) AS Tuple(a UInt8, b Tuple(c UInt8, d UInt8)))) AS t, flattenTuple(CAST((1, (2, 3)) AS Tuple(a UInt8, b Tuple(UInt8, UInt8))));
SELECT untuple((1, 2)) AS x;
SELECT untuple(CAST((1, 'x') AS Tuple(a UInt8, b String)));
SELECT untuple(t), 3 FROM (SELECT CAST((1, 'x') AS Tuple(a UInt8, b String)) AS t);
SELECT untuple(argMax((number, number * 2), number)) FROM numbers(5);
SELECT tuplePlus((1, 2), tuple(1)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tuplePlus((1, 2), 1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tuplePlus((1, 'a'), (2, 'b')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT tupleIntDiv((1, 2), (0, 1)); -- { serverError ILLEGAL_DIVISION }
SELECT (5, 6) % (2, 4); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT LpNorm((1, 2), 0.5); -- { serverError ARGUMENT_OUT_OF_BOUND }
SELECT tupleToNameValuePairs((1, 'a')); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT flattenTuple((1, 2)); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT untuple(1); -- { serverError UNSUPPORTED_METHOD }
