//! URL functions, reading a URL as ClickHouse's do (not as RFC 3986 would):
//! the scheme is the letters before `://`; the host runs to `:`, `/`, `?`
//! or `#`, restarts after each `@`, and counts only with a dot inside and
//! none at its end; the query string follows the first `?`, the fragment
//! the first `#`. Parameters are the `&`- and `#`-separated pieces after
//! the first `?` or `#`, a last piece without `=` left out.

use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::{UInt16Type, UInt64Type};
use datafusion::common::Result;

use super::udf::{Call, Output, Param, Spec, number_rows, text_list_rows, text_rows};

fn is_scheme_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
}

/// The scheme, when the URL starts with one, a colon and three more bytes.
fn protocol(url: &[u8]) -> &[u8] {
    if !url.first().is_some_and(u8::is_ascii_alphabetic) {
        return b"";
    }
    let end = url
        .iter()
        .position(|&b| !is_scheme_char(b))
        .unwrap_or(url.len());
    if url.get(end) == Some(&b':') && url.len() - end > 3 {
        &url[..end]
    } else {
        b""
    }
}

/// Where the host starts: after `scheme://` or a leading `//`.
fn authority_start(url: &[u8]) -> Option<usize> {
    if url.starts_with(b"//") {
        return Some(2);
    }
    let end = url.iter().position(|&b| !is_scheme_char(b))?;
    url[end..].starts_with(b"://").then_some(end + 3)
}

/// The host's byte range and where what follows it starts, or None when
/// ClickHouse finds no domain.
fn host(url: &[u8]) -> Option<(usize, usize)> {
    let mut start = authority_start(url).unwrap_or(0);
    let mut end = start;
    while let Some(&b) = url.get(end) {
        match b {
            b':' | b'/' | b'?' | b'#' => break,
            b'@' => start = end + 1,
            b if b.is_ascii_alphanumeric() || b >= 0x80 || matches!(b, b'-' | b'_' | b'.') => {}
            _ => return None,
        }
        end += 1;
    }
    let name = &url[start..end];
    (name.contains(&b'.') && !name.ends_with(b".")).then_some((start, end))
}

fn domain(url: &[u8]) -> &[u8] {
    host(url).map_or(b"", |(start, end)| &url[start..end])
}

fn without_www(domain: &[u8]) -> &[u8] {
    domain.strip_prefix(b"www.").unwrap_or(domain)
}

/// The last label of the domain; none of an IPv4 address's.
fn top_level_domain(url: &[u8]) -> &[u8] {
    let domain = domain(url);
    let dot = domain.iter().rposition(|&b| b == b'.').map_or(0, |i| i + 1);
    match domain.get(dot) {
        Some(b) if b.is_ascii_digit() => b"",
        _ => &domain[dot..],
    }
}

/// Second-level labels that name no one in particular: under them
/// (`example.co.uk`, `example.com.tr`) the first significant subdomain is
/// the third level. ClickHouse looks the last two labels up in the public
/// suffix list; this is the short list it used before, which agrees for
/// the common suffixes.
const SHARED_SECOND_LEVELS: [&[u8]; 8] = [
    b"com", b"net", b"org", b"biz", b"gov", b"mil", b"edu", b"co",
];

/// The byte range of `domain`'s first significant subdomain: the second
/// level, or the third under a shared second level.
fn first_significant(domain: &[u8]) -> (usize, usize) {
    let (mut third, mut second, mut last) = (None, None, None);
    for dot in memchr::memchr_iter(b'.', domain) {
        (third, second, last) = (second, last, Some(dot));
    }
    match (second, last) {
        (_, None) => (0, domain.len()),
        (None, Some(last)) => (0, last),
        (Some(second), Some(last)) => {
            let third_start = third.map_or(0, |dot| dot + 1);
            match SHARED_SECOND_LEVELS.contains(&&domain[second + 1..last]) {
                true => (third_start, second),
                false => (second + 1, last),
            }
        }
    }
}

