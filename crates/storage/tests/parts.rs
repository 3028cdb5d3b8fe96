//! Parts written and read back: every type, granule ranges, the primary
//! index, sizes, and damage reported as errors.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, DictionaryArray,
    FixedSizeBinaryArray, Float64Array, Int64Array, ListArray, RecordBatch, StringArray,
    TimestampSecondArray, UInt8Array,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Int32Type, Int64Type, Schema};
use strata_common::error::ErrorCode;
use strata_storage::compression::{Codec, CodecChain};
use strata_storage::disk::{Disk, ObjectDisk, StoragePolicy};
use strata_storage::part::name::PartName;
use strata_storage::part::reader::Part;
use strata_storage::part::remove_part_directory;
use strata_storage::part::writer::{PartLayout, write_part};

const ROWS: usize = 20_000;

fn sample() -> RecordBatch {
    let n = ROWS as i64;
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(0..n)),
        Arc::new(StringArray::from_iter_values((0..n).map(|i| i.to_string()))),
        Arc::new(UInt8Array::from_iter(
            (0..n).map(|i| (i % 5 != 0).then_some(i as u8)),
        )),
        Arc::new(Float64Array::from_iter_values(
            (0..n).map(|i| i as f64 / 3.0),
        )),
        Arc::new(Date32Array::from_iter_values(
            (0..n).map(|i| (i / 1000) as i32),
        )),
        Arc::new(TimestampSecondArray::from_iter_values(0..n).with_timezone("UTC")),
        Arc::new(
            Decimal128Array::from_iter_values((0..n).map(i128::from))
                .with_precision_and_scale(18, 2)
                .unwrap(),
        ),
        Arc::new(BooleanArray::from_iter((0..n).map(|i| Some(i % 3 == 0)))),
        Arc::new(
            FixedSizeBinaryArray::try_from_iter((0..n).map(|i| (i as u32).to_le_bytes())).unwrap(),
        ),
        Arc::new(
            (0..n)
                .map(|i| ["red", "green", "blue"][(i % 3) as usize])
                .collect::<DictionaryArray<Int32Type>>(),
        ),
        Arc::new(ListArray::from_iter_primitive::<Int64Type, _, _>(
            (0..n).map(|i| Some((0..i % 4).map(Some).collect::<Vec<_>>())),
        )),
    ];
    let fields: Vec<Field> = [
        "A", "S", "maybe", "f", "d", "t", "dec", "b", "fixed", "color", "list",
    ]
    .iter()
    .zip(&columns)
    .map(|(name, c)| Field::new(*name, c.data_type().clone(), c.null_count() > 0))
    .collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

fn write(dir: &std::path::Path, batch: &RecordBatch, codec: impl Into<CodecChain>) -> Part {
    let name = write_on(dir, batch, codec.into(), None);
    Part::open(&dir.join(name.to_string()), None).unwrap()
}

/// Writes `batch` as part `all_1_1_0` under `dir`, its column data on `disk`.
fn write_on(
    dir: &std::path::Path,
    batch: &RecordBatch,
    codec: CodecChain,
    disk: Option<&Arc<Disk>>,
) -> PartName {
    let name = PartName::inserted("all", 1);
    let codecs = vec![codec; batch.num_columns()];
    write_part(
        dir,
        &name,
        batch,
        &PartLayout {
            codecs: &codecs,
            primary_key: &[Arc::clone(batch.column(0))],
            granularity: 8192,
            partition: "tuple()",
            minmax_columns: &[4],
            index_files: &[],
        },
        disk,
    )
    .unwrap();
    name
}

#[test]
fn every_column_reads_back_whole_and_by_granule() {
    for chain in [
        CodecChain::from(Codec::Lz4),
        // Transformations apply to the fixed-width columns, NULLs or not;
        // the others are only compressed.
        CodecChain::parse("Delta, ZSTD", "Int64").unwrap(),
        CodecChain::parse("DoubleDelta", "Int64").unwrap(),
        CodecChain::parse("T64, LZ4HC", "Int64").unwrap(),
    ] {
        every_column_reads_back_with(chain);
    }
}

