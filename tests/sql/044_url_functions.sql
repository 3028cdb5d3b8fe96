-- URL functions, read as ClickHouse reads URLs (not RFC 3986).
SELECT protocol('https://user:pass@www.Example.com:8080/path/to/page.html?a=1&b=2&a=3#frag'), domain('http://www.Example.com:8080/x'), domain('https://user:pass@h.com/'), domain('http://user@example.com/');
SELECT protocol('svn+ssh://h.com/'), protocol('localhost:8123/x'), protocol('example.com:80'), protocol('mailto:user@example.com'), protocol('1a://x'), protocol('');
SELECT domain('//example.com/x'), domain('example.com/path?x=y'), domain('example.com:80'), domain('http://localhost/'), domain('http://h.com./'), domain('http://пример.рф/'), domain('http://a b.com'), domain('');
SELECT domainWithoutWWW('http://www.example.com'), domainWithoutWWW('www.www.com'), domainWithoutWWW('http://example.com'), topLevelDomain('http://www.example.co.uk/x'), topLevelDomain('http://localhost'), topLevelDomain('x');
SELECT port('http://example.com:8080/'), port('http://example.com/'), port('http://example.com/', 443), port('example.com:22'), port('http://example.com:99999/'), port('http://user@example.com:81/'), port('http://h.com:8a/'), toTypeName(port('a'));
SELECT path('https://example.com/a/b/?x=1#f'), path('http://h.com?a=b/c'), path('localhost/x'), path('http://example.com'), pathFull('https://example.com/a/b/?x=1#f'), pathFull('file:///etc/passwd');
SELECT queryString('https://example.com/a/?x=1&y=2#f'), queryString('http://h.com/p#x?y'), fragment('https://example.com/a#frag'), fragment('http://h.com/p?q'), queryStringAndFragment('https://example.com/a?x=1#f'), queryStringAndFragment('https://example.com#only');
SELECT extractURLParameter('http://a.com/?a=1&b=2&a=3', 'a'), extractURLParameter('http://a.com/?a=1&b=2', 'c'), extractURLParameter('http://a.com/?a&b=2', 'a'), extractURLParameter('http://a.com/?x=1#a=5', 'a');
SELECT extractURLParameter('http://a.com/?a=1%202', 'a'), extractURLParameter('a=1&b=2', 'b'), extractURLParameter('http://a.com/?aa=1&a=2', 'a'), extractURLParameter('http://a.com/?a=1?b=2', 'b');
SELECT extractURLParameters('https://example.com/a/b/?x=1&y&z=&=w#f'), extractURLParameters('http://a.com/?x=1#a=5&b'), extractURLParameters('http://a.com/?&&a=1&'), extractURLParameters('http://h.com');
SELECT extractURLParameterNames('https://example.com/a/b/?x=1&y&z=&=w#f'), extractURLParameterNames('http://a.com/?a=1;b=2');
SELECT cutURLParameter('http://a.com/?a=1&b=2&a=3#f', 'a'), cutURLParameter('http://a.com/?a=1', 'a'), cutURLParameter('http://a.com/?b=1&a=1', 'a'), cutURLParameter('http://a.com/?a=1&b=2', ['a', 'b']), cutURLParameter('http://a.com/#a=1&b', 'a');
SELECT cutWWW('http://www.example.com/x'), cutWWW('www.example.com'), cutWWW('//www.h.com/'), cutQueryString('http://h.com/p?x=1#f'), cutFragment('http://h.com/p?x=1#f'), cutQueryStringAndFragment('http://h.com/p?x=1#f'), cutQueryStringAndFragment('http://h.com/p#x?y');
SELECT URLHierarchy('https://example.com/a/b/?x=1&y#f'), URLHierarchy('http://example.com'), URLHierarchy('example.com/a'), URLHierarchy('http://h.com//a'), URLHierarchy('');
SELECT URLPathHierarchy('https://example.com/a/b/?x=1&y#f'), URLPathHierarchy('https://example.com?q=1'), URLPathHierarchy('https://sub.example.com/'), URLPathHierarchy('file:///etc/passwd');
SELECT encodeURLComponent('a b&c=d/é~_-.'), encodeURLFormComponent('a b&c=d/é~*'), decodeURLComponent('a%20b+c%2Fd%zz%e2%82%ac'), decodeURLFormComponent('a+b%20c'), decodeURLComponent('%4'), decodeURLComponent('%41%4a%4A');
SELECT decodeURLComponent(encodeURLComponent('x = y & ñ')), decodeURLFormComponent(encodeURLFormComponent('x = y & ñ'));
SELECT u, domain(u), path(u), extractURLParameter(u, 'id') FROM (SELECT arrayJoin(['https://shop.example.com/item?id=7', 'http://example.org/', 'not a url']) AS u) ORDER BY u;
SELECT domain(NULL), toTypeName(domain('x'));
SELECT domain(1); -- { serverError ILLEGAL_TYPE_OF_ARGUMENT }
SELECT extractURLParameter('http://a.com/?a=1'); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
