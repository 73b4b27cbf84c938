-- The words of the agents' indexed text that the vocabulary (0016) leaves out, those under 3 or over
-- 50 characters, with how many agents hold them. Typo correction never reads them; they are kept so
-- that vocabulary_version moves whenever ANY word enters or leaves the word index. A query word that
-- matched nothing then still matches nothing while the version stands, whatever its stem ("ads"
-- stems to "ad", which the vocabulary does not hold): search keeps such an empty list across agent
-- writes that bring no new word (src/agents/relevance.ts).
CREATE TABLE search_other_words (
  word TEXT PRIMARY KEY,
  agents INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER search_other_words_ai AFTER INSERT ON search_other_words BEGIN
  UPDATE catalog_version SET vocabulary_version = vocabulary_version + 1 WHERE id = 1;
END;
CREATE TRIGGER search_other_words_ad AFTER DELETE ON search_other_words BEGIN
  UPDATE catalog_version SET vocabulary_version = vocabulary_version + 1 WHERE id = 1;
END;

-- 0016's triggers, each also keeping the other words.
DROP TRIGGER search_words_agents_ai;
CREATE TRIGGER search_words_agents_ai AFTER INSERT ON agents BEGIN
  INSERT INTO search_words_scratch (rowid, old, new) VALUES (1, '', new.name || ' ' || new.description || ' ' || new.param_text);
  INSERT INTO search_words (word, agents, length)
    SELECT term, 1, length(term) FROM search_words_scratch_terms WHERE col = 'new' AND length(term) BETWEEN 3 AND 50
    ON CONFLICT (word) DO UPDATE SET agents = agents + 1;
  INSERT INTO search_other_words (word, agents)
    SELECT term, 1 FROM search_words_scratch_terms WHERE col = 'new' AND length(term) NOT BETWEEN 3 AND 50
    ON CONFLICT (word) DO UPDATE SET agents = agents + 1;
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;
DROP TRIGGER search_words_agents_au;
CREATE TRIGGER search_words_agents_au AFTER UPDATE OF name, description, param_text ON agents BEGIN
  INSERT INTO search_words_scratch (rowid, old, new)
    VALUES (1, old.name || ' ' || old.description || ' ' || old.param_text, new.name || ' ' || new.description || ' ' || new.param_text);
  UPDATE search_words SET agents = agents - 1 WHERE word IN (
    SELECT term FROM search_words_scratch_terms WHERE col = 'old' EXCEPT SELECT term FROM search_words_scratch_terms WHERE col = 'new');
  DELETE FROM search_words WHERE agents <= 0 AND word IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old');
  INSERT INTO search_words (word, agents, length)
    SELECT term, 1, length(term) FROM search_words_scratch_terms WHERE col = 'new' AND length(term) BETWEEN 3 AND 50
       AND term NOT IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old')
    ON CONFLICT (word) DO UPDATE SET agents = agents + 1;
  UPDATE search_other_words SET agents = agents - 1 WHERE word IN (
    SELECT term FROM search_words_scratch_terms WHERE col = 'old' EXCEPT SELECT term FROM search_words_scratch_terms WHERE col = 'new');
  DELETE FROM search_other_words WHERE agents <= 0 AND word IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old');
  INSERT INTO search_other_words (word, agents)
    SELECT term, 1 FROM search_words_scratch_terms WHERE col = 'new' AND length(term) NOT BETWEEN 3 AND 50
       AND term NOT IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old')
    ON CONFLICT (word) DO UPDATE SET agents = agents + 1;
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;
DROP TRIGGER search_words_agents_ad;
CREATE TRIGGER search_words_agents_ad AFTER DELETE ON agents BEGIN
  INSERT INTO search_words_scratch (rowid, old, new) VALUES (1, old.name || ' ' || old.description || ' ' || old.param_text, '');
  UPDATE search_words SET agents = agents - 1 WHERE word IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old');
  DELETE FROM search_words WHERE agents <= 0 AND word IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old');
  UPDATE search_other_words SET agents = agents - 1 WHERE word IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old');
  DELETE FROM search_other_words WHERE agents <= 0 AND word IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old');
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;

-- The agents already in the catalog, counted once through a throwaway index over their text.
CREATE VIRTUAL TABLE search_other_words_backfill USING fts5(
  name, description, param_text,
  content = 'agents', content_rowid = 'rowid', detail = none,
  tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO search_other_words_backfill (search_other_words_backfill) VALUES ('rebuild');
CREATE VIRTUAL TABLE search_other_words_backfill_terms USING fts5vocab(search_other_words_backfill, 'row');
INSERT INTO search_other_words (word, agents)
  SELECT term, doc FROM search_other_words_backfill_terms WHERE length(term) NOT BETWEEN 3 AND 50;
DROP TABLE search_other_words_backfill_terms;
DROP TABLE search_other_words_backfill;
