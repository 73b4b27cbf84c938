-- Where a stored value lives is recorded beside it, never read from its text.
--   inline     the column holds the value's JSON
--   kv         the JSON is in KV under a key derived from the row (src/runtime/blobs.ts)
--   sealed     the column holds the JSON sealed with AES-GCM, bound to the row
--   sealed+kv  the sealed text is in KV under a key derived from the row
--   omitted    (variables) a result over the size limits that was not kept; `size` says how large it was
ALTER TABLE variables ADD COLUMN value_kind TEXT NOT NULL DEFAULT 'inline';
-- Bytes of the value's JSON, summed per scope for MAX_SCOPE_BYTES.
ALTER TABLE variables ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
-- Random per write; part of the KV key of a large value, so a refused or concurrent write never
-- replaces the blob another row points at.
ALTER TABLE variables ADD COLUMN version TEXT;

-- A kind is read only beside a value that is present.
ALTER TABLE runs ADD COLUMN input_kind TEXT NOT NULL DEFAULT 'inline';
ALTER TABLE runs ADD COLUMN job_input_kind TEXT NOT NULL DEFAULT 'inline';
ALTER TABLE runs ADD COLUMN output_kind TEXT NOT NULL DEFAULT 'inline';
ALTER TABLE runs ADD COLUMN metadata_kind TEXT NOT NULL DEFAULT 'inline';
ALTER TABLE run_steps ADD COLUMN output_kind TEXT NOT NULL DEFAULT 'inline';

-- Rows written before this migration marked a KV value with the text {"$kv":"blob:<key>"}. Only the
-- exact key the old code derived from the row itself counts as such a marker; any other text
-- (a caller's object that merely looks like one) stays what it is: data. The size of such a value is
-- not known here; it counts as just past the old inline limit until it is written again.
UPDATE variables SET value_kind = 'kv', size = 524289
 WHERE value = json_object('$kv', 'blob:var:' || account_id || ':' || workflow_id || ':' || name);
UPDATE variables SET size = length(CAST(value AS BLOB)) WHERE value_kind = 'inline';
UPDATE runs SET output_kind = 'kv' WHERE output = json_object('$kv', 'blob:run:' || id || ':output');
UPDATE runs SET metadata_kind = 'kv' WHERE metadata = json_object('$kv', 'blob:run:' || id || ':metadata');
-- The old code sealed a queued input as "v1.<iv>.<ciphertext>"; its plain form was always a JSON object.
UPDATE runs SET job_input_kind = 'sealed' WHERE substr(job_input, 1, 3) = 'v1.';
UPDATE run_steps SET output_kind = 'kv' WHERE output = json_object('$kv', 'blob:step:' || run_id || ':' || step);

-- Retention: finished runs are purged by age, oldest first.
CREATE INDEX runs_finished ON runs(finished_at) WHERE finished_at IS NOT NULL;
