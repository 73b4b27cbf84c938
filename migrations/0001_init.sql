-- Accounts, teams, tokens and rate-limit counters.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  rate_limit_per_minute INTEGER,
  rate_limit_per_day INTEGER,
  created_at INTEGER NOT NULL
);

CREATE TABLE teams (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE team_members (
  team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  role TEXT NOT NULL DEFAULT 'member',
  created_at INTEGER NOT NULL,
  PRIMARY KEY (team_id, account_id)
);
CREATE INDEX team_members_account ON team_members(account_id);

-- Only the SHA-256 of a token and its first characters are kept.
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  start TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER,
  last_used_at INTEGER
);
CREATE INDEX api_tokens_account ON api_tokens(account_id);

-- Fixed-window counters: one row per token holding its current minute and day windows.
CREATE TABLE rate_limit_counters (
  token_id TEXT PRIMARY KEY,
  minute_start INTEGER NOT NULL,
  minute_count INTEGER NOT NULL,
  day_start INTEGER NOT NULL,
  day_count INTEGER NOT NULL,
  last_allowed INTEGER NOT NULL
);

-- Agent catalog.
CREATE TABLE agents (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  slug TEXT UNIQUE,
  icon TEXT NOT NULL,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'private', 'team')),
  owner_account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  team_id TEXT REFERENCES teams(id) ON DELETE SET NULL,
  type TEXT NOT NULL DEFAULT 'studio',
  executions INTEGER NOT NULL DEFAULT 0,
  reviews_count INTEGER NOT NULL DEFAULT 0,
  reviews_sum INTEGER NOT NULL DEFAULT 0,
  parameters TEXT NOT NULL,
  workflow TEXT NOT NULL,
  param_text TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX agents_owner ON agents(owner_account_id);
CREATE INDEX agents_team ON agents(team_id) WHERE team_id IS NOT NULL;
CREATE INDEX agents_popularity ON agents(visibility, executions DESC, rowid);

-- Word index: porter stemming over unicode61 tokens; columns weighted in bm25() at query time.
CREATE VIRTUAL TABLE agents_fts USING fts5(
  name, description, param_text,
  content='agents', content_rowid='rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
-- Trigram index for the typo-tolerant fallback.
CREATE VIRTUAL TABLE agents_trigram USING fts5(
  name, description,
  content='agents', content_rowid='rowid',
  tokenize = 'trigram'
);

CREATE TRIGGER agents_ai AFTER INSERT ON agents BEGIN
  INSERT INTO agents_fts(rowid, name, description, param_text) VALUES (new.rowid, new.name, new.description, new.param_text);
  INSERT INTO agents_trigram(rowid, name, description) VALUES (new.rowid, new.name, new.description);
END;
CREATE TRIGGER agents_ad AFTER DELETE ON agents BEGIN
  INSERT INTO agents_fts(agents_fts, rowid, name, description, param_text) VALUES ('delete', old.rowid, old.name, old.description, old.param_text);
  INSERT INTO agents_trigram(agents_trigram, rowid, name, description) VALUES ('delete', old.rowid, old.name, old.description);
END;
CREATE TRIGGER agents_au AFTER UPDATE OF name, description, param_text ON agents BEGIN
  INSERT INTO agents_fts(agents_fts, rowid, name, description, param_text) VALUES ('delete', old.rowid, old.name, old.description, old.param_text);
  INSERT INTO agents_fts(rowid, name, description, param_text) VALUES (new.rowid, new.name, new.description, new.param_text);
  INSERT INTO agents_trigram(agents_trigram, rowid, name, description) VALUES ('delete', old.rowid, old.name, old.description);
  INSERT INTO agents_trigram(rowid, name, description) VALUES (new.rowid, new.name, new.description);
END;

CREATE TABLE agent_reviews (
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (agent_id, account_id)
);

-- Review aggregates follow the review rows, so they stay exact under concurrent writes.
CREATE TRIGGER agent_reviews_ai AFTER INSERT ON agent_reviews BEGIN
  UPDATE agents SET reviews_count = reviews_count + 1, reviews_sum = reviews_sum + new.rating WHERE id = new.agent_id;
END;
CREATE TRIGGER agent_reviews_au AFTER UPDATE OF rating ON agent_reviews BEGIN
  UPDATE agents SET reviews_sum = reviews_sum - old.rating + new.rating WHERE id = new.agent_id;
END;
CREATE TRIGGER agent_reviews_ad AFTER DELETE ON agent_reviews BEGIN
  UPDATE agents SET reviews_count = reviews_count - 1, reviews_sum = reviews_sum - old.rating WHERE id = old.agent_id;
END;
