//! A record batch as the bytes of one spill block: Arrow IPC, uncompressed
//! (the store compresses), so a block reads back without any schema kept
//! beside it.

use std::io::Cursor;

use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::common::{Result, internal_err};

pub fn encode_batch(batch: &RecordBatch) -> Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(batch.get_array_memory_size() + 1024);
    let mut writer = StreamWriter::try_new(&mut bytes, &batch.schema())?;
    writer.write(batch)?;
    writer.finish()?;
    drop(writer);
    Ok(bytes)
}

pub fn decode_batch(bytes: Vec<u8>) -> Result<RecordBatch> {
    let mut reader = StreamReader::try_new(Cursor::new(bytes), None)?;
    match reader.next() {
        Some(batch) => Ok(batch?),
        None => internal_err!("a spill block holds no batch"),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::arrow::array::{ArrayRef, StringArray, UInt64Array};

    use super::*;

    #[test]
    fn a_batch_reads_back_equal() {
        let batch = RecordBatch::try_from_iter([
            ("n", Arc::new(UInt64Array::from(vec![1, 2, 3])) as ArrayRef),
            (
                "s",
                Arc::new(StringArray::from(vec![Some("a"), None, Some("ccc")])) as ArrayRef,
            ),
        ])
        .unwrap();
        let back = decode_batch(encode_batch(&batch).unwrap()).unwrap();
        assert_eq!(back, batch);
    }
}
