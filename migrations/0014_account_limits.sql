-- Limits per account: every token of an account counts against the account's limits, and a token
-- may carry lower limits of its own (NULL: only the account's). The counters of rate_limit_counters
-- are keyed by account id (acc_...) as well as token id (tok_...): one row each per request.
ALTER TABLE api_tokens ADD COLUMN rate_limit_per_minute INTEGER;
ALTER TABLE api_tokens ADD COLUMN rate_limit_per_day INTEGER;

-- Queued runs in flight per account are counted before one more is accepted.
CREATE INDEX runs_in_flight ON runs(account_id) WHERE job_input IS NOT NULL AND state IN ('queued', 'running');
