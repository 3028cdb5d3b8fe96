//! `storage_configuration` as ClickHouse's configuration file spells it:
//! `<disks>` by name with their `type` and connection, `<policies>` of
//! `<volumes>` that list disks. The server's config reader fills these
//! structs from XML or YAML; [`build_disk`] and [`build_policy`] check them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::settings::parse_size;

use super::file_cache::{DEFAULT_BOUNDARY_ALIGNMENT, FileCache, FileCacheConfig};
use super::{Disk, ObjectDisk, StoragePolicy, Volume};

/// Tries of one S3 request before it fails, as ClickHouse's disk setting.
pub const DEFAULT_RETRY_ATTEMPTS: usize = 10;
/// How long one S3 request may take, as ClickHouse's disk setting.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_millis(30_000);
/// Files up to this size are uploaded with one PUT, larger ones in parts
/// (ClickHouse's `max_single_part_upload_size`).
pub const DEFAULT_MAX_SINGLE_PART_UPLOAD_BYTES: usize = 32 << 20;
/// Bytes of each part of a multipart upload (`min_upload_part_size`).
pub const DEFAULT_UPLOAD_PART_BYTES: usize = 16 << 20;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct StorageConfiguration {
    pub disks: Vec<DiskConfig>,
    pub policies: Vec<PolicyConfig>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DiskConfig {
    pub name: String,
    pub kind: DiskType,
}

#[derive(Debug, Clone, PartialEq)]
pub enum DiskType {
    /// A directory of this machine.
    Local { path: PathBuf },
    /// A bucket of an S3-compatible service.
    S3(S3Config),
    /// Another disk's objects read through a filesystem cache.
    Cache(FileCacheConfig),
}

#[derive(Debug, Clone, PartialEq)]
pub struct S3Config {
    /// `http(s)://host:port/bucket/prefix/`, path-style.
    pub endpoint: String,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    /// Temporary credentials' token, sent with the keys.
    pub session_token: Option<String>,
    pub region: Option<String>,
    /// Take credentials from `AWS_ACCESS_KEY_ID` and the rest of the
    /// environment when the file gives none.
    pub use_environment_credentials: bool,
    pub retry_attempts: usize,
    pub request_timeout: Duration,
    pub max_single_part_upload_bytes: usize,
    pub upload_part_bytes: usize,
}

impl S3Config {
    pub fn new(endpoint: &str) -> S3Config {
        S3Config {
            endpoint: endpoint.to_string(),
            access_key_id: None,
            secret_access_key: None,
            session_token: None,
            region: None,
            use_environment_credentials: false,
            retry_attempts: DEFAULT_RETRY_ATTEMPTS,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            max_single_part_upload_bytes: DEFAULT_MAX_SINGLE_PART_UPLOAD_BYTES,
            upload_part_bytes: DEFAULT_UPLOAD_PART_BYTES,
        }
    }

    /// The endpoint split into the service's address, the bucket and the
    /// key prefix: `http://h:9000/bucket/a/b/` is (`http://h:9000`,
    /// `bucket`, `a/b`).
    pub fn split_endpoint(&self) -> Result<(String, String, String)> {
        let bad = || {
            StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "S3 endpoint {} must be http(s)://host[:port]/bucket[/prefix]",
                    self.endpoint
                ),
            )
        };
        let (scheme, rest) = self.endpoint.split_once("://").ok_or_else(bad)?;
        if scheme != "http" && scheme != "https" {
            return Err(bad());
        }
        let (host, path) = rest.split_once('/').ok_or_else(bad)?;
        let mut segments = path.split('/').filter(|s| !s.is_empty());
        let bucket = segments.next().ok_or_else(bad)?.to_string();
        let prefix: Vec<&str> = segments.collect();
        Ok((format!("{scheme}://{host}"), bucket, prefix.join("/")))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PolicyConfig {
    pub name: String,
    pub volumes: Vec<VolumeConfig>,
    pub move_factor: f64,
}

/// ClickHouse's default `move_factor`.
pub const DEFAULT_MOVE_FACTOR: f64 = 0.1;

#[derive(Debug, Clone, PartialEq)]
pub struct VolumeConfig {
    pub name: String,
    pub disks: Vec<String>,
    pub max_data_part_size_bytes: u64,
    pub prefer_not_to_merge: bool,
}

/// S3 refuses parts of a multipart upload under 5 MiB but the last.
const MIN_UPLOAD_PART_BYTES: usize = 5 << 20;

/// The disk `name` whose parameters `text` gives by name, as the
/// configuration file's elements or a `disk(...)` definition's arguments
/// name them; the error is the message alone, for the caller's code.
pub fn disk_config(
    name: &str,
    text: &dyn Fn(&str) -> Option<String>,
) -> std::result::Result<DiskConfig, String> {
    let kind = text("type").unwrap_or_else(|| "local".to_string());
    let object_storage = text("object_storage_type").unwrap_or_default();
    let kind = match (kind.as_str(), object_storage.as_str()) {
        ("local", _) => DiskType::Local {
            path: text("path")
                .map(PathBuf::from)
                .ok_or_else(|| format!("Disk {name} has no path"))?,
        },
        ("s3", _) | ("object_storage", "s3") => DiskType::S3(s3_config(name, text)?),
        ("cache", _) => DiskType::Cache(cache_config(name, text)?),
        (other, _) => {
            return Err(format!(
                "Disk {name} has type '{other}'; Strata supports the types local, s3 and cache"
            ));
        }
    };
    Ok(DiskConfig {
        name: name.to_string(),
        kind,
    })
}

fn s3_config(
    name: &str,
    text: &dyn Fn(&str) -> Option<String>,
) -> std::result::Result<S3Config, String> {
    let number = |key: &str| -> std::result::Result<Option<u64>, String> {
        text(key)
            .map(|value| {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("{key} of disk {name} must be a number, got '{value}'"))
            })
            .transpose()
    };
    let endpoint = text("endpoint").ok_or_else(|| format!("Disk {name} has no endpoint"))?;
    let mut s3 = S3Config::new(&endpoint);
    s3.access_key_id = text("access_key_id");
    s3.secret_access_key = text("secret_access_key");
    s3.session_token = text("session_token");
    s3.region = text("region");
    s3.use_environment_credentials = matches!(
        text("use_environment_credentials").as_deref(),
        Some("1" | "true")
    );
    if let Some(attempts) = number("retry_attempts")? {
        s3.retry_attempts = attempts as usize;
    }
    if let Some(milliseconds) = number("request_timeout_ms")? {
        s3.request_timeout = Duration::from_millis(milliseconds);
    }
    if let Some(bytes) = number("max_single_part_upload_size")? {
        s3.max_single_part_upload_bytes = bytes as usize;
    }
    if let Some(bytes) = number("min_upload_part_size")? {
        s3.upload_part_bytes = (bytes as usize).max(MIN_UPLOAD_PART_BYTES);
    }
    Ok(s3)
}

