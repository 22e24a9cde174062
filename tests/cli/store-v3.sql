-- SPDX-License-Identifier: GPL-2.0-or-later
-- A store of schema version 4 put back in the layout of version 3 (one
-- row per sample in `samples`, series without `packed`), for the tests
-- that make an older store out of a current one.  The rows come from the
-- view cell_samples, so this also reads every sample through it.
BEGIN;
CREATE TABLE samples (
 series_id INTEGER NOT NULL REFERENCES series (id) ON DELETE CASCADE,
 idx INTEGER NOT NULL,
 value INTEGER NOT NULL,
 PRIMARY KEY (series_id, idx)) WITHOUT ROWID;
INSERT INTO samples SELECT s.id, v.idx, v.value FROM cell_samples v
 JOIN cells c ON c.run_id = v.run_id AND c.seq = v.seq
 JOIN series s ON s.cell_id = c.id AND s.name = v.series;
DROP VIEW cell_samples;
ALTER TABLE series DROP COLUMN packed;
CREATE VIEW cell_samples AS
 SELECT c.run_id, c.seq, c.suite, c.load, c.probe, s.name AS series, x.idx, x.value
 FROM cells c JOIN series s ON s.cell_id = c.id JOIN samples x ON x.series_id = s.id;
PRAGMA user_version = 3;
COMMIT;