fn first_significant_subdomain(url: &[u8]) -> &[u8] {
    let domain = without_www(domain(url));
    let (start, end) = first_significant(domain);
    &domain[start..end]
}

/// The domain from its first significant subdomain on; `www` is cut first
/// unless `with_www`.
fn cut_to_first_significant(url: &[u8], with_www: bool) -> &[u8] {
    let domain = match with_www {
        true => domain(url),
        false => without_www(domain(url)),
    };
    &domain[first_significant(domain).0..]
}

/// Where the network location starts: after `//` or `scheme://` (a scheme
/// ending within the first 16 bytes); None when the scheme has a byte no
/// URL may have.
fn netloc_start(url: &[u8]) -> Option<usize> {
    if url.len() > 2 && url.starts_with(b"//") {
        return Some(2);
    }
    let scheme_end = url.len().min(16);
    let mut pos = 1;
    while pos < scheme_end {
        match url[pos] {
            b if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+') => pos += 1,
            b if is_restricted(b) || matches!(b, b'%' | b'~' | b';' | b'=' | b'&') => return None,
            _ => break,
        }
    }
    let separated = pos + 2 < scheme_end && url[pos..].starts_with(b"://");
    Some(if separated { pos + 3 } else { 0 })
}

/// Bytes ClickHouse's URL functions take as ending a URL.
fn is_restricted(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'<' | b'>' | b'{' | b'}' | b'|' | b'\\' | b'^' | b'[' | b']'
    )
}

/// `netloc`: `user:password@host:port`, read as ClickHouse reads it. Before
/// an `@`, a `/` or `?` does not end it at once: it ends at the last of
/// them, or at a sub-delimiter (`;`, `=`, `&`, `~`, `%`) of the host, or a
/// `#` anywhere; after an `@`, the first `/`, `?` or `#` ends it.
fn netloc(url: &[u8]) -> &[u8] {
    let Some(start) = netloc_start(url) else {
        return b"";
    };
    let mut identified = false;
    let (mut slash, mut question, mut host_end) = (url.len(), url.len(), url.len());
    for (pos, &b) in url.iter().enumerate().skip(start) {
        match b {
            b'/' | b'?' if identified => return &url[start..pos],
            b'/' => slash = pos,
            b'?' => question = pos,
            b'#' => return &url[start..pos],
            b'@' => {
                identified = true;
                host_end = url.len();
            }
            b';' | b'=' | b'&' | b'~' | b'%' if !identified => host_end = pos,
            b if is_restricted(b) || matches!(b, b';' | b'=' | b'&' | b'~' | b'%') => {
                return match pos > start {
                    true => &url[start..pos.min(question).min(slash)],
                    false => b"",
                };
            }
            _ => {}
        }
    }
    match identified {
        true => &url[start..],
        false => &url[start..url.len().min(question).min(slash).min(host_end)],
    }
}