/// A `cache` disk: the disk it reads, where its files go and how much it
/// may keep (sizes with ClickHouse's suffixes, `10Gi`).
fn cache_config(
    name: &str,
    text: &dyn Fn(&str) -> Option<String>,
) -> std::result::Result<FileCacheConfig, String> {
    let required = |key: &str| text(key).ok_or_else(|| format!("Cache disk {name} has no {key}"));
    let size = |key: &str, value: String| {
        parse_size(&value)
            .ok_or_else(|| format!("{key} of disk {name} must be a size in bytes, got '{value}'"))
    };
    let boundary_alignment = match text("boundary_alignment") {
        Some(value) => size("boundary_alignment", value)?,
        None => DEFAULT_BOUNDARY_ALIGNMENT,
    };
    Ok(FileCacheConfig {
        disk: required("disk")?,
        path: PathBuf::from(required("path")?),
        max_size: size("max_size", required("max_size")?)?,
        boundary_alignment,
        cache_on_write_operations: matches!(
            text("cache_on_write_operations").as_deref(),
            Some("1" | "true")
        ),
    })
}

/// The disk `config` describes; `data_path` is where a relative local
/// path is resolved. Objects go under `instance` inside the disk, so data
/// paths sharing a bucket never take each other's objects for orphans. A
/// `cache` disk wraps `inner`, the disk its configuration names.
pub fn build_disk(
    config: &DiskConfig,
    data_path: &Path,
    instance: &str,
    inner: Option<&Disk>,
) -> Result<Disk> {
    if config.name == super::DEFAULT_DISK {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            "Disk default is the data path and cannot be redefined",
        ));
    }
    match &config.kind {
        DiskType::Local { path } => {
            let path = data_path.join(path);
            Ok(Disk {
                name: config.name.clone(),
                objects: Some(Arc::new(ObjectDisk::local(&config.name, &path, instance)?)),
                path,
                sharing: vec![config.name.clone()],
            })
        }
        DiskType::S3(s3) => Ok(Disk {
            name: config.name.clone(),
            path: data_path.join("disks").join(&config.name),
            objects: Some(Arc::new(ObjectDisk::s3(&config.name, s3, instance)?)),
            sharing: vec![config.name.clone()],
        }),
        DiskType::Cache(cache) => build_cache_disk(&config.name, cache, data_path, inner),
    }
}

