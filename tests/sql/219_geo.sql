-- Geo functions. Distances are compared in kilometres (or to 0.01 degree):
-- ClickHouse reads sines and the plane's metric from tables, Strata computes them.
SELECT round(greatCircleDistance(55.755831, 37.617673, -55.755831, -37.617673) / 1000) a, round(geoDistance(55.755831, 37.617673, -55.755831, -37.617673) / 1000) b, round(greatCircleAngle(0, 0, 45, 0), 2) c, toTypeName(greatCircleDistance(0., 0., 0., 1.)), toTypeName(greatCircleDistance(0, 0, 0, 1)), toTypeName(geoDistance(toFloat32(0), 0, 0, 1));
SELECT round(greatCircleDistance(0., 0., 0., 1.) / 1000), round(geoDistance(0., 0., 0., 1.) / 1000), round(greatCircleDistance(37.6, 55.7, 37.7, 55.8) / 1000, 1), round(geoDistance(37.6, 55.7, 37.7, 55.8) / 1000, 1), round(greatCircleAngle(37.6, 55.7, 37.7, 55.8), 3);
SELECT greatCircleAngle(0, 0, 180, 0), round(greatCircleDistance(0, 0, 180, 0) / 1000), round(geoDistance(0, 0, 180, 0) / 1000), round(greatCircleDistance(0, 0, 0, 90) / 1000), round(geoDistance(0, 0, 0, 90) / 1000), greatCircleDistance(10, 20, 10, 20);
SELECT number, round(greatCircleDistance(number * 10., 0., 0., number * 5.) / 1000) FROM numbers(5);
SELECT greatCircleDistance(x, 0., 0., 0.) FROM (SELECT CAST(NULL AS Nullable(Float64)) AS x);
SELECT geohashEncode(-5.60302734375, 42.593994140625, 0) a, geohashEncode(-5.6, 42.6) b, geohashEncode(-5.6, 42.6, 5) c, geohashEncode(-5.6, 42.6, 20) d, geohashEncode(180., 90., 3) e, geohashEncode(-180., -90., 3) f, geohashEncode(200., 100., 3) g, geohashEncode(-5.6, 42.6, -1) h;
SELECT number, geohashEncode(number * 10. - 25, number * 3.5), geohashEncode(toFloat32(number), toFloat32(-number), number + 1) FROM numbers(5);
SELECT geohashDecode('ezs42') a, toTypeName(a), geohashDecode('') b, geohashDecode('ezs42!') c, geohashDecode('EZS42') d;
SELECT geohashDecode('ezs42ezs42ezs42'), geohashDecode('s'), geohashDecode('ezs42a'), geohashDecode(geohashEncode(12.5, -33.25)).1;
SELECT geohashesInBox(24.48, 40.56, 24.785, 40.81, 4) a, toTypeName(a), geohashesInBox(24.48, 40.56, 24.48, 40.56, 4) b, geohashesInBox(24.78, 40.56, 24.48, 40.81, 4) c;
SELECT length(geohashesInBox(0., 0., 10., 10., 6)), geohashesInBox(-180., -90., 180., 90., 1);
SELECT pointInEllipses(10., 10., 10., 9.1, 1., 0.9999) a, toTypeName(a), pointInEllipses(0., 0., 0., 0., 1., 1., 5., 5., 1., 1.), pointInEllipses(1., 0., 0., 0., 1., 1.), pointInEllipses(3., 3., 0., 0., 1., 1., 5., 5., 1., 1.);
SELECT pointInPolygon((3., 3.), [(6, 0), (8, 4), (5, 8), (0, 2)]) a, toTypeName(a), pointInPolygon((1., 1.), [(0,0),(10,0),(10,10),(0,10)], [(0.5,0.5),(2,0.5),(2,2),(0.5,2)]) b, pointInPolygon((0., 0.), [(0,0),(10,0),(10,10),(0,10)]) c, pointInPolygon((5, 0), [(0,0),(10,0),(10,10),(0,10)]) d;
SELECT pointInPolygon((5., 10.), [(0,0),(10,0),(10,10),(0,10)]), pointInPolygon((2., 1.), [(0,0),(10,0),(10,10),(0,10)], [(1,1),(3,1),(3,3),(1,3)]), pointInPolygon((2., 2.), [(0,0),(10,0),(10,10),(0,10)], [(1,1),(3,1),(3,3),(1,3)]), pointInPolygon((11., 2.), [(0,0),(10,0),(10,10),(0,10)]);
SELECT pointInPolygon((2., 2.), [[(0,0),(10,0),(10,10),(0,10)], [(1,1),(3,1),(3,3),(1,3)]]);
SELECT number, pointInPolygon((toFloat64(number), 1.), [(0,0),(4,0),(4,4),(0,4)]) FROM numbers(6);
SELECT number, pointInPolygon((0.5, 0.5), [(0., 0.), (toFloat64(number) + 2, 0.), (0., toFloat64(number) + 2)]), pointInPolygon((3., 0.5), [(0., 0.), (toFloat64(number) + 2, 0.), (0., toFloat64(number) + 2)]) FROM numbers(4);
SELECT greatCircleDistance('a', 0, 0, 0); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT geohashEncode(1, 2); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT pointInEllipses(1, 0., 0., 0., 1., 1.); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT pointInEllipses(1., 0., 0., 0., 1.); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
SELECT pointInPolygon((1., 1.), [(0, 0), (2, 0)]); -- { serverError BAD_ARGUMENTS }
SELECT geohashesInBox(0., 0., 10., 10., 13); -- { serverError TOO_LARGE_ARRAY_SIZE }