/// The port after the host: digits up to the path, query or fragment.
fn port(url: &[u8]) -> Option<u16> {
    let (_, end) = host(url)?;
    let rest = url[end..].strip_prefix(b":")?;
    let digits = rest
        .iter()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// Where the path starts: the first `/`, or the `/` after `//host`.
fn path_start(url: &[u8]) -> Option<usize> {
    let slash = memchr::memchr(b'/', url)?;
    if url.get(slash + 1) != Some(&b'/') {
        return Some(slash);
    }
    memchr::memchr(b'/', &url[slash + 2..]).map(|i| slash + 2 + i)
}

fn path(url: &[u8], full: bool) -> &[u8] {
    let Some(start) = path_start(url) else {
        return b"";
    };
    let rest = &url[start..];
    if full {
        return rest;
    }
    let end = memchr::memchr2(b'?', b'#', rest).unwrap_or(rest.len());
    &rest[..end]
}

/// The query string's range: after the first `?`, up to the next `#`.
fn query_range(url: &[u8]) -> Option<(usize, usize)> {
    let start = memchr::memchr(b'?', url)? + 1;
    let end = memchr::memchr(b'#', &url[start..]).map_or(url.len(), |i| start + i);
    Some((start, end))
}

fn query_string(url: &[u8]) -> &[u8] {
    query_range(url).map_or(b"", |(start, end)| &url[start..end])
}

fn fragment(url: &[u8]) -> &[u8] {
    memchr::memchr(b'#', url).map_or(b"", |i| &url[i + 1..])
}

fn query_and_fragment(url: &[u8]) -> &[u8] {
    match (memchr::memchr(b'?', url), memchr::memchr(b'#', url)) {
        (Some(q), _) => &url[q + 1..],
        (None, Some(f)) => &url[f..],
        (None, None) => b"",
    }
}

/// The parameters: pieces after the first `?` or `#`, split at `&` and
/// `#`; a value runs to the next `&` or `#`.
fn parameters(url: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let Some(mut pos) = memchr::memchr2(b'?', b'#', url).map(|i| i + 1) else {
        return out;
    };
    while pos < url.len() {
        let begin = pos;
        let Some(stop) = url[pos..]
            .iter()
            .position(|b| matches!(b, b'=' | b'&' | b'#'))
        else {
            break;
        };
        pos += stop;
        if url[pos] == b'=' {
            pos += url[pos..]
                .iter()
                .position(|b| matches!(b, b'&' | b'#'))
                .unwrap_or(url.len() - pos);
        }
        out.push(&url[begin..pos]);
        pos += 1;
    }
    out
}

/// The start of the first `name=` that begins a parameter.
fn parameter_at(url: &[u8], name: &[u8]) -> Option<usize> {
    let from = memchr::memchr2(b'?', b'#', url)?;
    let mut key = Vec::with_capacity(name.len() + 1);
    key.extend_from_slice(name);
    key.push(b'=');
    memchr::memmem::find_iter(&url[from..], &key)
        .map(|i| from + i)
        .find(|&i| matches!(url[i - 1], b'?' | b'&' | b'#'))
}

fn parameter_value<'a>(url: &'a [u8], name: &[u8]) -> &'a [u8] {
    let Some(at) = parameter_at(url, name) else {
        return b"";
    };
    let value = &url[at + name.len() + 1..];
    let end = memchr::memchr2(b'&', b'#', value).unwrap_or(value.len());
    &value[..end]
}

/// The URL without its first parameter `name`, and the `&` joining it to
/// the next (or, when it is the last, the previous) one.
fn cut_parameter(url: &[u8], name: &[u8]) -> Vec<u8> {
    let Some(at) = parameter_at(url, name) else {
        return url.to_vec();
    };
    let end = memchr::memchr2(b'&', b'#', &url[at..]).map_or(url.len(), |i| at + i);
    let (start, end) = match url.get(end) {
        Some(b'&') => (at, end + 1),
        _ if url[at - 1] == b'&' => (at - 1, end),
        _ => (at, end),
    };
    [&url[..start], &url[end..]].concat()
}

fn cut_www(url: &[u8]) -> Vec<u8> {
    match authority_start(url) {
        Some(start) if url[start..].starts_with(b"www.") => {
            [&url[..start], &url[start + 4..]].concat()
        }
        _ => url.to_vec(),
    }
}

fn cut_query_string(url: &[u8]) -> Vec<u8> {
    match query_range(url) {
        Some((start, end)) => [&url[..start - 1], &url[end..]].concat(),
        None => url.to_vec(),
    }
}

fn cut_from(url: &[u8], at: Option<usize>) -> Vec<u8> {
    url[..at.unwrap_or(url.len())].to_vec()
}

