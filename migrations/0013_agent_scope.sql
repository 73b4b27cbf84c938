-- Slugs are unique per owner, not across the catalog: a catalog-wide unique slug answered "taken" for
-- another account's private agent, which told anyone that it exists. SQLite cannot drop a UNIQUE
-- column, so the old one is renamed and left empty (always NULL), and slugs move to a new column.
ALTER TABLE agents RENAME COLUMN slug TO retired_global_slug;
ALTER TABLE agents ADD COLUMN slug TEXT;
UPDATE agents SET slug = retired_global_slug, retired_global_slug = NULL WHERE retired_global_slug IS NOT NULL;
CREATE UNIQUE INDEX agents_owner_slug ON agents(owner_account_id, slug) WHERE slug IS NOT NULL;
CREATE INDEX agents_slug ON agents(slug, rowid) WHERE slug IS NOT NULL;

-- Agents an operator vouches for (the instance's own catalog): they use a caller's integrations
-- without the caller's grant. Trust is for one workflow: any change to it ends the trust.
ALTER TABLE agents ADD COLUMN trusted INTEGER NOT NULL DEFAULT 0 CHECK (trusted IN (0, 1));

-- Integrations (CRM, model keys) of an account that an agent of another account may use. A grant
-- is for the workflow the account saw: any change to it removes the grants.
CREATE TABLE agent_grants (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  integrations TEXT NOT NULL,    -- JSON array, e.g. ["crm","model"]
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, agent_id)
);
CREATE INDEX agent_grants_agent ON agent_grants(agent_id);

CREATE TRIGGER agents_workflow_changed AFTER UPDATE OF workflow ON agents WHEN old.workflow IS NOT new.workflow BEGIN
  UPDATE agents SET trusted = 0 WHERE rowid = new.rowid AND trusted != 0;
  DELETE FROM agent_grants WHERE agent_id = new.id;
END;

-- The agent a queued run acts for, when an agent's step started it (company research started from a
-- workflow): the Queue consumer runs it in that agent's scope, with the grants as they are then.
CREATE TABLE run_agents (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  agent_id TEXT NOT NULL
);
