-- Credentials accounts connect (CRM tokens, model API keys): AES-GCM sealed, never returned.
CREATE TABLE account_secrets (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,           -- e.g. 'crm', 'llm:openai'
  provider TEXT NOT NULL,       -- e.g. 'hubspot', 'openai'
  sealed TEXT NOT NULL,         -- seal(ENCRYPTION_KEY, secret, 'secret:<account>:<kind>')
  meta TEXT NOT NULL DEFAULT '{}', -- non-secret facts shown back (scopes, base URL, hint)
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, kind)
);