/// The prefixes of the URL that end at `/`, `?` or `#` after the host,
/// then the whole URL; only for URLs with `scheme://`. With `path_only`,
/// the prefix up to the host is cut and the first prefix left out.
fn hierarchy(url: &[u8], path_only: bool) -> Vec<Vec<u8>> {
    let Some(start) = url
        .iter()
        .position(|&b| !is_scheme_char(b))
        .filter(|&end| url[end..].starts_with(b"://"))
        .map(|end| end + 3)
    else {
        return match path_only || url.is_empty() {
            true => vec![],
            false => vec![url.to_vec()],
        };
    };
    let boundary = |from: usize| {
        url.get(from..)
            .and_then(|rest| rest.iter().position(|b| matches!(b, b'/' | b'?' | b'#')))
            .map(|i| from + i)
    };
    let mut ends = Vec::new();
    let mut next = boundary(start);
    while let Some(at) = next {
        ends.push(at + 1);
        next = boundary(at + 2);
    }
    if ends.last() != Some(&url.len()) {
        ends.push(url.len());
    }
    let base = boundary(start).unwrap_or(url.len());
    ends.into_iter()
        .skip(usize::from(path_only))
        .map(|end| match path_only {
            true => url[base..end].to_vec(),
            false => url[..end].to_vec(),
        })
        .collect()
}

fn hex_digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `%XX` sequences decoded (others kept); `+` is a space in form encoding.
fn decode_component(text: &[u8], form: bool, out: &mut Vec<u8>) {
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        let escaped = (b == b'%')
            .then(|| Some(hex_digit(*text.get(i + 1)?)? << 4 | hex_digit(*text.get(i + 2)?)?))
            .flatten();
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(if form && b == b'+' { b' ' } else { b });
                i += 1;
            }
        }
    }
}

/// Every byte but letters, digits and `-_.~` as `%XX`; a space as `+` in
/// form encoding.
fn encode_component(text: &[u8], form: bool, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in text {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b);
        } else if form && b == b' ' {
            out.push(b'+');
        } else {
            out.extend_from_slice(&[b'%', HEX[(b >> 4) as usize], HEX[(b & 15) as usize]]);
        }
    }
}

/// A String result that is a function of the URL.
fn map_url(call: &Call, f: impl Fn(&[u8], &mut Vec<u8>)) -> Result<ArrayRef> {
    let url = call.text(0)?;
    text_rows(call, |row, out| {
        f(url.get(row).unwrap_or_default(), out);
        Ok(Some(()))
    })
}

fn part(call: &Call, f: fn(&[u8]) -> &[u8]) -> Result<ArrayRef> {
    map_url(call, |url, out| out.extend_from_slice(f(url)))
}

fn whole(call: &Call, f: fn(&[u8]) -> Vec<u8>) -> Result<ArrayRef> {
    map_url(call, |url, out| out.extend(f(url)))
}

fn eval_port(call: &Call) -> Result<ArrayRef> {
    let url = call.text(0)?;
    let default = if call.len() > 1 {
        Some(call.int(1)?)
    } else {
        None
    };
    number_rows::<UInt16Type>(call, |row| {
        let fallback = default.as_ref().and_then(|d| d.get(row)).unwrap_or(0) as u16;
        Ok(port(url.get(row).unwrap_or_default()).unwrap_or(fallback))
    })
}

/// `URLHash(url)`: CityHash64 of the URL without one trailing `/`, `?`
/// or `#`.
fn eval_url_hash(call: &Call) -> Result<ArrayRef> {
    let url = call.text(0)?;
    number_rows::<UInt64Type>(call, |row| {
        let url = url.get(row).unwrap_or_default();
        let trimmed = match url.last() {
            Some(b'/' | b'?' | b'#') => &url[..url.len() - 1],
            _ => url,
        };
        Ok(cityhash_102_rs::city_hash_64(trimmed))
    })
}

fn eval_parameter(call: &Call) -> Result<ArrayRef> {
    let (url, name) = (call.text(0)?, call.text(1)?);
    text_rows(call, |row, out| {
        let value = parameter_value(
            url.get(row).unwrap_or_default(),
            name.get(row).unwrap_or_default(),
        );
        out.extend_from_slice(value);
        Ok(Some(()))
    })
}

