//! Facts of the server process, constant within a query: `hostName`
//! (the kernel's host name), `FQDN` (the canonical name the resolver gives
//! for it, else the host name), `displayName` (the FQDN: Strata has no
//! `display_name` setting), `uptime` (seconds since the engine started),
//! `buildId` (the GNU build id of the running executable, upper-case hex).

use std::ffi::{CStr, CString};
use std::sync::OnceLock;
use std::time::Instant;

use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{ColumnarValue, Volatility};

use super::frame::{Call, Spec, Typing};

static STARTED: OnceLock<Instant> = OnceLock::new();

/// Marks the moment `uptime()` counts from; the first call wins.
pub(crate) fn mark_start() {
    STARTED.get_or_init(Instant::now);
}

fn text(typing: &Typing) -> Result<Field> {
    Ok(typing.plain(DataType::Utf8))
}

fn constant_text(value: &str) -> Result<ColumnarValue> {
    Ok(ColumnarValue::Scalar(ScalarValue::Utf8(Some(
        value.to_string(),
    ))))
}

pub(crate) const SPECS: &[Spec] = &[
    Spec {
        name: "hostName",
        aliases: &["hostname"],
        args: (0, 0),
        volatility: Volatility::Stable,
        typing: text,
        eval: |_: &Call| constant_text(host_name()),
    },
    Spec {
        name: "FQDN",
        aliases: &["fullHostName", "fqdn"],
        args: (0, 0),
        volatility: Volatility::Stable,
        typing: text,
        eval: |_: &Call| constant_text(fqdn()),
    },
    Spec {
        name: "displayName",
        aliases: &[],
        args: (0, 0),
        volatility: Volatility::Stable,
        typing: text,
        eval: |_: &Call| constant_text(fqdn()),
    },
    Spec {
        name: "uptime",
        aliases: &[],
        args: (0, 0),
        volatility: Volatility::Stable,
        typing: |t| Ok(t.plain(DataType::UInt32)),
        eval: |_: &Call| {
            let seconds = STARTED.get_or_init(Instant::now).elapsed().as_secs();
            Ok(ColumnarValue::Scalar(ScalarValue::UInt32(Some(
                seconds.min(u32::MAX as u64) as u32,
            ))))
        },
    },
];

/// The kernel's name for this host (`gethostname`).
pub(crate) fn host_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let mut buffer = [0u8; 256];
        // SAFETY: the buffer is writable for its whole length, and the last
        // byte stays zero, so the name is terminated even when truncated.
        let status = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len() - 1) };
        if status != 0 {
            return String::new();
        }
        CStr::from_bytes_until_nul(&buffer)
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    })
}

/// The canonical name the resolver gives for the host name, or the host
/// name when it cannot.
fn fqdn() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| canonical_name(host_name()).unwrap_or_else(|| host_name().to_string()))
}

fn canonical_name(host: &str) -> Option<String> {
    let host = CString::new(host).ok()?;
    // SAFETY: hints is zeroed as getaddrinfo expects of unused fields; the
    // result list is read only while it lives and freed once.
    unsafe {
        let mut hints: libc::addrinfo = std::mem::zeroed();
        hints.ai_flags = libc::AI_CANONNAME | libc::AI_ADDRCONFIG;
        let mut result: *mut libc::addrinfo = std::ptr::null_mut();
        if libc::getaddrinfo(host.as_ptr(), std::ptr::null(), &hints, &mut result) != 0 {
            return None;
        }
        let name = (!result.is_null() && !(*result).ai_canonname.is_null()).then(|| {
            CStr::from_ptr((*result).ai_canonname)
                .to_string_lossy()
                .into_owned()
        });
        libc::freeaddrinfo(result);
        name
    }
}
