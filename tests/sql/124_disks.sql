#!/usr/bin/env strata
-- Disks and storage policies without a storage configuration: the default disk and policy, moves between disks, DROP ... SYNC
SELECT name, type, object_storage_type, metadata_type, is_remote, is_read_only, is_broken, cache_path FROM system.disks;
SELECT free_space > 0, total_space >= free_space FROM system.disks;
SELECT * FROM system.storage_policies;
CREATE TABLE t (a UInt64, s String) ENGINE = MergeTree ORDER BY a SETTINGS storage_policy = 'default';
INSERT INTO t VALUES (1, 'one'), (2, 'two');
SHOW CREATE TABLE t;
SELECT name, disk_name FROM system.parts WHERE table = 't';
ALTER TABLE t MOVE PART 'all_1_1_0' TO DISK 'default'; -- { serverError UNKNOWN_DISK }
ALTER TABLE t MOVE PARTITION tuple() TO DISK 'default'; -- { serverError UNKNOWN_DISK }
ALTER TABLE t MOVE PARTITION tuple() TO DISK 'nope'; -- { serverError UNKNOWN_DISK }
ALTER TABLE t MOVE PARTITION tuple() TO VOLUME 'nope'; -- { serverError UNKNOWN_VOLUME }
ALTER TABLE t MOVE PART 'all_9_9_0' TO DISK 'default'; -- { serverError NO_SUCH_DATA_PART }
CREATE TABLE d (a UInt8) ENGINE = MergeTree ORDER BY a SETTINGS disk = 'default';
SHOW CREATE TABLE d;
CREATE TABLE x (a UInt8) ENGINE = MergeTree ORDER BY a SETTINGS disk = 'nope'; -- { serverError UNKNOWN_DISK }
CREATE TABLE x (a UInt8) ENGINE = MergeTree ORDER BY a SETTINGS storage_policy = 'nope'; -- { serverError UNKNOWN_POLICY }
CREATE TABLE x (a UInt8) ENGINE = MergeTree ORDER BY a SETTINGS storage_policy = 'default', disk = 'default'; -- { serverError BAD_ARGUMENTS }
DROP TABLE d SYNC;
DROP TABLE IF EXISTS d SYNC;
SELECT * FROM t ORDER BY a;
