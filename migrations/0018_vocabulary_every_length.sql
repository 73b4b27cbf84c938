-- The vocabulary (0016) held only the words of 3 to 50 characters, the lengths typo lookup can use.
-- It now holds every word of the agents' indexed text; words of other lengths get no trigrams, so
-- typo lookup never finds them. Its version then moves whenever ANY word enters or leaves the word
-- index, so a query word that matched nothing still matches nothing while the version stands,
-- whatever its stem ("adding" stems to "ad"): search keeps such an empty list across agent writes
-- that bring no new word (src/agents/relevance.ts).
DROP TRIGGER search_words_ai;
CREATE TRIGGER search_words_ai AFTER INSERT ON search_words BEGIN
  UPDATE catalog_version SET vocabulary_version = vocabulary_version + 1 WHERE id = 1;
  INSERT INTO search_word_grams (gram, pos, length, word)
    SELECT substr('##' || new.word || '##', p.key + 1, 3), p.key, new.length, new.word
      FROM json_each('[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51]') p
     WHERE p.key < new.length + 2 AND new.length BETWEEN 3 AND 50;
END;

-- 0016's triggers on agents, without its length filter (its delete trigger never had one).
DROP TRIGGER search_words_agents_ai;
CREATE TRIGGER search_words_agents_ai AFTER INSERT ON agents BEGIN
  INSERT INTO search_words_scratch (rowid, old, new) VALUES (1, '', new.name || ' ' || new.description || ' ' || new.param_text);
  INSERT INTO search_words (word, agents, length)
    SELECT term, 1, length(term) FROM search_words_scratch_terms WHERE col = 'new'
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
    SELECT term, 1, length(term) FROM search_words_scratch_terms WHERE col = 'new'
       AND term NOT IN (SELECT term FROM search_words_scratch_terms WHERE col = 'old')
    ON CONFLICT (word) DO UPDATE SET agents = agents + 1;
  INSERT INTO search_words_scratch (search_words_scratch) VALUES ('delete-all');
END;

-- The words of other lengths already in the catalog, counted once through a throwaway index.
CREATE VIRTUAL TABLE search_words_backfill USING fts5(
  name, description, param_text,
  content = 'agents', content_rowid = 'rowid', detail = none,
  tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO search_words_backfill (search_words_backfill) VALUES ('rebuild');
CREATE VIRTUAL TABLE search_words_backfill_terms USING fts5vocab(search_words_backfill, 'row');
INSERT INTO search_words (word, agents, length)
  SELECT term, doc, length(term) FROM search_words_backfill_terms WHERE length(term) NOT BETWEEN 3 AND 50;
DROP TABLE search_words_backfill_terms;
DROP TABLE search_words_backfill;
