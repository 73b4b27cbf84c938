-- The vocabulary typo correction searches: every distinct word of the agents' indexed text (name,
-- description, parameter text), tokenized exactly as agents_fts tokenizes it before stemming
-- (unicode61, diacritics removed), with how many agents hold it. A correction is looked up as an
-- agents_fts phrase, which stems it like the agent's own word: every word here has a relevance list.
-- Only words of 3 to 50 characters are kept: query words have 4 to 48 and corrections are at most 2
-- edits away.
CREATE TABLE search_words (
  word TEXT PRIMARY KEY,
  agents INTEGER NOT NULL,
  length INTEGER NOT NULL
) WITHOUT ROWID;

-- Positional trigrams of each word padded with two '#' on each side (never a token character): an
-- edit destroys at most 4 of a word's trigrams and shifts the others by at most one place, so a word
-- within k edits of a query word shares at least (its length + 2 - 4k) of them within k places. That
-- bound is never cut by rank or count, so the lookup finds every such word.
CREATE TABLE search_word_grams (
  gram TEXT NOT NULL,
  pos INTEGER NOT NULL,
  length INTEGER NOT NULL,
  word TEXT NOT NULL,
  PRIMARY KEY (gram, pos, length, word)
) WITHOUT ROWID;

-- Moves whenever a word enters or leaves the vocabulary (not when only its agent count changes):
-- a lookup that found no near word, or one, holds until then, across agent writes that bring no new
-- word, so search caches those under this version rather than the index version.
ALTER TABLE catalog_version ADD COLUMN vocabulary_version INTEGER NOT NULL DEFAULT 0;

CREATE TRIGGER search_words_ai AFTER INSERT ON search_words BEGIN
  UPDATE catalog_version SET vocabulary_version = vocabulary_version + 1 WHERE id = 1;
  INSERT INTO search_word_grams (gram, pos, length, word)
    SELECT substr('##' || new.word || '##', p.key + 1, 3), p.key, new.length, new.word
      FROM json_each('[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51]') p
     WHERE p.key < new.length + 2;
END;
CREATE TRIGGER search_words_ad AFTER DELETE ON search_words BEGIN
  UPDATE catalog_version SET vocabulary_version = vocabulary_version + 1 WHERE id = 1;
  DELETE FROM search_word_grams WHERE word = old.word AND (gram, pos, length) IN (
    SELECT substr('##' || old.word || '##', p.key + 1, 3), p.key, old.length
      FROM json_each('[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51]') p
     WHERE p.key < old.length + 2);
END;

-- One agent write at a time: its old and new text, tokenized by SQLite's own tokenizer (so the words
-- are agents_fts's), read back through fts5vocab and emptied again in the same trigger.
CREATE VIRTUAL TABLE search_words_scratch USING fts5(
  old, new,
  content = '', columnsize = 0, detail = column,
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE search_words_scratch_terms USING fts5vocab(search_words_scratch, 'col');

CREATE TRIGGER search_words_agents_ai AFTER INSERT ON agents BEGIN
  INSERT INTO search_words_scratch (rowid, old, new) VALUES (1, '', new.name || ' ' || new.description || ' ' || new.param_text);
  INSERT INTO search_words (word, agents, length)
    SELECT term, 1, length(term) FROM search_words_scratch_terms WHERE col = 'new' AND length(term) BETWEEN 3 AND 50
    ON CONFLICT (word) DO UPDATE SET agents = agents + 1;
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;
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
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;
CREATE TRIGGER search_words_agents_ad AFTER DELETE ON agents BEGIN
  INSERT INTO search_words_scratch (rowid, old, new) VALUES (1, old.name || ' ' || old.description || ' ' || old.param_text, '');
  UPDATE search_words SET agents = agents - 1 WHERE word IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old');
  DELETE FROM search_words WHERE agents <= 0 AND word IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old');
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;

-- The agents already in the catalog, counted once through a throwaway index over their text.
CREATE VIRTUAL TABLE search_words_backfill USING fts5(
  name, description, param_text,
  content = 'agents', content_rowid = 'rowid', detail = none,
  tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO search_words_backfill (search_words_backfill) VALUES ('rebuild');
CREATE VIRTUAL TABLE search_words_backfill_terms USING fts5vocab(search_words_backfill, 'row');
INSERT INTO search_words (word, agents, length)
  SELECT term, doc, length(term) FROM search_words_backfill_terms WHERE length(term) BETWEEN 3 AND 50;
DROP TABLE search_words_backfill_terms;
DROP TABLE search_words_backfill;

-- The vocabulary replaces the agents' trigram index, which only typo lookup read.
DROP TRIGGER agents_ai;
DROP TRIGGER agents_ad;
DROP TRIGGER agents_au;
DROP TABLE agents_trigram;
CREATE TRIGGER agents_ai AFTER INSERT ON agents BEGIN
  INSERT INTO agents_fts(rowid, name, description, param_text) VALUES (new.rowid, new.name, new.description, new.param_text);
END;
CREATE TRIGGER agents_ad AFTER DELETE ON agents BEGIN
  INSERT INTO agents_fts(agents_fts, rowid, name, description, param_text) VALUES ('delete', old.rowid, old.name, old.description, old.param_text);
END;
CREATE TRIGGER agents_au AFTER UPDATE OF name, description, param_text ON agents BEGIN
  INSERT INTO agents_fts(agents_fts, rowid, name, description, param_text) VALUES ('delete', old.rowid, old.name, old.description, old.param_text);
  INSERT INTO agents_fts(rowid, name, description, param_text) VALUES (new.rowid, new.name, new.description, new.param_text);
END;
