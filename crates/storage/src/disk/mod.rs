//! Disks: where a part's column data lives.
//!
//! Every part's directory is under its table's directory on the local data
//! path. On the `default` disk it holds all the part's files. On any other
//! disk (S3, or a local directory elsewhere) the column data files
//! (`*.bin`) are objects in that disk's store, written once under a random
//! key, and the part directory keeps a small reference file in each one's
//! place (see [`object_ref`]) plus `disk.txt` naming the disk; marks, the
//! primary index and the other small files stay local, so pruning and
//! planning never wait on the network.
//!
//! A part is committed by renaming its local directory, as on the default
//! disk. Parts share objects only through hard links of their reference
//! files (a mutation's new part links what it does not change), so the
//! link count says when a removed part held the last reference and its
//! object can go. A crash leaves at worst objects no reference names,
//! which [`Disk::sweep`] removes when the table opens. Each table's
//! objects are under its own key prefix (see [`ObjectDisk::new_key`]).

pub mod config;
pub mod file_cache;
pub mod object_ref;
mod object_store_disk;
mod requests;
mod runtime;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_common::error::{ErrorCode, Result, StrataError};

pub use config::{DiskConfig, DiskType, PolicyConfig, StorageConfiguration, VolumeConfig};
pub use object_store_disk::{ObjectDisk, ObjectReader, ObjectWriter, StoredObject};

/// The disk every table uses unless its policy says otherwise.
pub const DEFAULT_DISK: &str = "default";
/// The policy of a table without `storage_policy` or `disk`.
pub const DEFAULT_POLICY: &str = "default";
/// Names the disk of a part whose column data is not in its directory.
pub const DISK_FILE: &str = "disk.txt";
/// Under `<data path>/disks/`: the name of this data path's objects.
const INSTANCE_FILE: &str = "instance.txt";

/// One disk: the local data path, or an object store.
#[derive(Debug)]
pub struct Disk {
    pub name: String,
    /// The local directory: the data path, the local disk's directory, or
    /// where an S3 disk's metadata would live (`system.disks.path`).
    pub path: PathBuf,
    /// `None` for the default disk, whose files are in the part directories.
    pub objects: Option<Arc<ObjectDisk>>,
    /// The disks whose parts keep objects in this one's store, itself
    /// included: a `cache` disk and the disk it caches. A sweep counts the
    /// references of all of them.
    pub sharing: Vec<String>,
}

impl Disk {
    pub fn is_remote(&self) -> bool {
        self.objects
            .as_ref()
            .is_some_and(|objects| objects.is_remote())
    }

    /// `system.disks.type`: ClickHouse's names.
    pub fn type_name(&self) -> &'static str {
        match &self.objects {
            Some(objects) if objects.is_remote() => "ObjectStorage",
            _ => "Local",
        }
    }

    /// Free and total bytes of the file system under `path`; an object
    /// store has no limit ClickHouse can see and shows the largest value.
    pub fn space(&self) -> (u64, u64) {
        if self.is_remote() {
            return (u64::MAX, u64::MAX);
        }
        file_system_space(&self.path).unwrap_or((0, 0))
    }

    /// Where column data of a part on this disk is: in the part directory
    /// (`None`) or behind reference files in a store.
    pub fn object_store(&self) -> Option<&Arc<ObjectDisk>> {
        self.objects.as_ref()
    }

    /// Removes this disk's objects of the table in `table_dir` that no
    /// part there references; returns how many. Run when the table opens,
    /// before anything writes to it.
    pub fn sweep(&self, table_dir: &Path) -> Result<u64> {
        let Some(objects) = &self.objects else {
            return Ok(0);
        };
        objects.sweep(table_dir, || references_under(table_dir, &self.sharing))
    }
}

fn file_system_space(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::ffi::OsStrExt;
    let text = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `text` is a valid C string and `stats` a writable statvfs.
    if unsafe { libc::statvfs(text.as_ptr(), &mut stats) } != 0 {
        return None;
    }
    let block = stats.f_frsize as u64;
    Some((stats.f_bavail as u64 * block, stats.f_blocks as u64 * block))
}

/// The data path's own name inside shared disks, made at first use.
fn instance_id(data_path: &Path) -> Result<String> {
    let file = data_path.join("disks").join(INSTANCE_FILE);
    if let Ok(text) = std::fs::read_to_string(&file) {
        return Ok(text.trim().to_string());
    }
    let id = uuid::Uuid::new_v4().to_string();
    let temporary = file.with_extension("tmp");
    let written = std::fs::create_dir_all(data_path.join("disks"))
        .and_then(|_| std::fs::write(&temporary, &id))
        .and_then(|_| std::fs::File::open(&temporary)?.sync_all())
        .and_then(|_| std::fs::rename(&temporary, &file));
    written.map_err(|e| {
        StrataError::new(
            ErrorCode::CANNOT_WRITE_TO_FILE_DESCRIPTOR,
            format!("Cannot write {}: {e}", file.display()),
        )
    })?;
    Ok(id)
}

