-- Crawl frontier of content audits: one row per URL a run discovered, keyed by the run id, so a
-- crawl fetched in Queue message batches survives a consumer crash and never refetches a finished page.
CREATE TABLE crawl_pages (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  depth INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  source TEXT NOT NULL,          -- seed | sitemap | link | redirect | canonical
  state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
  kind TEXT,                     -- html | redirect | error | skipped | blocked (set when done)
  status INTEGER,
  facts TEXT,                    -- JSON: what the audit needs from the page (never the raw HTML)
  fetched_at INTEGER,
  PRIMARY KEY (run_id, url)
);
CREATE INDEX crawl_pages_frontier ON crawl_pages(run_id, state, depth, seq);
