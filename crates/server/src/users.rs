//! Users from the configuration file and their authentication.
//!
//! Every failure (unknown user, wrong password, address outside the user's
//! networks) is the same AUTHENTICATION_FAILED, so the answer does not help
//! to guess names; passwords are compared as SHA-256 digests in constant
//! time, and a digest is computed for an unknown user too.

use std::net::IpAddr;

use sha2::{Digest, Sha256};
use strata_common::{ErrorCode, Result, StrataError};
use strata_engine::instance::UserRow;

#[derive(Clone)]
pub enum Password {
    /// Any password, or none, is accepted.
    None,
    Plain(String),
    Sha256([u8; 32]),
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a password or its digest.
        f.write_str(match self {
            Password::None => "None",
            Password::Plain(_) => "Plain([HIDDEN])",
            Password::Sha256(_) => "Sha256([HIDDEN])",
        })
    }
}

impl Password {
    pub fn sha256_hex(hex: &str) -> Option<Password> {
        if hex.len() != 64 {
            return None;
        }
        let mut digest = [0u8; 32];
        for (i, byte) in digest.iter_mut().enumerate() {
            *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Password::Sha256(digest))
    }

    fn digest(&self) -> Option<[u8; 32]> {
        match self {
            Password::None => None,
            Password::Plain(plain) => Some(sha256(plain)),
            Password::Sha256(digest) => Some(*digest),
        }
    }
}

#[derive(Debug, Clone)]
pub struct UserConfig {
    pub name: String,
    pub password: Password,
    /// Addresses the user may connect from.
    pub networks: Vec<ipnet::IpNet>,
    pub profile: String,
}

impl UserConfig {
    /// The user a server without configured users has: `default`, no
    /// password, any address (the server listens on loopback by default).
    pub fn open_default() -> UserConfig {
        UserConfig {
            name: "default".to_string(),
            password: Password::None,
            networks: vec!["::/0".parse().expect("valid network")],
            profile: "default".to_string(),
        }
    }

    /// The user as `system.users` lists them, without the password.
    pub fn row(&self) -> UserRow {
        UserRow {
            name: self.name.clone(),
            auth_type: match self.password {
                Password::None => "no_password",
                Password::Plain(_) => "plaintext_password",
                Password::Sha256(_) => "sha256_password",
            },
            host_ip: self.networks.iter().map(|n| n.to_string()).collect(),
            profile: self.profile.clone(),
        }
    }

    fn allows(&self, address: IpAddr) -> bool {
        // An IPv4 client on a dual-stack socket arrives as ::ffff:a.b.c.d.
        let address = match address {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
            v4 => v4,
        };
        self.networks.iter().any(|net| match (net, address) {
            (ipnet::IpNet::V6(v6), IpAddr::V4(v4)) => {
                v6.contains(&v4.to_ipv6_mapped()) || v6.prefix_len() == 0
            }
            (net, address) => net.contains(&address),
        })
    }
}

fn sha256(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// Equal digests, compared without an early exit.
fn same_digest(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub fn authentication_failed(user: &str) -> StrataError {
    StrataError::new(
        ErrorCode::AUTHENTICATION_FAILED,
        format!(
            "{user}: Authentication failed: password is incorrect, or there is no user with such name"
        ),
    )
}

/// The users a server accepts.
#[derive(Debug)]
pub struct Users {
    users: Vec<UserConfig>,
}

impl Users {
    pub fn new(users: Vec<UserConfig>) -> Users {
        Users { users }
    }

    pub fn rows(&self) -> Vec<UserRow> {
        self.users.iter().map(UserConfig::row).collect()
    }

    /// The user `name` if `password` is theirs and `address` is in their networks.
    pub fn authenticate(&self, name: &str, password: &str, address: IpAddr) -> Result<&UserConfig> {
        let given = sha256(password);
        let user = self.users.iter().find(|u| u.name == name);
        let matches = match user {
            Some(user) => match user.password.digest() {
                Some(expected) => same_digest(&expected, &given),
                None => true,
            },
            None => {
                // The same work as for a known user.
                same_digest(&sha256(""), &given);
                false
            }
        };
        match user {
            Some(user) if matches && user.allows(address) => Ok(user),
            _ => Err(authentication_failed(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users() -> Users {
        let hex = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b";
        Users::new(vec![
            UserConfig::open_default(),
            UserConfig {
                name: "alice".into(),
                password: Password::Plain("wonderland".into()),
                networks: vec!["127.0.0.1/32".parse().unwrap()],
                profile: "default".into(),
            },
            UserConfig {
                name: "bob".into(),
                password: Password::sha256_hex(hex).unwrap(),
                networks: vec!["::/0".parse().unwrap()],
                profile: "default".into(),
            },
        ])
    }

    #[test]
    fn passwords_networks_and_unknown_users() {
        let users = users();
        let local: IpAddr = "127.0.0.1".parse().unwrap();
        let mapped: IpAddr = "::ffff:127.0.0.1".parse().unwrap();
        let remote: IpAddr = "10.1.2.3".parse().unwrap();
        assert!(users.authenticate("default", "", remote).is_ok());
        assert!(users.authenticate("alice", "wonderland", local).is_ok());
        assert!(users.authenticate("alice", "wonderland", mapped).is_ok());
        assert!(users.authenticate("alice", "wonderland", remote).is_err());
        assert!(users.authenticate("alice", "wrong", local).is_err());
        // sha256("secret")
        assert!(users.authenticate("bob", "secret", remote).is_ok());
        assert!(users.authenticate("bob", "", remote).is_err());
        let error = users.authenticate("mallory", "x", local).unwrap_err();
        assert_eq!(error.code, ErrorCode::AUTHENTICATION_FAILED);
        assert!(!format!("{:?}", users.users[1].password).contains("wonderland"));
    }
}
