-- A version of the word index alone: it moves only when agent text enters, changes in or leaves the
-- index, so relevance lists cached per phrase stay valid while executions and reviews change.
ALTER TABLE catalog_version ADD COLUMN index_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER index_version_ai AFTER INSERT ON agents BEGIN
  UPDATE catalog_version SET index_version = index_version + 1 WHERE id = 1;
END;
CREATE TRIGGER index_version_au AFTER UPDATE OF name, description, param_text ON agents BEGIN
  UPDATE catalog_version SET index_version = index_version + 1 WHERE id = 1;
END;
CREATE TRIGGER index_version_ad AFTER DELETE ON agents BEGIN
  UPDATE catalog_version SET index_version = index_version + 1 WHERE id = 1;
END;
