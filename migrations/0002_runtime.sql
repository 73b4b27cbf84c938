-- Every action call is a run.
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  action TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
  parent_run_id TEXT,
  workflow_id TEXT,
  output_variable_name TEXT,
  input TEXT NOT NULL,          -- secrets redacted
  job_input TEXT,               -- AES-GCM sealed full input for queued runs, cleared when the run ends
  output TEXT,
  metadata TEXT,
  error TEXT,
  error_code TEXT,
  error_status INTEGER,
  progress TEXT,
  usage TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_until INTEGER,
  callback_url TEXT,
  callback_state TEXT,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER
);
CREATE INDEX runs_account_created ON runs(account_id, created_at DESC, id DESC);
CREATE INDEX runs_parent ON runs(parent_run_id) WHERE parent_run_id IS NOT NULL;

-- Memoized steps of a run, so a retried run never repeats a finished side effect.
CREATE TABLE run_steps (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step TEXT NOT NULL,
  output TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, step)
);

-- Workflow variables: one scope per (account, Workflow-Id).
CREATE TABLE variables (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  workflow_id TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, workflow_id, name)
);
CREATE INDEX variables_expiry ON variables(expires_at);

CREATE TABLE idempotency_keys (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  action TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  run_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at);
