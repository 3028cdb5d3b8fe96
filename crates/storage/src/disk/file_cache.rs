//! The filesystem cache of a `cache` disk: segments of another disk's
//! objects kept as files on local disk, so repeated reads of remote data
//! cost no request.
//!
//! An object is cut into segments at multiples of `boundary_alignment`;
//! each cached segment is one file under the cache's directory, named by a
//! number never reused, and its bytes are exactly the object's bytes in
//! that range (objects are written once, so a cached segment never goes
//! stale). The index of segments is an [`Slru`] weighted by bytes, so a
//! scan that touches each segment once passes through probation without
//! evicting segments that are read again. A segment's file is removed when
//! the index lets go of it and no reader still holds it.
//!
//! The index lives in memory: the cache's directory is emptied when the
//! process starts, so it starts cold.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use parking_lot::{Condvar, Mutex};
use strata_common::error::{ErrorCode, Result, StrataError};
use strata_common::events::{self, Event};

use super::ObjectDisk;
use crate::cache::slru::{SHARDS, Slru};

/// ClickHouse's default alignment of file segments.
pub const DEFAULT_BOUNDARY_ALIGNMENT: u64 = 1 << 20;

/// A `cache` disk's settings, as its configuration names them.
#[derive(Debug, Clone, PartialEq)]
pub struct FileCacheConfig {
    /// The disk whose objects are cached.
    pub disk: String,
    /// Where segment files go; a relative path is under the data path's
    /// `caches` directory.
    pub path: PathBuf,
    /// Bytes of segment files the cache may keep.
    pub max_size: u64,
    /// Bytes of each segment (the last of an object may be shorter).
    pub boundary_alignment: u64,
    /// Objects written through the disk are cached as they are uploaded.
    pub cache_on_write_operations: bool,
}

/// How one read uses the filesystem cache, from the query's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUse {
    /// Read what is cached, download the rest into the cache.
    Fill,
    /// Read what is cached, the rest from the source without caching it
    /// (`read_from_filesystem_cache_if_exists_otherwise_bypass_cache`;
    /// merges and mutations, which read each byte once).
    IfExists,
    /// Read from the source only (`enable_filesystem_cache = 0`).
    Bypass,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SegmentKey {
    object: Arc<str>,
    index: u64,
}

/// One cached segment's file; removed when the last holder lets go.
#[derive(Debug)]
struct Segment {
    file: PathBuf,
    bytes: u64,
    hits: AtomicU64,
}

impl Drop for Segment {
    fn drop(&mut self) {
        events::add(Event::FilesystemCacheEvictedFileSegments, 1);
        events::add(Event::FilesystemCacheEvictedBytes, self.bytes);
        if let Err(error) = std::fs::remove_file(&self.file)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            log::warn!("Cannot remove cache file {}: {error}", self.file.display());
        }
    }
}

/// One read of an object through the cache.
struct SegmentRead<'a> {
    source: &'a ObjectDisk,
    object: Arc<str>,
    /// The object's bytes.
    size: u64,
    range: Range<u64>,
    /// The segments `range` touches.
    indexes: Range<u64>,
}

impl SegmentRead<'_> {
    /// The part of `span` the read wants.
    fn wanted(&self, span: &Range<u64>) -> Range<u64> {
        self.range.start.max(span.start)..self.range.end.min(span.end)
    }
}

/// How long a reader waits for a segment another reader downloads before
/// reading it from the source itself; each request has its own timeout,
/// so this bounds only a stuck download.
const DOWNLOAD_WAIT: Duration = Duration::from_secs(600);

/// A segment being downloaded; readers that need it wait until it is done.
#[derive(Default)]
struct Download {
    done: Mutex<bool>,
    finished: Condvar,
}

impl Download {
    fn wait(&self) {
        let mut done = self.done.lock();
        let deadline = Instant::now() + DOWNLOAD_WAIT;
        while !*done {
            if self.finished.wait_until(&mut done, deadline).timed_out() {
                return;
            }
        }
    }
}

/// The right to download one segment; dropped, it wakes the readers
/// waiting for it, whether the download succeeded or not.
struct Claim<'a> {
    cache: &'a FileCache,
    key: SegmentKey,
    download: Arc<Download>,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.cache.downloading.lock().remove(&self.key);
        *self.download.done.lock() = true;
        self.download.finished.notify_all();
    }
}