fn build_cache_disk(
    name: &str,
    config: &FileCacheConfig,
    data_path: &Path,
    inner: Option<&Disk>,
) -> Result<Disk> {
    let inner = inner.ok_or_else(|| {
        StrataError::new(
            ErrorCode::UNKNOWN_DISK,
            format!(
                "Disk {} that cache disk {name} reads is not configured before it",
                config.disk
            ),
        )
    })?;
    let Some(objects) = inner.object_store() else {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!(
                "Cache disk {name} reads disk {}, which keeps no objects to cache",
                config.disk
            ),
        ));
    };
    // As ClickHouse's `filesystem_caches_path`: relative paths are under
    // the data path's `caches`.
    let dir = data_path.join("caches").join(&config.path);
    let cache = FileCache::open(name, config.clone(), dir)?;
    Ok(Disk {
        name: name.to_string(),
        path: inner.path.clone(),
        objects: Some(Arc::new(objects.cached(name, Arc::new(cache)))),
        sharing: vec![name.to_string()],
    })
}

pub fn build_policy(
    config: &PolicyConfig,
    disks: &BTreeMap<String, Arc<Disk>>,
) -> Result<StoragePolicy> {
    if config.volumes.is_empty() {
        return Err(StrataError::new(
            ErrorCode::BAD_ARGUMENTS,
            format!("Storage policy {} has no volumes", config.name),
        ));
    }
    let mut volumes = Vec::with_capacity(config.volumes.len());
    for volume in &config.volumes {
        if volume.disks.is_empty() {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Volume {} of storage policy {} has no disks",
                    volume.name, config.name
                ),
            ));
        }
        let members = volume
            .disks
            .iter()
            .map(|name| {
                disks.get(name).cloned().ok_or_else(|| {
                    StrataError::new(
                        ErrorCode::UNKNOWN_DISK,
                        format!(
                            "Disk {name} of storage policy {} is not configured",
                            config.name
                        ),
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?;
        volumes.push(Volume {
            name: volume.name.clone(),
            disks: members,
            max_data_part_size_bytes: volume.max_data_part_size_bytes,
            prefer_not_to_merge: volume.prefer_not_to_merge,
        });
    }
    Ok(StoragePolicy {
        name: config.name.clone(),
        volumes,
        move_factor: config.move_factor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_split_into_service_bucket_and_prefix() {
        let split = |e: &str| S3Config::new(e).split_endpoint();
        assert_eq!(
            split("http://127.0.0.1:9000/data/tables/").unwrap(),
            (
                "http://127.0.0.1:9000".to_string(),
                "data".to_string(),
                "tables".to_string()
            )
        );
        assert_eq!(split("https://h/b").unwrap().2, "");
        assert_eq!(
            split("ftp://h/b").unwrap_err().code,
            ErrorCode::BAD_ARGUMENTS
        );
        assert_eq!(
            split("http://h").unwrap_err().code,
            ErrorCode::BAD_ARGUMENTS
        );
    }
}
