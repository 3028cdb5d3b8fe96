//! The text forms of IP addresses: what the IP functions, the `IPv4` and
//! `IPv6` types' input and their output read and write, in one place. An
//! IPv4 address is a `u32`, an IPv6 one its 16 bytes in network order.
//!
//! Text is read strictly (four decimal octets without leading zeros; IPv6
//! in any RFC 4291 form, or IPv4 text read as the IPv4-mapped address) and
//! IPv6 is written as BSD's `inet_ntop` does: the first longest run of zero
//! groups as `::`, and an IPv4-mapped or IPv4-compatible address with its
//! last 32 bits dotted.

use std::fmt::Write;
use std::net::{Ipv4Addr, Ipv6Addr};

/// Four decimal octets, none with a leading zero.
pub fn parse_ipv4(text: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(text).ok()?;
    text.parse::<Ipv4Addr>().ok().map(u32::from)
}

/// IPv6 text in any standard form.
pub fn parse_ipv6_text(text: &[u8]) -> Option<[u8; 16]> {
    let text = std::str::from_utf8(text).ok()?;
    text.parse::<Ipv6Addr>().ok().map(|a| a.octets())
}

/// IPv6 text, or IPv4 text as its IPv4-mapped address.
pub fn parse_ipv6(text: &[u8]) -> Option<[u8; 16]> {
    parse_ipv6_text(text).or_else(|| parse_ipv4(text).map(mapped))
}

/// The IPv4-mapped IPv6 address of `v4`.
pub fn mapped(v4: u32) -> [u8; 16] {
    Ipv4Addr::from(v4).to_ipv6_mapped().octets()
}

/// The dotted text of an IPv4 address.
pub fn format_ipv4(value: u32, out: &mut String) {
    let [a, b, c, d] = value.to_be_bytes();
    let _ = write!(out, "{a}.{b}.{c}.{d}");
}

/// The text of an IPv6 address, as BSD's `inet_ntop` writes it.
pub fn format_ipv6(bytes: &[u8; 16], out: &mut String) {
    let words: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|w| u16::from_be_bytes([w[0], w[1]]))
        .collect();
    // The first longest run of at least two zero words.
    let (mut best, mut run) = ((0usize, 0usize), None::<usize>);
    for (i, &w) in words.iter().enumerate() {
        match (w, run) {
            (0, None) => run = Some(i),
            (0, Some(_)) => {}
            (_, Some(start)) => {
                if i - start > best.1 {
                    best = (start, i - start);
                }
                run = None;
            }
            _ => {}
        }
    }
    if let Some(start) = run.filter(|start| 8 - start > best.1) {
        best = (start, 8 - start);
    }
    if best.1 < 2 {
        best = (0, 0);
    }
    let dotted = best.0 == 0 && (best.1 == 6 || (best.1 == 5 && words[5] == 0xffff));
    let mut i = 0;
    while i < 8 {
        if best.1 > 0 && i == best.0 {
            out.push_str(if i == 0 { "::" } else { ":" });
            i += best.1;
            continue;
        }
        if dotted && i == 6 {
            let _ = write!(
                out,
                "{}.{}.{}.{}",
                bytes[12], bytes[13], bytes[14], bytes[15]
            );
            break;
        }
        let _ = write!(out, "{:x}", words[i]);
        if i < 7 {
            out.push(':');
        }
        i += 1;
    }
}
