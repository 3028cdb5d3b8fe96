//! How a user proves who they are, and where they may connect from.
//!
//! Passwords are kept as digests (SHA-256 with a salt for SQL users, as
//! ClickHouse's `sha256_password`) and compared in constant time; a digest
//! is computed for an unknown user too, so timing does not tell names.

use std::net::IpAddr;

use sha1::Sha1;
use sha2::{Digest, Sha256};
use strata_common::{ErrorCode, Result, StrataError};
use strata_sql::access::{AuthenticationSpec, HostSpec};
use strata_sql::literal_text::quoted;

#[derive(Clone, PartialEq, Eq)]
pub enum Authentication {
    /// Any password, or none, is accepted.
    NoPassword,
    /// Kept as given (config files, `plaintext_password`).
    Plaintext(String),
    /// SHA-256 of the password followed by the salt.
    Sha256 { digest: [u8; 32], salt: String },
    /// SHA-1 of the SHA-1 of the password (MySQL's form).
    DoubleSha1([u8; 20]),
}

impl std::fmt::Debug for Authentication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a password or its digest.
        f.write_str(self.type_name())
    }
}

impl Authentication {
    /// ClickHouse's name of the type, as `system.users` shows it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Authentication::NoPassword => "no_password",
            Authentication::Plaintext(_) => "plaintext_password",
            Authentication::Sha256 { .. } => "sha256_password",
            Authentication::DoubleSha1(_) => "double_sha1_password",
        }
    }

    /// A password as a salted SHA-256 digest, ClickHouse's default type.
    pub fn sha256_of(password: &str) -> Authentication {
        use rand::Rng;
        let salt: String = (0..32)
            .map(|_| format!("{:x}", rand::rng().random_range(0..16u8)))
            .collect();
        Authentication::Sha256 {
            digest: sha256(&format!("{password}{salt}")),
            salt,
        }
    }

    /// A digest given as 64 hex digits (`password_sha256_hex`, `sha256_hash`).
    pub fn sha256_hex(hex: &str, salt: &str) -> Option<Authentication> {
        Some(Authentication::Sha256 {
            digest: from_hex(hex)?,
            salt: salt.to_string(),
        })
    }

    /// `IDENTIFIED ...` as written.
    pub fn from_spec(spec: &AuthenticationSpec) -> Result<Authentication> {
        let value = || {
            spec.value.clone().ok_or_else(|| {
                StrataError::new(ErrorCode::BAD_ARGUMENTS, "Expected a password after BY")
            })
        };
        let bad_hash =
            || StrataError::new(ErrorCode::BAD_ARGUMENTS, "The password hash is malformed");
        match spec.kind.as_deref() {
            None | Some("sha256_password") => Ok(Authentication::sha256_of(&value()?)),
            Some("no_password") => Ok(Authentication::NoPassword),
            Some("plaintext_password") => Ok(Authentication::Plaintext(value()?)),
            Some("sha256_hash") => {
                let salt = spec.salt.clone().unwrap_or_default();
                Authentication::sha256_hex(&value()?, &salt).ok_or_else(bad_hash)
            }
            Some("double_sha1_password") => {
                let once: [u8; 20] = Sha1::digest(value()?.as_bytes()).into();
                Ok(Authentication::DoubleSha1(Sha1::digest(once).into()))
            }
            Some("double_sha1_hash") => Ok(Authentication::DoubleSha1(
                from_hex(&value()?).ok_or_else(bad_hash)?,
            )),
            Some(other) => Err(StrataError::new(
                ErrorCode::NOT_IMPLEMENTED,
                format!("Authentication type {other} is not supported"),
            )),
        }
    }

    /// The clause that recreates it, secrets as stored (for the access file).
    pub fn stored_clause(&self) -> String {
        match self {
            Authentication::NoPassword => "NOT IDENTIFIED".to_string(),
            Authentication::Plaintext(password) => {
                format!("IDENTIFIED WITH plaintext_password BY {}", quoted(password))
            }
            Authentication::Sha256 { digest, salt } => format!(
                "IDENTIFIED WITH sha256_hash BY '{}' SALT {}",
                to_hex(digest),
                quoted(salt)
            ),
            Authentication::DoubleSha1(digest) => {
                format!("IDENTIFIED WITH double_sha1_hash BY '{}'", to_hex(digest))
            }
        }
    }

    /// The clause SHOW CREATE USER prints: the type, never the secret.
    pub fn shown_clause(&self) -> String {
        match self {
            Authentication::NoPassword => "IDENTIFIED WITH no_password".to_string(),
            other => format!("IDENTIFIED WITH {}", other.type_name()),
        }
    }

    pub fn accepts(&self, password: &str) -> bool {
        match self {
            Authentication::NoPassword => true,
            Authentication::Plaintext(expected) => same_bytes(&sha256(expected), &sha256(password)),
            Authentication::Sha256 { digest, salt } => {
                same_bytes(digest, &sha256(&format!("{password}{salt}")))
            }
            Authentication::DoubleSha1(digest) => {
                let once: [u8; 20] = Sha1::digest(password.as_bytes()).into();
                let twice: [u8; 20] = Sha1::digest(once).into();
                same_bytes(digest, &twice)
            }
        }
    }
}

