//! What a null server writes for a durable put when it stands for the least a durable put can
//! cost on this disk: one small record written over a block of a file it filled beforehand, then
//! `fdatasync`. No engine, no grouping: the floor of a synced put at one connection.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Mutex;

/// The file's size: records go round it, so every write lands on a block already written and
/// a sync never has a new file length to make durable.
const SIZE: u64 = 4 << 20;
/// About what redbase's redo log writes for one put of a 100-byte cell.
pub const RECORD: usize = 256;

pub struct SyncLog {
    file: Mutex<(File, u64)>,
    record: Vec<u8>,
}

impl SyncLog {
    /// Creates (or truncates) the file at `path`, fills it and syncs it.
    pub fn create(path: &Path) -> io::Result<SyncLog> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        let block = vec![0u8; 1 << 20];
        for i in 0..SIZE / block.len() as u64 {
            file.write_all_at(&block, i * block.len() as u64)?;
        }
        file.sync_all()?;
        Ok(SyncLog {
            file: Mutex::new((file, 0)),
            record: vec![0x5a; RECORD],
        })
    }

    /// Writes one record after the last and waits until the disk has it.
    pub fn write_synced(&self) -> thrift::Result<()> {
        let mut g = self.file.lock().unwrap_or_else(|p| p.into_inner());
        let (file, at) = &mut *g;
        file.write_all_at(&self.record, *at)
            .and_then(|()| file.sync_data())
            .map_err(|e| thrift::Error::from(format!("null sync log: {e}")))?;
        *at = (*at + RECORD as u64) % SIZE;
        Ok(())
    }

    /// Where the next record goes.
    #[cfg(test)]
    pub fn position(&self) -> u64 {
        self.file.lock().unwrap().1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_go_round_a_file_of_fixed_size() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sync.log");
        let log = SyncLog::create(&path).unwrap();
        for _ in 0..(SIZE as usize / RECORD + 3) {
            log.write_synced().unwrap();
        }
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, SIZE);
        assert!(bytes[..RECORD * 3].iter().all(|&b| b == 0x5a));
        assert_eq!(log.position(), (RECORD * 3) as u64);
    }
}
