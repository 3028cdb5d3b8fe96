//! A disk whose files are objects: in an S3 bucket, or in a local directory
//! through the same interface. Every object is written once under a fresh
//! key and never changed; reads ask for byte ranges.

use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::path::Path as ObjectPath;
use object_store::{
    BackoffConfig, ClientOptions, MultipartUpload, ObjectMeta, ObjectStore, ObjectStoreExt,
    PutPayload, RetryConfig,
};
use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::events::{self, Event};

use super::config::{DEFAULT_MAX_SINGLE_PART_UPLOAD_BYTES, DEFAULT_UPLOAD_PART_BYTES, S3Config};
use super::file_cache::{CacheFill, CacheUse, FileCache};
use super::requests::CountingConnector;
use super::runtime::block_on;

pub struct ObjectDisk {
    name: String,
    store: Arc<dyn ObjectStore>,
    /// Keys of this disk's objects start with it (ends in `/`).
    prefix: String,
    remote: bool,
    /// The endpoint or directory (a whole bucket's name), for
    /// `system.disks` and errors.
    location: String,
    max_single_part_upload_bytes: usize,
    upload_part_bytes: usize,
    /// A `cache` disk's segments of these objects on local disk.
    cache: Option<Arc<FileCache>>,
}

impl std::fmt::Debug for ObjectDisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectDisk")
            .field("name", &self.name)
            .field("location", &self.location)
            .finish()
    }
}

/// A client of `bucket` at `service`, its every request counted.
fn s3_store(config: &S3Config, service: &str, bucket: &str) -> Result<Arc<dyn ObjectStore>> {
    let mut builder = if config.use_environment_credentials {
        AmazonS3Builder::from_env()
    } else {
        AmazonS3Builder::new()
    };
    builder = builder
        .with_endpoint(service)
        .with_bucket_name(bucket)
        .with_region(config.region.as_deref().unwrap_or("us-east-1"))
        .with_virtual_hosted_style_request(false)
        .with_http_connector(CountingConnector)
        // Replaces every client option, so allow_http must come after it.
        .with_client_options(ClientOptions::new().with_timeout(config.request_timeout))
        .with_allow_http(service.starts_with("http://"))
        .with_retry(RetryConfig {
            backoff: BackoffConfig::default(),
            max_retries: config.retry_attempts,
            retry_timeout: config.request_timeout * 4,
        });
    match (&config.access_key_id, &config.secret_access_key) {
        (Some(key), Some(secret)) => {
            builder = builder
                .with_access_key_id(key)
                .with_secret_access_key(secret);
            if let Some(token) = &config.session_token {
                builder = builder.with_token(token);
            }
        }
        _ if config.use_environment_credentials => {}
        _ => builder = builder.with_skip_signature(true),
    }
    let store = builder.build().map_err(|e| s3_error(&config.endpoint, e))?;
    Ok(Arc::new(store))
}

impl ObjectDisk {
    /// A disk in the bucket `config.endpoint` names.
    pub fn s3(name: &str, config: &S3Config, instance: &str) -> Result<ObjectDisk> {
        let (service, bucket, prefix) = config.split_endpoint()?;
        Ok(ObjectDisk {
            name: name.to_string(),
            store: s3_store(config, &service, &bucket)?,
            prefix: if prefix.is_empty() {
                format!("{instance}/")
            } else {
                format!("{prefix}/{instance}/")
            },
            remote: true,
            location: config.endpoint.clone(),
            max_single_part_upload_bytes: config.max_single_part_upload_bytes,
            upload_part_bytes: config.upload_part_bytes,
            cache: None,
        })
    }

    /// The whole bucket `config.endpoint` names, keys as written (the
    /// `s3()` table function), and the rest of the endpoint's path: a key
    /// or a pattern of keys.
    pub fn bucket(config: &S3Config) -> Result<(ObjectDisk, String)> {
        let (service, bucket, key) = config.split_endpoint()?;
        let disk = ObjectDisk {
            name: "s3".to_string(),
            store: s3_store(config, &service, &bucket)?,
            prefix: String::new(),
            remote: true,
            location: bucket,
            max_single_part_upload_bytes: config.max_single_part_upload_bytes,
            upload_part_bytes: config.upload_part_bytes,
            cache: None,
        };
        Ok((disk, key))
    }