/// The same work an existing user's check does, for an unknown name.
pub fn decoy_check(password: &str) {
    same_bytes(&sha256(""), &sha256(password));
}

/// Where a user may connect from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hosts {
    Any,
    /// Networks; `LOCAL` is the loopback ones.
    Networks(Vec<ipnet::IpNet>),
}

impl Hosts {
    pub fn from_specs(specs: &[HostSpec]) -> Result<Hosts> {
        let mut networks = Vec::new();
        for spec in specs {
            match spec {
                HostSpec::Any => return Ok(Hosts::Any),
                HostSpec::None => {}
                HostSpec::Local => {
                    networks.push("127.0.0.0/8".parse().expect("valid network"));
                    networks.push("::1/128".parse().expect("valid network"));
                }
                HostSpec::Ip(text) => networks.push(parse_network(text)?),
            }
        }
        Ok(Hosts::Networks(networks))
    }

    /// As `system.users.host_ip` lists them.
    pub fn host_ip(&self) -> Vec<String> {
        match self {
            Hosts::Any => vec!["::/0".to_string()],
            Hosts::Networks(networks) => networks.iter().map(|n| n.to_string()).collect(),
        }
    }

    /// The `HOST` clause that recreates it.
    pub fn clause(&self) -> String {
        match self {
            Hosts::Any => String::new(),
            Hosts::Networks(networks) if networks.is_empty() => " HOST NONE".to_string(),
            Hosts::Networks(networks) => {
                let ips: Vec<String> = networks
                    .iter()
                    .map(|n| format!("IP {}", quoted(&n.to_string())))
                    .collect();
                format!(" HOST {}", ips.join(", "))
            }
        }
    }

    pub fn allows(&self, address: IpAddr) -> bool {
        let Hosts::Networks(networks) = self else {
            return true;
        };
        // An IPv4 client on a dual-stack socket arrives as ::ffff:a.b.c.d.
        let address = match address {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
            v4 => v4,
        };
        networks.iter().any(|net| match (net, address) {
            (ipnet::IpNet::V6(v6), IpAddr::V4(v4)) => {
                v6.contains(&v4.to_ipv6_mapped()) || v6.prefix_len() == 0
            }
            (net, address) => net.contains(&address),
        })
    }
}

/// `10.0.0.0/8`, or one address as a network of itself.
pub fn parse_network(text: &str) -> Result<ipnet::IpNet> {
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("Invalid IP address or network: {text}"),
            )
        })
}

pub fn authentication_failed(user: &str) -> StrataError {
    StrataError::new(
        ErrorCode::AUTHENTICATION_FAILED,
        format!(
            "{user}: Authentication failed: password is incorrect, or there is no user with such name"
        ),
    )
}

fn sha256(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// Equal bytes, compared without an early exit.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

fn from_hex<const N: usize>(hex: &str) -> Option<[u8; N]> {
    if hex.len() != 2 * N {
        return None;
    }
    let mut out = [0u8; N];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_of_each_type() {
        let salted = Authentication::sha256_of("secret");
        assert!(salted.accepts("secret") && !salted.accepts("Secret"));
        // sha256("secret"), as config files give it.
        let hex = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";
        assert!(
            Authentication::sha256_hex(hex, "")
                .unwrap()
                .accepts("secret")
        );
        let spec = |kind: &str, value: &str| AuthenticationSpec {
            kind: Some(kind.to_string()),
            value: Some(value.to_string()),
            salt: None,
        };
        let double = Authentication::from_spec(&spec("double_sha1_password", "pw")).unwrap();
        assert!(double.accepts("pw") && !double.accepts(""));
        assert!(Authentication::NoPassword.accepts("anything"));
        let plain = Authentication::from_spec(&spec("plaintext_password", "hunter2")).unwrap();
        assert!(plain.accepts("hunter2") && !format!("{plain:?}").contains("hunter2"));
        assert!(Authentication::from_spec(&spec("sha256_hash", "zz")).is_err());
    }

    #[test]
    fn stored_clauses_read_back() {
        let original = Authentication::sha256_of("x");
        let Authentication::Sha256 { digest, salt } = &original else {
            panic!("not sha256");
        };
        let back = Authentication::sha256_hex(&to_hex(digest), salt).unwrap();
        assert_eq!(back, original);
        assert!(
            original
                .stored_clause()
                .starts_with("IDENTIFIED WITH sha256_hash BY '")
        );
    }

    #[test]
    fn networks() {
        let hosts =
            Hosts::from_specs(&[HostSpec::Ip("10.0.0.0/8".into()), HostSpec::Local]).unwrap();
        assert!(hosts.allows("10.1.2.3".parse().unwrap()));
        assert!(hosts.allows("::ffff:127.0.0.1".parse().unwrap()));
        assert!(!hosts.allows("192.168.0.1".parse().unwrap()));
        assert!(Hosts::Any.allows("192.168.0.1".parse().unwrap()));
        assert!(Hosts::from_specs(&[HostSpec::Ip("nope".into())]).is_err());
    }
}
