//! Files for DataFusion's own spilling operators (the external sort, and its
//! hash aggregation where Strata keeps it).
//!
//! They write sorted runs straight to disk through DataFusion's disk manager;
//! this factory makes those files Strata's: under the temporary directories,
//! round-robin, in `strata-spill-<pid>-<n>` directories that start-up sweeps
//! like the store's, removed with their last reference, counted in the
//! query's disk figures and held to its disk limit together with the stores.
//! Runs go straight to disk, past the warm tier: the sort writes one when its
//! memory is full, and reads each back once, in order.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use bytes::Bytes;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::{SpillFile, SpillWriter, TempFileFactory};
use futures::Stream;
use strata_common::{ErrorCode, StrataError};

use super::{DIRECTORY_PREFIX, SpillConfig, next_directory_number, process_tiers};

/// Bytes read from a run per step of its stream.
const READ_CHUNK: usize = 1 << 20;

pub struct RunFileFactory {
    config: Arc<SpillConfig>,
    next_directory: AtomicUsize,
}

impl RunFileFactory {
    pub fn new(config: Arc<SpillConfig>) -> Self {
        assert!(!config.directories.is_empty(), "spill needs a directory");
        RunFileFactory {
            config,
            next_directory: AtomicUsize::new(0),
        }
    }
}

impl TempFileFactory for RunFileFactory {
    fn create_temp_file(&self, _description: &str) -> Result<Arc<dyn SpillFile>> {
        let directories = &self.config.directories;
        let root =
            &directories[self.next_directory.fetch_add(1, Ordering::Relaxed) % directories.len()];
        let directory = root.join(format!(
            "{DIRECTORY_PREFIX}{}-{}",
            std::process::id(),
            next_directory_number()
        ));
        std::fs::create_dir_all(&directory).map_err(|e| io_error("create a directory for", e))?;
        let path = directory.join("run.arrow");
        File::create_new(&path).map_err(|e| io_error("create a file for", e))?;
        process_tiers().disk_files.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::new(RunFile {
            config: Arc::clone(&self.config),
            directory,
            path,
            len: Arc::new(AtomicU64::new(0)),
        }))
    }
}

struct RunFile {
    config: Arc<SpillConfig>,
    directory: PathBuf,
    path: PathBuf,
    /// Shared with its writer.
    len: Arc<AtomicU64>,
}

impl SpillFile for RunFile {
    fn path(&self) -> Option<&Path> {
        Some(&self.path)
    }

    fn size(&self) -> Option<u64> {
        Some(self.len.load(Ordering::Relaxed))
    }

    fn read_stream(&self) -> Result<Pin<Box<dyn Stream<Item = Result<Bytes>> + Send>>> {
        let file = File::open(&self.path).map_err(|e| io_error("open", e))?;
        let config = Arc::clone(&self.config);
        Ok(Box::pin(futures::stream::try_unfold(
            file,
            move |mut file| {
                let config = Arc::clone(&config);
                async move {
                    let (file, chunk) = tokio::task::spawn_blocking(move || {
                        let mut chunk = Vec::with_capacity(READ_CHUNK);
                        (&mut file)
                            .take(READ_CHUNK as u64)
                            .read_to_end(&mut chunk)
                            .map_err(|e| io_error("read", e))?;
                        Ok::<_, DataFusionError>((file, chunk))
                    })
                    .await
                    .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
                    if chunk.is_empty() {
                        return Ok(None);
                    }
                    config
                        .counters
                        .disk_bytes_read
                        .fetch_add(chunk.len() as u64, Ordering::Relaxed);
                    Ok(Some((Bytes::from(chunk), file)))
                }
            },
        )))
    }

    fn open_writer(&self) -> Result<Box<dyn SpillWriter>> {
        let file = File::options()
            .append(true)
            .open(&self.path)
            .map_err(|e| io_error("open", e))?;
        Ok(Box::new(RunWriter {
            file,
            config: Arc::clone(&self.config),
            len: Arc::clone(&self.len),
        }))
    }
}

impl Drop for RunFile {
    fn drop(&mut self) {
        let len = self.len.load(Ordering::Relaxed);
        self.config
            .counters
            .disk_bytes_live
            .fetch_sub(len, Ordering::Relaxed);
        let tiers = process_tiers();
        tiers.disk_bytes.fetch_sub(len, Ordering::Relaxed);
        tiers.disk_files.fetch_sub(1, Ordering::Relaxed);
        // A file that cannot be removed now goes at the next start.
        let _ = std::fs::remove_dir_all(&self.directory);
    }
}

struct RunWriter {
    file: File,
    config: Arc<SpillConfig>,
    len: Arc<AtomicU64>,
}

impl Write for RunWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let len = buf.len() as u64;
        let counters = &self.config.counters;
        let live = counters.disk_bytes_live.fetch_add(len, Ordering::Relaxed) + len;
        let limit = self.config.max_disk_bytes;
        if limit > 0 && live > limit {
            counters.disk_bytes_live.fetch_sub(len, Ordering::Relaxed);
            return Err(std::io::Error::other(StrataError::new(
                ErrorCode::TOO_MANY_ROWS_OR_BYTES,
                format!(
                    "Limit for temporary data on disk for the query exceeded: {live} bytes, maximum {limit} (max_temporary_data_on_disk_size_for_query)"
                ),
            )));
        }
        if let Err(error) = self.file.write_all(buf) {
            counters.disk_bytes_live.fetch_sub(len, Ordering::Relaxed);
            return Err(error);
        }
        self.len.fetch_add(len, Ordering::Relaxed);
        counters
            .disk_bytes_written
            .fetch_add(len, Ordering::Relaxed);
        process_tiers().disk_bytes.fetch_add(len, Ordering::Relaxed);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl SpillWriter for RunWriter {
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

fn io_error(what: &str, error: std::io::Error) -> DataFusionError {
    DataFusionError::External(Box::new(StrataError::new(
        ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR,
        format!("Cannot {what} a temporary file: {error}"),
    )))
}