fn eval_parameters(call: &Call, names: bool) -> Result<ArrayRef> {
    let url = call.text(0)?;
    text_list_rows(call, |row, out| {
        for piece in parameters(url.get(row).unwrap_or_default()) {
            let end = match names {
                true => memchr::memchr(b'=', piece).unwrap_or(piece.len()),
                false => piece.len(),
            };
            out.push(piece[..end].to_vec());
        }
        Ok(())
    })
}

/// `cutURLParameter(url, name)` or `cutURLParameter(url, [names])`.
fn eval_cut_parameter(call: &Call) -> Result<ArrayRef> {
    let url = call.text(0)?;
    let list = call.is_list(1);
    let (names, lists) = match list {
        true => (None, Some(call.text_lists(1)?)),
        false => (Some(call.text(1)?), None),
    };
    text_rows(call, |row, out| {
        let mut value = url.get(row).unwrap_or_default().to_vec();
        let cut: Vec<&[u8]> = match (&names, &lists) {
            (Some(names), _) => vec![names.get(row).unwrap_or_default()],
            (_, Some(lists)) => lists.get(row).unwrap_or_default(),
            _ => vec![],
        };
        for name in cut {
            value = cut_parameter(&value, name);
        }
        out.extend(value);
        Ok(Some(()))
    })
}

fn eval_hierarchy(call: &Call, path_only: bool) -> Result<ArrayRef> {
    let url = call.text(0)?;
    text_list_rows(call, |row, out| {
        out.extend(hierarchy(url.get(row).unwrap_or_default(), path_only));
        Ok(())
    })
}

const fn spec(name: &'static str, output: Output, eval: fn(&Call) -> Result<ArrayRef>) -> Spec {
    Spec {
        name,
        aliases: &[],
        params: &[Param::Text],
        required: 1,
        output,
        eval,
    }
}

use Output::{Text, TextList};