/// Keys the parts under `root` on disks `disks` reference, found by
/// walking every directory (parts, `detached`, unfinished `tmp_` parts).
fn references_under(root: &Path, disks: &[String]) -> Result<HashSet<String>> {
    let mut keys = HashSet::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
        let on_disk = std::fs::read_to_string(dir.join(DISK_FILE))
            .is_ok_and(|text| disks.iter().any(|disk| text.trim() == disk));
        if !on_disk {
            continue;
        }
        let unfinished = dir.file_name().is_some_and(|n| {
            n.to_string_lossy()
                .starts_with(crate::part::TEMPORARY_PREFIX)
        });
        for file in files {
            if !file.to_string_lossy().ends_with(crate::part::DATA_SUFFIX) {
                continue;
            }
            match object_ref::ObjectRef::read(&file) {
                Ok(reference) => {
                    keys.insert(reference.key);
                }
                // A reference being written names an object not yet uploaded,
                // so not listed before this walk began.
                Err(_) if unfinished => {}
                Err(error) => return Err(error),
            }
        }
    }
    Ok(keys)
}

/// Gives each disk the names of the disks whose objects are in the same
/// store, by `owners` (the disk owning each one's store).
fn share_stores(disks: &mut BTreeMap<String, Disk>, owners: &BTreeMap<String, String>) {
    for (name, disk) in disks.iter_mut() {
        let owner = owners.get(name).unwrap_or(name);
        disk.sharing = owners
            .iter()
            .filter(|(_, other)| *other == owner)
            .map(|(sharing, _)| sharing.clone())
            .collect();
        if disk.sharing.is_empty() {
            disk.sharing.push(name.clone());
        }
    }
}

/// A volume of a storage policy: disks new parts go to, in order.
#[derive(Debug)]
pub struct Volume {
    pub name: String,
    pub disks: Vec<Arc<Disk>>,
    /// Parts larger than this go to the next volume; 0 for no limit.
    pub max_data_part_size_bytes: u64,
    pub prefer_not_to_merge: bool,
}

/// A storage policy: volumes in order of preference.
#[derive(Debug)]
pub struct StoragePolicy {
    pub name: String,
    pub volumes: Vec<Volume>,
    /// Share of the first volume's space that, when free space falls below
    /// it, moves parts to the next volume.
    pub move_factor: f64,
}

impl PartialEq for StoragePolicy {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for StoragePolicy {}

impl StoragePolicy {
    /// The default policy of a table whose engine was given no disks: the
    /// default disk only, its parts all in their directories.
    pub fn local_default() -> StoragePolicy {
        let mut policy = StoragePolicy::single(Arc::new(Disk {
            name: DEFAULT_DISK.to_string(),
            path: PathBuf::new(),
            objects: None,
            sharing: vec![DEFAULT_DISK.to_string()],
        }));
        policy.name = DEFAULT_POLICY.to_string();
        policy.volumes[0].name = DEFAULT_DISK.to_string();
        policy
    }

    /// The policy of one disk: what `SETTINGS disk = 'name'` means.
    pub fn single(disk: Arc<Disk>) -> StoragePolicy {
        StoragePolicy {
            name: format!("__{}", disk.name),
            volumes: vec![Volume {
                name: format!("_volume_{}", disk.name),
                disks: vec![disk],
                max_data_part_size_bytes: 0,
                prefer_not_to_merge: false,
            }],
            move_factor: 0.0,
        }
    }

    /// The disk a new part of about `bytes` goes to: the first disk of the
    /// first volume whose size limit admits it, the last volume otherwise.
    pub fn disk_for(&self, bytes: u64) -> &Arc<Disk> {
        let fits = |volume: &&Volume| {
            volume.max_data_part_size_bytes == 0 || bytes <= volume.max_data_part_size_bytes
        };
        let volume = self
            .volumes
            .iter()
            .find(fits)
            .or_else(|| self.volumes.last())
            .expect("a policy has a volume");
        &volume.disks[0]
    }

    /// The policy's disk named `name`.
    pub fn disk(&self, name: &str) -> Option<&Arc<Disk>> {
        self.disks().find(|disk| disk.name == name)
    }

    pub fn disks(&self) -> impl Iterator<Item = &Arc<Disk>> {
        self.volumes.iter().flat_map(|volume| volume.disks.iter())
    }