    /// A disk in the local directory `path`, created if missing.
    pub fn local(name: &str, path: &Path, instance: &str) -> Result<ObjectDisk> {
        std::fs::create_dir_all(path).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_OPEN_FILE,
                format!(
                    "Cannot create the directory of disk {name}, {}: {e}",
                    path.display()
                ),
            )
        })?;
        let store = LocalFileSystem::new_with_prefix(path).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_OPEN_FILE,
                format!("Cannot open disk {name} at {}: {e}", path.display()),
            )
        })?;
        Ok(ObjectDisk {
            name: name.to_string(),
            store: Arc::new(store),
            prefix: format!("{instance}/"),
            remote: false,
            location: path.display().to_string(),
            max_single_part_upload_bytes: DEFAULT_MAX_SINGLE_PART_UPLOAD_BYTES,
            upload_part_bytes: DEFAULT_UPLOAD_PART_BYTES,
            cache: None,
        })
    }

    /// The `cache` disk `name` over this disk's objects: the same store and
    /// keys, read through `cache`.
    pub fn cached(&self, name: &str, cache: Arc<FileCache>) -> ObjectDisk {
        ObjectDisk {
            name: name.to_string(),
            store: Arc::clone(&self.store),
            prefix: self.prefix.clone(),
            remote: self.remote,
            location: self.location.clone(),
            max_single_part_upload_bytes: self.max_single_part_upload_bytes,
            upload_part_bytes: self.upload_part_bytes,
            cache: Some(cache),
        }
    }

    pub fn file_cache(&self) -> Option<&Arc<FileCache>> {
        self.cache.as_ref()
    }

    pub fn is_remote(&self) -> bool {
        self.remote
    }

    /// The endpoint or directory the objects are in; for a whole bucket,
    /// its name.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// A key no object has had, under the prefix of the table in
    /// `table_dir`: the directory's name (the table's UUID) then a random
    /// name.
    pub fn new_key(table_dir: &Path) -> String {
        let id = uuid::Uuid::new_v4().simple().to_string();
        format!("{}/{id}", table_prefix(table_dir))
    }

    fn path_of(&self, key: &str) -> ObjectPath {
        ObjectPath::from(format!("{}{key}", self.prefix))
    }

    /// Bytes `range` of object `key`.
    pub fn read_range(&self, key: &str, range: Range<u64>) -> Result<Bytes> {
        let store = Arc::clone(&self.store);
        let path = self.path_of(key);
        let bytes = block_on(async move {
            store
                .get_range(&path, range)
                .await
                .map_err(|e| object_error(&path, e))
        })?;
        self.count_read(bytes.len());
        Ok(bytes)
    }

    /// Bytes `range` of object `key` (`size` bytes long), through the
    /// disk's filesystem cache as `using` says.
    pub fn read_range_using(
        &self,
        key: &str,
        size: u64,
        range: Range<u64>,
        using: CacheUse,
    ) -> Result<Bytes> {
        match &self.cache {
            Some(cache) if using != CacheUse::Bypass => cache.read(self, key, size, range, using),
            _ => self.read_range(key, range),
        }
    }

    /// Several ranges of object `key`, requested side by side; ranges close
    /// together are fetched as one.
    pub fn read_ranges(&self, key: &str, ranges: Vec<Range<u64>>) -> Result<Vec<Bytes>> {
        let store = Arc::clone(&self.store);
        let path = self.path_of(key);
        let parts = block_on(async move {
            store
                .get_ranges(&path, &ranges)
                .await
                .map_err(|e| object_error(&path, e))
        })?;
        self.count_read(parts.iter().map(Bytes::len).sum());
        Ok(parts)
    }

    fn count_read(&self, bytes: usize) {
        let event = if self.remote {
            Event::ReadBufferFromS3Bytes
        } else {
            Event::ReadBufferFromFileDescriptorReadBytes
        };
        events::add(event, bytes as u64);
    }

    fn count_write(&self, bytes: usize) {
        let event = if self.remote {
            Event::WriteBufferFromS3Bytes
        } else {
            Event::WriteBufferFromFileDescriptorWriteBytes
        };
        events::add(event, bytes as u64);
    }

    /// A writer of the new object `key`.
    pub fn writer(self: &Arc<Self>, key: String) -> ObjectWriter {
        let fill = self
            .cache
            .as_ref()
            .filter(|cache| cache.config().cache_on_write_operations)
            .map(|cache| cache.fill(&key));
        ObjectWriter {
            disk: Arc::clone(self),
            path: self.path_of(&key),
            buffer: Vec::new(),
            upload: None,
            bytes: 0,
            fill,
        }
    }

    /// Removes the objects `keys`; a key already gone is no error.
    pub fn remove(&self, keys: Vec<String>) -> Result<()> {
        let store = Arc::clone(&self.store);
        let paths: Vec<ObjectPath> = keys.iter().map(|key| self.path_of(key)).collect();
        block_on(async move {
            let stream = futures::stream::iter(paths.into_iter().map(Ok)).boxed();
            let mut results = store.delete_stream(stream);
            while let Some(result) = results.next().await {
                match result {
                    Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
                    Err(error) => return Err(s3_error("delete", error)),
                }
            }
            Ok(())
        })
    }

    /// Keys of the objects of the table in `table_dir`.
    pub fn list_keys(&self, table_dir: &Path) -> Result<Vec<String>> {
        let listed = self.list(&table_prefix(table_dir))?;
        Ok(listed.into_iter().map(|object| object.key).collect())
    }

    /// The objects under the directory `directory` (by whole path
    /// segments: `a` lists `a/x`, not `ab`), at any depth; all of them for
    /// an empty one.
    pub fn list(&self, directory: &str) -> Result<Vec<StoredObject>> {
        let store = Arc::clone(&self.store);
        let prefix = self.path_of(directory);
        let listed: Vec<ObjectMeta> = block_on(async move {
            let prefix = (!prefix.as_ref().is_empty()).then_some(prefix);
            store
                .list(prefix.as_ref())
                .try_collect()
                .await
                .map_err(|e| s3_error("list", e))
        })?;
        Ok(listed
            .into_iter()
            .filter_map(|meta| self.stored_object(meta))
            .collect())
    }

    /// What the store says of `meta`'s object, by its key under this disk's
    /// prefix; `None` for an object outside the prefix.
    fn stored_object(&self, meta: ObjectMeta) -> Option<StoredObject> {
        let key = meta.location.as_ref().strip_prefix(&self.prefix)?;
        Some(StoredObject {
            key: key.to_string(),
            size: meta.size,
            modified_seconds: meta.last_modified.timestamp(),
        })
    }

    /// Object `key` as the store describes it (one HEAD), `None` if there
    /// is none.
    pub fn head(&self, key: &str) -> Result<Option<StoredObject>> {
        let store = Arc::clone(&self.store);
        let path = self.path_of(key);
        let meta = block_on(async move {
            match store.head(&path).await {
                Ok(meta) => Ok(Some(meta)),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(error) => Err(object_error(&path, error)),
            }
        })?;
        Ok(meta.and_then(|meta| self.stored_object(meta)))
    }

    /// The size of object `key`, `None` where there is none.
    pub fn size(&self, key: &str) -> Result<Option<u64>> {
        Ok(self.head(key)?.map(|object| object.size))
    }

    /// A reader of object `key` from its start, fetched as it is read: one
    /// GET, its body taken a network chunk at a time.
    pub fn reader(self: &Arc<Self>, key: &str) -> Result<ObjectReader> {
        let store = Arc::clone(&self.store);
        let path = self.path_of(key);
        let body = block_on(async move {
            match store.get(&path).await {
                Ok(answer) => Ok(answer.into_stream()),
                Err(error) => Err(object_error(&path, error)),
            }
        })?;
        Ok(ObjectReader {
            disk: Arc::clone(self),
            key: key.to_string(),
            body: Some(body),
            chunk: Bytes::new(),
        })
    }

    /// Removes every object of the table in `table_dir` (DROP TABLE).
    pub fn remove_table(&self, table_dir: &Path) -> Result<()> {
        let keys = self.list_keys(table_dir)?;
        if keys.is_empty() {
            return Ok(());
        }
        self.remove(keys)
    }

    /// Removes the objects of the table in `table_dir` that `referenced`
    /// does not name, and returns how many. The references are read after
    /// the listing, so an object uploaded meanwhile is named by a reference
    /// written before it.
    pub fn sweep(
        &self,
        table_dir: &Path,
        referenced: impl FnOnce() -> Result<HashSet<String>>,
    ) -> Result<u64> {
        let listed = self.list_keys(table_dir)?;
        let referenced = referenced()?;
        let orphans: Vec<String> = listed
            .into_iter()
            .filter(|key| !referenced.contains(key))
            .collect();
        let count = orphans.len() as u64;
        if count > 0 {
            log::info!(
                "Disk {}: removing {count} objects no part of {} references",
                self.name,
                table_dir.display()
            );
            self.remove(orphans)?;
            events::add(Event::RemoteObjectsOrphaned, count);
        }
        Ok(count)
    }
}