pub(crate) const SPECS: &[Spec] = &[
    spec("protocol", Text, |c| part(c, protocol)),
    spec("domain", Text, |c| part(c, domain)),
    spec("domainWithoutWWW", Text, |c| {
        part(c, |u| without_www(domain(u)))
    }),
    spec("topLevelDomain", Text, |c| part(c, top_level_domain)),
    spec("firstSignificantSubdomain", Text, |c| {
        part(c, first_significant_subdomain)
    }),
    spec("cutToFirstSignificantSubdomain", Text, |c| {
        part(c, |u| cut_to_first_significant(u, false))
    }),
    spec("cutToFirstSignificantSubdomainWithWWW", Text, |c| {
        part(c, |u| cut_to_first_significant(u, true))
    }),
    spec("netloc", Text, |c| part(c, netloc)),
    Spec {
        params: &[Param::Text, Param::Int],
        ..spec("port", Output::UInt16, eval_port)
    },
    spec("path", Text, |c| part(c, |u| path(u, false))),
    spec("pathFull", Text, |c| part(c, |u| path(u, true))),
    spec("queryString", Text, |c| part(c, query_string)),
    spec("fragment", Text, |c| part(c, fragment)),
    spec("queryStringAndFragment", Text, |c| {
        part(c, query_and_fragment)
    }),
    Spec {
        params: &[Param::Text, Param::Text],
        required: 2,
        ..spec("extractURLParameter", Text, eval_parameter)
    },
    spec("extractURLParameters", TextList, |c| {
        eval_parameters(c, false)
    }),
    spec("extractURLParameterNames", TextList, |c| {
        eval_parameters(c, true)
    }),
    Spec {
        params: &[Param::Text, Param::TextOrArray],
        required: 2,
        ..spec("cutURLParameter", Text, eval_cut_parameter)
    },
    spec("cutWWW", Text, |c| whole(c, cut_www)),
    spec("cutQueryString", Text, |c| whole(c, cut_query_string)),
    spec("cutFragment", Text, |c| {
        whole(c, |u| cut_from(u, memchr::memchr(b'#', u)))
    }),
    // From the first `?`, or else the first `#`.
    spec("cutQueryStringAndFragment", Text, |c| {
        whole(c, |u| {
            cut_from(u, memchr::memchr(b'?', u).or(memchr::memchr(b'#', u)))
        })
    }),
    spec("URLHierarchy", TextList, |c| eval_hierarchy(c, false)),
    spec("URLHash", Output::UInt64, eval_url_hash),
    spec("URLPathHierarchy", TextList, |c| eval_hierarchy(c, true)),
    spec("decodeURLComponent", Text, |c| {
        map_url(c, |u, out| decode_component(u, false, out))
    }),
    spec("decodeURLFormComponent", Text, |c| {
        map_url(c, |u, out| decode_component(u, true, out))
    }),
    spec("encodeURLComponent", Text, |c| {
        map_url(c, |u, out| encode_component(u, false, out))
    }),
    spec("encodeURLFormComponent", Text, |c| {
        map_url(c, |u, out| encode_component(u, true, out))
    }),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(items: Vec<Vec<u8>>) -> Vec<String> {
        items
            .into_iter()
            .map(|i| String::from_utf8(i).unwrap())
            .collect()
    }

    #[test]
    fn hosts_follow_clickhouse() {
        assert_eq!(domain(b"http://user@example.com/"), b"example.com");
        assert_eq!(domain(b"http://user:pw@h.com/"), b"");
        assert_eq!(domain(b"example.com:80"), b"example.com");
        assert_eq!(domain(b"http://h.com./"), b"");
        assert_eq!(port(b"http://h.com:65536/"), None);
        assert_eq!(protocol(b"localhost:8123/x"), b"localhost");
        assert_eq!(protocol(b"example.com:80"), b"");
    }

    #[test]
    fn parameters_skip_a_last_piece_without_value() {
        let url = b"http://a.com/?x=1&y&z=&=w#f";
        assert_eq!(parameters(url), vec![&b"x=1"[..], b"y", b"z=", b"=w"]);
        assert_eq!(parameter_value(b"http://a.com/?a=1?b=2", b"b"), b"2");
        assert_eq!(
            cut_parameter(b"http://a.com/?b=1&a=1", b"a"),
            b"http://a.com/?b=1"
        );
    }

    #[test]
    fn significant_subdomains() {
        let cases: [(&str, &str, &str, &str); 5] = [
            (
                "http://www.example.com/a",
                "example",
                "example.com",
                "example.com",
            ),
            (
                "https://news.clickhouse.com.tr/",
                "clickhouse",
                "clickhouse.com.tr",
                "clickhouse.com.tr",
            ),
            ("http://www.com", "com", "com", "www.com"),
            ("http://127.0.0.1:443/", "0", "0.1", "0.1"),
            ("http://localhost/", "", "", ""),
        ];
        for (url, first, cut, with_www) in cases {
            let url = url.as_bytes();
            assert_eq!(
                first_significant_subdomain(url),
                first.as_bytes(),
                "{url:?}"
            );
            assert_eq!(cut_to_first_significant(url, false), cut.as_bytes());
            assert_eq!(cut_to_first_significant(url, true), with_www.as_bytes());
        }
    }

    #[test]
    fn network_locations() {
        let cases = [
            ("http://paul@www.example.com:80/", "paul@www.example.com:80"),
            (
                "http://www.example.com/a/b/c?a=b#d=f",
                "www.example.com/a/b/c?a=b",
            ),
            ("http://www.example.com/a/b/c", "www.example.com/a/b"),
            ("http://www.example.com?x=1/y", "www.example.com"),
            ("//h.com/a/b", "h.com/a"),
            ("http://h.com;x/a", "h.com"),
            ("http://h.com/a b", "h.com"),
            ("h.com/a", "h.com"),
        ];
        for (url, expected) in cases {
            assert_eq!(netloc(url.as_bytes()), expected.as_bytes(), "{url}");
        }
    }

    #[test]
    fn hierarchies() {
        let url = b"http://h.com//a";
        assert_eq!(
            texts(hierarchy(url, false)),
            ["http://h.com/", "http://h.com//a"]
        );
        assert_eq!(texts(hierarchy(b"https://e.com?q=1", true)), ["?q=1"]);
    }
}