    /// The volume named `name`.
    pub fn volume(&self, name: &str) -> Option<&Volume> {
        self.volumes.iter().find(|volume| volume.name == name)
    }
}

/// The process's disks and storage policies, from the configuration, and
/// the disks tables defined in their settings (`disk = disk(...)`).
#[derive(Debug)]
pub struct Disks {
    disks: BTreeMap<String, Arc<Disk>>,
    policies: BTreeMap<String, Arc<StoragePolicy>>,
    data_path: PathBuf,
    /// Disks made from tables' definitions, by name, built at first use.
    custom: parking_lot::Mutex<BTreeMap<String, Arc<Disk>>>,
}

impl Disks {
    /// The disks and policies `config` describes, with the default disk
    /// and policy added unless it redefines them.
    pub fn from_config(data_path: &Path, config: &StorageConfiguration) -> Result<Disks> {
        let mut built = BTreeMap::new();
        built.insert(
            DEFAULT_DISK.to_string(),
            Disk {
                name: DEFAULT_DISK.to_string(),
                path: data_path.to_path_buf(),
                objects: None,
                sharing: vec![DEFAULT_DISK.to_string()],
            },
        );
        let instance = if config.disks.is_empty() {
            String::new()
        } else {
            instance_id(data_path)?
        };
        // The disk whose store each disk's objects are in.
        let mut owners: BTreeMap<String, String> = BTreeMap::new();
        for disk in &config.disks {
            let owner = match &disk.kind {
                DiskType::Cache(cache) => owners.get(&cache.disk).cloned(),
                _ => None,
            };
            owners.insert(
                disk.name.clone(),
                owner.unwrap_or_else(|| disk.name.clone()),
            );
            let inner = match &disk.kind {
                DiskType::Cache(cache) => built.get(&cache.disk),
                _ => None,
            };
            let made = config::build_disk(disk, data_path, &instance, inner)?;
            built.insert(disk.name.clone(), made);
        }
        share_stores(&mut built, &owners);
        let disks: BTreeMap<String, Arc<Disk>> = built
            .into_iter()
            .map(|(name, disk)| (name, Arc::new(disk)))
            .collect();
        let mut policies = BTreeMap::new();
        let default_disk = Arc::clone(&disks[DEFAULT_DISK]);
        let mut default_policy = StoragePolicy::single(default_disk);
        default_policy.name = DEFAULT_POLICY.to_string();
        default_policy.volumes[0].name = DEFAULT_DISK.to_string();
        policies.insert(DEFAULT_POLICY.to_string(), Arc::new(default_policy));
        for policy in &config.policies {
            let built = config::build_policy(policy, &disks)?;
            policies.insert(policy.name.clone(), Arc::new(built));
        }
        Ok(Disks {
            disks,
            policies,
            data_path: data_path.to_path_buf(),
            custom: parking_lot::Mutex::default(),
        })
    }

    /// The configured or table-defined disk `name`.
    pub fn disk(&self, name: &str) -> Result<Arc<Disk>> {
        let found = self.disks.get(name).cloned();
        found
            .or_else(|| self.custom.lock().get(name).cloned())
            .ok_or_else(|| {
                StrataError::new(ErrorCode::UNKNOWN_DISK, format!("Unknown disk {name}"))
            })
    }

    /// The disk a table's settings define, built the first time its name is
    /// seen and shared after; a `cache` one wraps a configured or defined
    /// disk.
    pub fn custom(&self, config: DiskConfig) -> Result<Arc<Disk>> {
        if self.disks.contains_key(&config.name) {
            return Err(StrataError::new(
                ErrorCode::BAD_ARGUMENTS,
                format!(
                    "Disk {} is configured; a table's disk definition cannot redefine it",
                    config.name
                ),
            ));
        }
        let inner = match &config.kind {
            DiskType::Cache(cache) => Some(self.disk(&cache.disk)?),
            _ => None,
        };
        let mut custom = self.custom.lock();
        if let Some(disk) = custom.get(&config.name) {
            return Ok(Arc::clone(disk));
        }
        let instance = instance_id(&self.data_path)?;
        let mut disk = config::build_disk(&config, &self.data_path, &instance, inner.as_deref())?;
        if let Some(inner) = &inner {
            disk.sharing = [inner.sharing.clone(), vec![config.name.clone()]].concat();
        }
        let disk = Arc::new(disk);
        custom.insert(config.name, Arc::clone(&disk));
        Ok(disk)
    }

    pub fn policy(&self, name: &str) -> Result<&Arc<StoragePolicy>> {
        self.policies.get(name).ok_or_else(|| {
            StrataError::new(
                ErrorCode::UNKNOWN_POLICY,
                format!("Unknown storage policy `{name}`"),
            )
        })
    }

    /// Configured disks, then those tables defined.
    pub fn all(&self) -> Vec<Arc<Disk>> {
        let custom = self.custom.lock();
        self.disks
            .values()
            .chain(custom.values())
            .cloned()
            .collect()
    }

    pub fn policies(&self) -> impl Iterator<Item = &Arc<StoragePolicy>> {
        self.policies.values()
    }
}