fn every_column_reads_back_with(chain: CodecChain) {
    let dir = tempfile::tempdir().unwrap();
    let batch = sample();
    let part = write(dir.path(), &batch, chain);
    assert_eq!(part.rows, ROWS as u64);
    assert_eq!(part.granules, [8192, 8192, 3616]);
    assert_eq!(part.columns.len(), batch.num_columns());
    part.verify_checksums().unwrap();
    for (index, field) in batch.schema().fields().iter().enumerate() {
        // A dictionary reads back as the plain strings of LowCardinality(String).
        let read_as = part.column(field.name()).unwrap().data_type();
        assert_eq!(
            read_as == field.data_type(),
            field.name() != "color",
            "{read_as} for {field}"
        );
        let expected = cast(batch.column(index), read_as).unwrap();
        let whole = part.read_column(field.name(), 0..3).unwrap();
        assert_eq!(whole.as_ref(), expected.as_ref(), "{}", field.name());
        let middle = part.read_column(field.name(), 1..2).unwrap();
        assert_eq!(
            middle.as_ref(),
            expected.slice(8192, 8192).as_ref(),
            "{}",
            field.name()
        );
    }
    let index = part.primary_index(&[DataType::Int64]).unwrap();
    assert_eq!(
        index[0].as_ref(),
        &Int64Array::from(vec![0, 8192, 16384, 19999]) as &dyn Array
    );
    // The partition key's column keeps its bounds; others keep none.
    assert_eq!(
        part.minmax("d").unwrap().unwrap().as_ref(),
        &Date32Array::from(vec![0, 19]) as &dyn Array
    );
    assert!(part.minmax("A").unwrap().is_none());
    assert_eq!(part.partition().unwrap(), "tuple()");
    let sizes = part.column_sizes().unwrap();
    assert_eq!(sizes.len(), batch.num_columns());
    let (name, a) = &sizes[0];
    assert_eq!(name, "A");
    // A's values (0 to 19,999) are stored in 2 bytes each, not Int64's 8.
    assert!(
        (2 * ROWS as u64..3 * ROWS as u64).contains(&a.uncompressed),
        "{a:?}"
    );
    let data_file = std::fs::metadata(part.dir.join("A.bin")).unwrap().len();
    assert_eq!(a.compressed, data_file);
    assert!(a.on_disk > a.compressed);
    // No temporary directory is left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["all_1_1_0"]);
}

#[test]
fn codecs_trade_size_for_speed_and_none_stores_raw() {
    let batch = sample();
    let mut sizes = Vec::new();
    for codec in [Codec::None, Codec::Lz4, Codec::Zstd(3)] {
        let dir = tempfile::tempdir().unwrap();
        let part = write(dir.path(), &batch, codec);
        let a = part.read_column("A", 0..3).unwrap();
        assert_eq!(a.as_ref(), batch.column(0).as_ref());
        sizes.push(part.bytes_on_disk());
    }
    assert!(sizes[1] < sizes[0] && sizes[2] < sizes[1], "{sizes:?}");
}

#[test]
fn damage_is_an_error_not_wrong_rows() {
    let dir = tempfile::tempdir().unwrap();
    let part = write(dir.path(), &sample(), Codec::Lz4);
    let data = part.dir.join("S.bin");
    let mut bytes = std::fs::read(&data).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    std::fs::write(&data, &bytes).unwrap();
    let error = part.read_column("S", 0..3).unwrap_err();
    assert!(
        matches!(
            error.code,
            ErrorCode::CHECKSUM_DOESNT_MATCH | ErrorCode::CORRUPTED_DATA
        ),
        "{error:?}"
    );
    // The error names the file and the offset of the block at fault.
    assert!(
        error.message.contains("S.bin") && error.message.contains("at offset"),
        "{error}"
    );
    assert_eq!(
        part.verify_checksums().unwrap_err().code,
        ErrorCode::CHECKSUM_DOESNT_MATCH
    );
    // A truncated file no longer matches its listed size.
    std::fs::write(&data, &bytes[..middle]).unwrap();
    assert_eq!(
        Part::open(&part.dir, None).unwrap_err().code,
        ErrorCode::CORRUPTED_DATA
    );
    std::fs::remove_file(&data).unwrap();
    assert_eq!(
        Part::open(&part.dir, None).unwrap_err().code,
        ErrorCode::NO_FILE_IN_DATA_PART
    );
}

