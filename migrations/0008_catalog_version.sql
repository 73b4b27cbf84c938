-- A version of the agent catalog that changes with every agent write, so search results can be cached
-- exactly: a cached page is reused only while the version it was computed at still holds. The epoch
-- is random per database, so two databases never share a version.
CREATE TABLE catalog_version (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch TEXT NOT NULL,
  version INTEGER NOT NULL
);
INSERT INTO catalog_version (id, epoch, version) VALUES (1, lower(hex(randomblob(8))), 0);

CREATE TRIGGER catalog_version_ai AFTER INSERT ON agents BEGIN
  UPDATE catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER catalog_version_au AFTER UPDATE ON agents BEGIN
  UPDATE catalog_version SET version = version + 1 WHERE id = 1;
END;
CREATE TRIGGER catalog_version_ad AFTER DELETE ON agents BEGIN
  UPDATE catalog_version SET version = version + 1 WHERE id = 1;
END;