/// An object as a listing or a HEAD describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredObject {
    /// Its key under the disk's prefix.
    pub key: String,
    pub size: u64,
    /// When it was last written, in seconds since the Unix epoch.
    pub modified_seconds: i64,
}

/// Reads an object's body as it arrives (see [`ObjectDisk::reader`]).
pub struct ObjectReader {
    disk: Arc<ObjectDisk>,
    key: String,
    /// `None` once the body has ended.
    body: Option<BoxStream<'static, object_store::Result<Bytes>>>,
    /// What is left of the chunk last received.
    chunk: Bytes,
}

impl ObjectReader {
    /// The next chunk of the body, empty at its end.
    fn next_chunk(&mut self) -> Result<Bytes> {
        let Some(mut body) = self.body.take() else {
            return Ok(Bytes::new());
        };
        let key = self.key.clone();
        // The stream travels to the request runtime and back with each chunk.
        let (body, chunk) = block_on(async move {
            let chunk = body.next().await;
            Ok((body, chunk))
        })?;
        match chunk {
            Some(Ok(chunk)) => {
                self.disk.count_read(chunk.len());
                self.body = Some(body);
                Ok(chunk)
            }
            Some(Err(error)) => Err(s3_error(&key, error)),
            None => Ok(Bytes::new()),
        }
    }
}