/// A cached segment as `system.filesystem_cache` shows it.
#[derive(Debug, Clone)]
pub struct SegmentRow {
    pub object: String,
    /// The object's bytes the segment holds.
    pub range: Range<u64>,
    pub file: PathBuf,
    pub hits: u64,
    /// Readers holding the segment's file besides the index.
    pub references: u64,
}

pub struct FileCache {
    /// The `cache` disk's name.
    name: String,
    config: FileCacheConfig,
    /// Absolute: the configured path resolved against the data path.
    dir: PathBuf,
    segments: Slru<SegmentKey, Arc<Segment>>,
    /// Segments a reader is downloading, for others to wait on.
    downloading: Mutex<HashMap<SegmentKey, Arc<Download>>>,
    next_file: AtomicU64,
}

impl std::fmt::Debug for FileCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileCache")
            .field("name", &self.name)
            .field("dir", &self.dir)
            .finish()
    }
}

impl FileCache {
    /// An empty cache in `dir`, whose old segment files are removed (only
    /// files named as segments: the directory may hold anything else).
    pub fn open(name: &str, config: FileCacheConfig, dir: PathBuf) -> Result<FileCache> {
        if config.boundary_alignment == 0 {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!("boundary_alignment of cache disk {name} must be positive"),
            ));
        }
        remove_old_segments(&dir).map_err(|e| {
            StrataError::new(
                ErrorCode::CANNOT_OPEN_FILE,
                format!("Cannot prepare the cache directory {}: {e}", dir.display()),
            )
        })?;
        Ok(FileCache {
            name: name.to_string(),
            segments: Slru::unaccounted(config.max_size as usize),
            config,
            dir,
            downloading: Mutex::default(),
            next_file: AtomicU64::new(0),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn config(&self) -> &FileCacheConfig {
        &self.config
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The largest segment the cache keeps: a shard's share of its size.
    fn segment_fits(&self, bytes: u64) -> bool {
        bytes <= (self.segments.capacity() / SHARDS) as u64
    }

    /// Bytes and segments held, and the size limit.
    pub fn usage(&self) -> (u64, u64, u64) {
        let stats = self.segments.stats();
        (
            stats.bytes as u64,
            stats.entries as u64,
            stats.capacity as u64,
        )
    }

    /// Sets the size limit: new segments see it at once, and segments over
    /// it are evicted a batch per shard lock while reads go on.
    pub fn resize(&self, max_size: u64) {
        self.segments.resize(max_size as usize);
    }

    /// `SYSTEM DROP FILESYSTEM CACHE`: every segment leaves the index; a
    /// segment a reader holds is removed when it is done.
    pub fn clear(&self) {
        self.segments.clear();
    }

    pub fn rows(&self) -> Vec<SegmentRow> {
        let alignment = self.config.boundary_alignment;
        self.segments
            .entries()
            .into_iter()
            .map(|(key, segment, _)| SegmentRow {
                object: key.object.to_string(),
                range: key.index * alignment..key.index * alignment + segment.bytes,
                file: segment.file.clone(),
                hits: segment.hits.load(Ordering::Relaxed),
                // This row's copy and the index's own are not readers.
                references: (Arc::strong_count(&segment) as u64).saturating_sub(2),
            })
            .collect()
    }

    /// Segment `index`'s bytes in an object of `size` bytes.
    fn segment_range(&self, index: u64, size: u64) -> Range<u64> {
        let start = index * self.config.boundary_alignment;
        start..(start + self.config.boundary_alignment).min(size)
    }

    /// Bytes `range` of object `key`, `size` bytes long, from cached
    /// segments where they are and from `source` for the rest. With
    /// [`CacheUse::Fill`] whole missing segments are downloaded (one request
    /// per run of adjacent ones) and kept; a segment another reader is
    /// downloading is waited for, not fetched twice.
    pub fn read(
        &self,
        source: &ObjectDisk,
        key: &str,
        size: u64,
        range: Range<u64>,
        using: CacheUse,
    ) -> Result<Bytes> {
        debug_assert!(
            using != CacheUse::Bypass,
            "a bypassing read skips the cache"
        );
        if range.end > size {
            // Marks or a reference disagreeing with the object: corrupt data.
            return Err(StrataError::new(
                ErrorCode::CORRUPTED_DATA,
                format!("Bytes {range:?} of object {key} asked for, which has {size}"),
            ));
        }
        if range.is_empty() {
            return Ok(Bytes::new());
        }
        let read = SegmentRead {
            source,
            object: Arc::from(key),
            size,
            indexes: range.start / self.config.boundary_alignment
                ..(range.end - 1) / self.config.boundary_alignment + 1,
            range,
        };
        let mut pieces: Vec<Option<Bytes>> = read
            .indexes
            .clone()
            .map(|index| self.cached_piece(&read, index))
            .collect();
        if using == CacheUse::Fill {
            self.fill_missing(&read, &mut pieces)?;
        }
        // What is still missing is read without being cached.
        self.fetch_missing(&read, &mut pieces, &|_| true, CacheUse::IfExists)?;
        let mut out = BytesMut::with_capacity((read.range.end - read.range.start) as usize);
        for piece in pieces {
            out.extend_from_slice(&piece.expect("every segment read"));
        }
        Ok(out.freeze())
    }

    /// Downloads and caches the missing segments no other reader is
    /// downloading, then waits for those others download and takes them
    /// from the cache. Downloads never wait, so two readers waiting on each
    /// other's segments cannot block each other.
    fn fill_missing(&self, read: &SegmentRead, pieces: &mut [Option<Bytes>]) -> Result<()> {
        let mut claims = Vec::new();
        let mut others = Vec::new();
        for (slot, index) in pieces.iter_mut().zip(read.indexes.clone()) {
            if slot.is_some() {
                continue;
            }
            let key = SegmentKey {
                object: Arc::clone(&read.object),
                index,
            };
            match self.claim(key) {
                // A download that ended between the lookup and the claim
                // left its segment cached.
                Ok(claim) => match self.cached_piece(read, index) {
                    Some(piece) => *slot = Some(piece),
                    None => claims.push(claim),
                },
                Err(download) => others.push((index, download)),
            }
        }
        let mine: HashSet<u64> = claims.iter().map(|claim| claim.key.index).collect();
        let claimed = |index: u64| mine.contains(&index);
        self.fetch_missing(read, pieces, &claimed, CacheUse::Fill)?;
        drop(claims);
        for (index, download) in others {
            download.wait();
            pieces[(index - read.indexes.start) as usize] = self.cached_piece(read, index);
        }
        Ok(())
    }

    /// Reads the missing segments `take` accepts, a request per run of
    /// adjacent ones, caching them as `using` says.
    fn fetch_missing(
        &self,
        read: &SegmentRead,
        pieces: &mut [Option<Bytes>],
        take: &dyn Fn(u64) -> bool,
        using: CacheUse,
    ) -> Result<()> {
        let wanted = |pieces: &[Option<Bytes>], i: usize| {
            pieces[i].is_none() && take(read.indexes.start + i as u64)
        };
        let mut first = 0;
        while first < pieces.len() {
            if !wanted(pieces, first) {
                first += 1;
                continue;
            }
            let mut end = first + 1;
            while end < pieces.len() && wanted(pieces, end) {
                end += 1;
            }
            let run = read.indexes.start + first as u64..read.indexes.start + end as u64;
            let fetched = self.fetch_run(read, run, using)?;
            for (slot, piece) in pieces[first..end].iter_mut().zip(fetched) {
                *slot = Some(piece);
            }
            first = end;
        }
        Ok(())
    }

    /// Claims the download of segment `key`, or gives the download another
    /// reader runs.
    fn claim(&self, key: SegmentKey) -> std::result::Result<Claim<'_>, Arc<Download>> {
        let mut downloading = self.downloading.lock();
        if let Some(download) = downloading.get(&key) {
            return Err(Arc::clone(download));
        }
        let download = Arc::new(Download::default());
        downloading.insert(key.clone(), Arc::clone(&download));
        Ok(Claim {
            cache: self,
            key,
            download,
        })
    }

    /// The part of the read's range in segment `index`, if the segment is
    /// cached and its file readable (a file gone missing is a miss).
    fn cached_piece(&self, read: &SegmentRead, index: u64) -> Option<Bytes> {
        let key = SegmentKey {
            object: Arc::clone(&read.object),
            index,
        };
        let segment = self.segments.get(&key)?;
        let whole = self.segment_range(index, read.size);
        let wanted = read.wanted(&whole);
        let offset = wanted.start - whole.start;
        match read_file_range(&segment.file, offset, wanted.end - wanted.start) {
            Ok(bytes) => {
                segment.hits.fetch_add(1, Ordering::Relaxed);
                events::add(Event::CachedReadBufferReadFromCacheHits, 1);
                events::add(
                    Event::CachedReadBufferReadFromCacheBytes,
                    bytes.len() as u64,
                );
                Some(bytes)
            }
            Err(error) => {
                log::warn!("Cache {}: {error}; reading from the source", self.name);
                self.segments.remove(&key);
                None
            }
        }
    }

    /// Segments `run` (none cached) from the source in one request: each
    /// one's part of the read's range. Filling fetches the whole segments
    /// and caches them.
    fn fetch_run(
        &self,
        read: &SegmentRead,
        run: Range<u64>,
        using: CacheUse,
    ) -> Result<Vec<Bytes>> {
        let span = self.segment_range(run.start, read.size).start
            ..self.segment_range(run.end - 1, read.size).end;
        let fetch = match using {
            CacheUse::Fill => span.clone(),
            _ => read.wanted(&span),
        };
        let bytes = read.source.read_range(&read.object, fetch.clone())?;
        events::add(
            Event::CachedReadBufferReadFromCacheMisses,
            run.end - run.start,
        );
        events::add(
            Event::CachedReadBufferReadFromSourceBytes,
            bytes.len() as u64,
        );
        let slice = |range: Range<u64>| {
            bytes.slice((range.start - fetch.start) as usize..(range.end - fetch.start) as usize)
        };
        let mut pieces = Vec::with_capacity((run.end - run.start) as usize);
        for index in run {
            let whole = self.segment_range(index, read.size);
            if using == CacheUse::Fill {
                self.keep(&read.object, index, &slice(whole.clone()));
            }
            pieces.push(slice(read.wanted(&whole)));
        }
        Ok(pieces)
    }

    /// Caches `bytes` as segment `index` of `object`. A cache that cannot
    /// write its file only logs: the read it serves has its bytes.
    fn keep(&self, object: &Arc<str>, index: u64, bytes: &[u8]) {
        if let Some(file) = self.write_segment_file(bytes) {
            events::add(Event::CachedReadBufferCacheWriteBytes, bytes.len() as u64);
            self.admit(object, index, file, bytes.len() as u64);
        }
    }

    /// A new file holding `bytes`, unless it is too large to cache or
    /// cannot be written.
    fn write_segment_file(&self, bytes: &[u8]) -> Option<PathBuf> {
        if !self.segment_fits(bytes.len() as u64) {
            return None;
        }
        let number = self.next_file.fetch_add(1, Ordering::Relaxed);
        let file = self.dir.join(segment_file_name(number));
        match File::create(&file).and_then(|mut f| f.write_all(bytes)) {
            Ok(()) => Some(file),
            Err(error) => {
                log::warn!(
                    "Cache {}: cannot write {}: {error}",
                    self.name,
                    file.display()
                );
                let _ = std::fs::remove_file(&file);
                None
            }
        }
    }

    fn admit(&self, object: &Arc<str>, index: u64, file: PathBuf, bytes: u64) {
        let segment = Arc::new(Segment {
            file,
            bytes,
            hits: AtomicU64::new(0),
        });
        let key = SegmentKey {
            object: Arc::clone(object),
            index,
        };
        self.segments.insert(key, segment, bytes as usize);
    }

    /// A writer's segments cached as the object `key` is uploaded.
    pub fn fill(self: &Arc<Self>, key: &str) -> CacheFill {
        CacheFill {
            cache: Arc::clone(self),
            object: Arc::from(key),
            buffer: Vec::new(),
            written: Vec::new(),
            stopped: false,
        }
    }
}

/// Caches an object as it is written (`cache_on_write_operations`): each
/// whole segment goes to a file as its bytes arrive, and the files enter
/// the index only when the object is stored ([`CacheFill::finish`]); an
/// upload that fails leaves none behind.
pub struct CacheFill {
    cache: Arc<FileCache>,
    object: Arc<str>,
    /// Bytes of the segment being filled.
    buffer: Vec<u8>,
    /// Files of the segments before it, with their bytes.
    written: Vec<(PathBuf, u64)>,
    /// A segment could not be kept: the rest of the object is not cached.
    stopped: bool,
}

impl CacheFill {
    pub fn write(&mut self, bytes: &[u8]) {
        let alignment = self.cache.config.boundary_alignment as usize;
        let mut rest = bytes;
        while !rest.is_empty() && !self.stopped {
            let take = (alignment - self.buffer.len()).min(rest.len());
            self.buffer.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.buffer.len() == alignment {
                self.write_buffer();
            }
        }
    }

    fn write_buffer(&mut self) {
        match self.cache.write_segment_file(&self.buffer) {
            Some(file) => {
                let bytes = self.buffer.len() as u64;
                events::add(Event::CachedWriteBufferCacheWriteBytes, bytes);
                self.written.push((file, bytes));
            }
            None => self.stopped = true,
        }
        self.buffer.clear();
    }

    /// The object is stored: its segments enter the cache.
    pub fn finish(mut self) {
        if !self.buffer.is_empty() && !self.stopped {
            self.write_buffer();
        }
        for (index, (file, bytes)) in std::mem::take(&mut self.written).into_iter().enumerate() {
            self.cache.admit(&self.object, index as u64, file, bytes);
        }
    }
}

impl Drop for CacheFill {
    fn drop(&mut self) {
        for (file, _) in &self.written {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// The name of the segment file numbered `number`.
fn segment_file_name(number: u64) -> String {
    format!("{number:016x}.bin")
}

/// Creates `dir` if missing and removes the segment files a previous
/// process left in it.
fn remove_old_segments(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().to_string();
        let is_segment = name
            .strip_suffix(".bin")
            .is_some_and(|stem| stem.len() == 16 && stem.bytes().all(|b| b.is_ascii_hexdigit()));
        if is_segment && entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

fn read_file_range(path: &Path, offset: u64, length: u64) -> std::io::Result<Bytes> {
    let mut file = File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = vec![0u8; length as usize];
    file.read_exact(&mut bytes)?;
    Ok(Bytes::from(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A local object disk holding one object of `bytes`, and a cache over
    /// it of `max_size` bytes in segments of 100 bytes.
    fn setup(dir: &Path, bytes: &[u8], max_size: u64) -> (Arc<ObjectDisk>, Arc<FileCache>) {
        let config = FileCacheConfig {
            disk: "objects".to_string(),
            path: dir.join("cache"),
            max_size,
            boundary_alignment: 100,
            cache_on_write_operations: true,
        };
        let cache = Arc::new(FileCache::open("cached", config, dir.join("cache")).unwrap());
        let store = Arc::new(ObjectDisk::local("objects", &dir.join("objects"), "i").unwrap());
        let disk = Arc::new(store.cached("cached", Arc::clone(&cache)));
        // Written without the cache, so the object starts uncached.
        let mut writer = store.writer("t/object".to_string());
        writer.write(bytes).unwrap();
        writer.finish().unwrap();
        (disk, cache)
    }

    fn data(length: usize) -> Vec<u8> {
        (0..length).map(|i| (i * 7 % 251) as u8).collect()
    }

    #[test]
    fn reads_across_segments_return_the_object_bytes_and_fill_whole_segments() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = data(1050);
        let (disk, cache) = setup(dir.path(), &bytes, 1 << 20);
        let size = bytes.len() as u64;
        let read = |range: Range<u64>, using| {
            disk.read_range_using("t/object", size, range, using)
                .unwrap()
        };
        assert_eq!(read(150..420, CacheUse::Fill), &bytes[150..420]);
        // Segments 1 to 4, whole.
        assert_eq!(cache.usage().0, 400);
        assert_eq!(cache.usage().1, 4);
        // The last segment is shorter; a read spanning cached and missing
        // segments joins both.
        assert_eq!(read(90..1050, CacheUse::Fill), &bytes[90..1050]);
        assert_eq!(cache.usage(), (1050, 11, 1 << 20));
        assert_eq!(read(0..1050, CacheUse::IfExists), &bytes[..]);
        let hits: u64 = cache.rows().iter().map(|row| row.hits).sum();
        assert!(hits >= 11, "{hits}");
        assert!(read(7..7, CacheUse::Fill).is_empty());
    }

    #[test]
    fn readers_missing_the_same_segments_download_each_once() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = data(2000);
        let (disk, cache) = setup(dir.path(), &bytes, 1 << 20);
        std::thread::scope(|scope| {
            for start in 0..8u64 {
                let (disk, bytes) = (&disk, &bytes);
                scope.spawn(move || {
                    let range = start * 50..2000;
                    let got = disk
                        .read_range_using("t/object", 2000, range.clone(), CacheUse::Fill)
                        .unwrap();
                    assert_eq!(got, &bytes[range.start as usize..]);
                });
            }
        });
        assert_eq!(cache.usage().1, 20);
        assert_eq!(
            cache.next_file.load(Ordering::Relaxed),
            20,
            "no segment written twice"
        );
    }

    #[test]
    fn opening_removes_old_segment_files_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = dir.path().join("cache");
        std::fs::create_dir_all(&cache_dir).unwrap();
        std::fs::write(cache_dir.join(segment_file_name(7)), b"old").unwrap();
        std::fs::write(cache_dir.join("notes.txt"), b"keep").unwrap();
        let (_, cache) = setup(dir.path(), &data(10), 1 << 20);
        assert!(!cache_dir.join(segment_file_name(7)).exists());
        assert!(cache_dir.join("notes.txt").exists());
        assert_eq!(cache.usage().1, 0);
    }

    #[test]
    fn a_range_past_the_object_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (disk, _) = setup(dir.path(), &data(300), 1 << 20);
        let error = disk
            .read_range_using("t/object", 300, 250..450, CacheUse::Fill)
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::CORRUPTED_DATA, "{error}");
    }

    #[test]
    fn reading_if_cached_otherwise_bypassing_fills_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = data(500);
        let (disk, cache) = setup(dir.path(), &bytes, 1 << 20);
        let got = disk
            .read_range_using("t/object", 500, 120..330, CacheUse::IfExists)
            .unwrap();
        assert_eq!(got, &bytes[120..330]);
        let got = disk
            .read_range_using("t/object", 500, 0..500, CacheUse::Bypass)
            .unwrap();
        assert_eq!(got, &bytes[..]);
        assert_eq!(cache.usage().1, 0);
    }

    #[test]
    fn a_segment_file_gone_missing_is_read_again_from_the_source() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = data(300);
        let (disk, cache) = setup(dir.path(), &bytes, 1 << 20);
        disk.read_range_using("t/object", 300, 0..300, CacheUse::Fill)
            .unwrap();
        for row in cache.rows() {
            std::fs::remove_file(&row.file).unwrap();
        }
        let got = disk
            .read_range_using("t/object", 300, 0..300, CacheUse::Fill)
            .unwrap();
        assert_eq!(got, &bytes[..]);
        assert!(cache.rows().iter().all(|row| row.file.exists()));
    }

    #[test]
    fn writes_fill_the_cache_only_once_the_object_is_stored() {
        let dir = tempfile::tempdir().unwrap();
        let (disk, cache) = setup(dir.path(), &data(10), 1 << 20);
        let bytes = data(250);
        let mut writer = disk.writer("t/written".to_string());
        writer.write(&bytes[..120]).unwrap();
        writer.write(&bytes[120..]).unwrap();
        assert_eq!(
            cache.usage().1,
            0,
            "nothing enters before the object is stored"
        );
        writer.finish().unwrap();
        assert_eq!(cache.usage(), (250, 3, 1 << 20));
        let got = disk
            .read_range_using("t/written", 250, 0..250, CacheUse::Fill)
            .unwrap();
        assert_eq!(got, &bytes[..]);
        // An abandoned upload leaves no segment file behind.
        let mut writer = disk.writer("t/abandoned".to_string());
        writer.write(&data(350)).unwrap();
        drop(writer);
        let files = std::fs::read_dir(cache.dir()).unwrap().count();
        assert_eq!(files, 3);
    }

    #[test]
    fn shrinking_and_dropping_remove_segment_files() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = data(100 * 64);
        let (disk, cache) = setup(dir.path(), &bytes, 64 * 100);
        // Sixteen shards of 400 bytes: each keeps up to four segments.
        disk.read_range_using("t/object", 6400, 0..6400, CacheUse::Fill)
            .unwrap();
        assert!(cache.usage().0 <= 6400);
        let files = || std::fs::read_dir(cache.dir()).unwrap().count() as u64;
        assert_eq!(files(), cache.usage().1);
        cache.resize(1600);
        assert!(cache.usage().0 <= 1600, "{:?}", cache.usage());
        assert_eq!(files(), cache.usage().1);
        cache.clear();
        assert_eq!((cache.usage().0, files()), (0, 0));
    }
}