#[test]
fn an_existing_part_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let batch = sample();
    write(dir.path(), &batch, Codec::Lz4);
    let codecs = vec![CodecChain::from(Codec::Lz4); batch.num_columns()];
    let error = write_part(
        dir.path(),
        &PartName::inserted("all", 1),
        &batch,
        &PartLayout {
            codecs: &codecs,
            primary_key: &[Arc::clone(batch.column(0))],
            granularity: 8192,
            partition: "tuple()",
            minmax_columns: &[4],
            index_files: &[],
        },
        None,
    )
    .unwrap_err();
    assert_eq!(error.code, ErrorCode::DIRECTORY_ALREADY_EXISTS);
}

/// A disk whose objects are files under `path`, as an S3 disk's are keys.
fn object_disk(path: &std::path::Path) -> Arc<Disk> {
    Arc::new(Disk {
        name: "objects".to_string(),
        path: path.to_path_buf(),
        objects: Some(Arc::new(
            ObjectDisk::local("objects", path, "instance").unwrap(),
        )),
        sharing: vec!["objects".to_string()],
    })
}

fn files_under(dir: &std::path::Path) -> usize {
    walk(dir).len()
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn a_part_on_an_object_disk_reads_back_as_on_the_default_disk() {
    let tables = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let disk = object_disk(store.path());
    let policy = StoragePolicy::single(Arc::clone(&disk));
    let batch = sample();
    let local = write(&tables.path().join("local"), &batch, Codec::Lz4);
    let table_dir = tables.path().join("remote");
    let name = write_on(&table_dir, &batch, Codec::Lz4.into(), Some(&disk));
    let dir = table_dir.join(name.to_string());
    // One object per column, under the table's own prefix.
    let objects = walk(store.path());
    assert_eq!(objects.len(), batch.num_columns());
    assert!(
        objects
            .iter()
            .all(|o| o.to_string_lossy().contains("instance/remote/"))
    );
    assert_eq!(
        Part::open(&dir, None).unwrap_err().code,
        ErrorCode::UNKNOWN_DISK,
        "a part on a disk the policy lacks"
    );
    let remote = Part::open(&dir, Some(&policy)).unwrap();
    assert_eq!(remote.disk_name(), "objects");
    assert_eq!(remote.bytes_on_disk(), local.bytes_on_disk());
    for field in &local.columns {
        let granules = 1..local.granules.len();
        assert_eq!(
            remote
                .read_column(field.name(), granules.clone())
                .unwrap()
                .as_ref(),
            local.read_column(field.name(), granules).unwrap().as_ref(),
            "{}",
            field.name()
        );
    }
    remote.verify_checksums().unwrap();
    drop(remote);
    remove_part_directory(&dir, disk.object_store().map(AsRef::as_ref)).unwrap();
    assert!(!dir.exists());
    assert_eq!(
        files_under(store.path()),
        0,
        "the objects went with the part"
    );
}

#[test]
fn a_sweep_removes_only_objects_no_part_references() {
    let tables = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let disk = object_disk(store.path());
    let table_dir = tables.path().join("table");
    write_on(&table_dir, &sample(), Codec::Lz4.into(), Some(&disk));
    let referenced = files_under(store.path());
    let prefix = store.path().join("instance").join("table");
    std::fs::write(prefix.join("orphan"), b"x").unwrap();
    assert_eq!(disk.sweep(&table_dir).unwrap(), 1);
    assert_eq!(files_under(store.path()), referenced);
    assert_eq!(disk.sweep(&table_dir).unwrap(), 0);
}