impl std::io::Read for ObjectReader {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        while self.chunk.is_empty() {
            if self.body.is_none() {
                return Ok(0);
            }
            self.chunk = self.next_chunk().map_err(std::io::Error::other)?;
        }
        let length = buffer.len().min(self.chunk.len());
        buffer[..length].copy_from_slice(&self.chunk.split_to(length));
        Ok(length)
    }
}

/// The key prefix of the table in `table_dir`.
fn table_prefix(table_dir: &Path) -> String {
    table_dir
        .file_name()
        .map_or_else(String::new, |name| name.to_string_lossy().to_string())
}

/// Writes one object: a single PUT if it stays small, a multipart upload
/// once it outgrows one; an unfinished upload is aborted when dropped.
pub struct ObjectWriter {
    disk: Arc<ObjectDisk>,
    path: ObjectPath,
    buffer: Vec<u8>,
    upload: Option<Box<dyn MultipartUpload>>,
    bytes: u64,
    /// The object's segments for the disk's filesystem cache.
    fill: Option<CacheFill>,
}

impl ObjectWriter {
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        if let Some(fill) = &mut self.fill {
            fill.write(bytes);
        }
        self.buffer.extend_from_slice(bytes);
        self.bytes += bytes.len() as u64;
        if self.upload.is_some() || self.buffer.len() > self.disk.max_single_part_upload_bytes {
            while self.buffer.len() >= self.disk.upload_part_bytes {
                let rest = self.buffer.split_off(self.disk.upload_part_bytes);
                let part = std::mem::replace(&mut self.buffer, rest);
                self.send_part(part)?;
            }
        }
        Ok(())
    }

    /// Bytes written so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn send_part(&mut self, part: Vec<u8>) -> Result<()> {
        let mut upload = match self.upload.take() {
            Some(upload) => upload,
            None => {
                let store = Arc::clone(&self.disk.store);
                let path = self.path.clone();
                block_on(async move {
                    store
                        .put_multipart(&path)
                        .await
                        .map_err(|e| object_error(&path, e))
                })?
            }
        };
        let length = part.len();
        let path = self.path.clone();
        let upload = block_on(async move {
            upload
                .put_part(PutPayload::from(part))
                .await
                .map_err(|e| object_error(&path, e))?;
            Ok(upload)
        })?;
        self.upload = Some(upload);
        self.disk.count_write(length);
        Ok(())
    }

    /// Stores what was written; the object exists once this returns.
    pub fn finish(mut self) -> Result<u64> {
        let rest = std::mem::take(&mut self.buffer);
        if self.upload.is_none() {
            let store = Arc::clone(&self.disk.store);
            let path = self.path.clone();
            let length = rest.len();
            block_on(async move {
                store
                    .put(&path, PutPayload::from(rest))
                    .await
                    .map_err(|e| object_error(&path, e))
            })?;
            self.disk.count_write(length);
            self.cache_written();
            return Ok(self.bytes);
        }
        if !rest.is_empty() {
            self.send_part(rest)?;
        }
        let mut upload = self.upload.take().expect("an upload was started");
        let path = self.path.clone();
        block_on(async move {
            match upload.complete().await {
                Ok(_) => Ok(()),
                Err(error) => {
                    let _ = upload.abort().await;
                    Err(object_error(&path, error))
                }
            }
        })?;
        self.cache_written();
        Ok(self.bytes)
    }

    /// The object is stored: what the fill wrote enters the cache.
    fn cache_written(&mut self) {
        if let Some(fill) = self.fill.take() {
            fill.finish();
        }
    }
}

impl Drop for ObjectWriter {
    fn drop(&mut self) {
        if let Some(mut upload) = self.upload.take() {
            // Best effort: the sweep removes what an abort leaves.
            let _ = block_on(async move {
                let _ = upload.abort().await;
                Ok(())
            });
        }
    }
}

fn object_error(path: &ObjectPath, error: object_store::Error) -> StrataError {
    s3_error(path.as_ref(), error)
}

fn s3_error(what: &str, error: object_store::Error) -> StrataError {
    StrataError::new(ErrorCode::S3_ERROR, format!("{what}: {error}"))
}
