-- formatReadableTimeDelta: seconds in words, between a largest and a smallest unit
SELECT x, formatReadableTimeDelta(x) AS a, formatReadableTimeDelta(x, 'hours') AS b, formatReadableTimeDelta(x, 'days', 'seconds') AS c FROM (SELECT arrayJoin([0, 1, 61, 3661, 86400, 90061, 2592000, 31536000, 100000000, -3661, 1.5, 0.25, 1e15]) AS x);
SELECT formatReadableTimeDelta(0.001234, 'seconds', 'nanoseconds'), formatReadableTimeDelta(1.5, 'years', 'milliseconds'), formatReadableTimeDelta(3661, 'minutes', 'minutes'), formatReadableTimeDelta(30, 'minutes', 'minutes');
SELECT formatReadableTimeDelta(NULL), formatReadableTimeDelta(toNullable(5)), formatReadableTimeDelta(parseTimeDelta('1h 30m'));
SELECT formatReadableTimeDelta(1, 'weeks'); -- { serverError BAD_ARGUMENTS }
SELECT formatReadableTimeDelta(1, 'seconds', 'hours'); -- { serverError BAD_ARGUMENTS }
