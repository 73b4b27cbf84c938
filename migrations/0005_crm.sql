-- Built-in CRM: HubSpot's object model (typed objects with string properties and associations),
-- one private CRM per account. Used when the account has no external CRM connected.
CREATE TABLE crm_objects (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  object_type TEXT NOT NULL,     -- contacts, companies, deals, tickets, calls, emails, meetings, notes, tasks
  id TEXT NOT NULL,              -- numeric text, like HubSpot's hs_object_id; unique within the account
  properties TEXT NOT NULL DEFAULT '{}', -- JSON object of string values set by callers
  email TEXT,                    -- contacts: lower-cased email property, unique per account
  domain TEXT,                   -- companies: normalized domain property (not unique, as in HubSpot)
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, object_type, id)
);
CREATE UNIQUE INDEX crm_objects_email ON crm_objects(account_id, email) WHERE email IS NOT NULL;
CREATE INDEX crm_objects_domain ON crm_objects(account_id, domain) WHERE domain IS NOT NULL;

-- Associations are symmetric: each link is stored in both directions so either end reads it.
CREATE TABLE crm_associations (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  from_type TEXT NOT NULL,
  from_id TEXT NOT NULL,
  to_type TEXT NOT NULL,
  to_id TEXT NOT NULL,
  association_type TEXT,         -- NULL for the default (unlabeled) association, else "CATEGORY:typeId"
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, from_type, from_id, to_type, to_id)
);

-- Next object id per account (ids are never reused).
CREATE TABLE crm_counters (
  account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  last_id INTEGER NOT NULL
);
