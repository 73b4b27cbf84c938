import type { JobMessage } from './runtime/jobs'

/**
 * Worker bindings and settings. Bindings match wrangler.toml; every setting is a string var or a
 * secret (`wrangler secret put`), documented in the README's settings table.
 */
export interface Env {
  DB: D1Database
  CACHE: KVNamespace
  JOBS: Queue<JobMessage>

  /** Secret. Guards /v1/admin/*; when unset every admin route answers 404. */
  ADMIN_TOKEN?: string
  /** Secret. Base64 32-byte key for AES-GCM sealing of stored credentials and queued inputs. */
  ENCRYPTION_KEY?: string
  /** Secret. Key for HMAC-SHA256 signatures on run callbacks. */
  WEBHOOK_SIGNING_SECRET?: string

  /** Requests per minute of an account, all its tokens together (default 20; an account override wins). */
  RATE_LIMIT_PER_MINUTE?: string
  /** Requests per day of an account, all its tokens together (default 1000; an account override wins). */
  RATE_LIMIT_PER_DAY?: string
  /** Active tokens an account may hold (default 100); one more is a 429 QUOTA_EXCEEDED. */
  MAX_TOKENS_PER_ACCOUNT?: string
  /** Agents an account may own (default 1000); one more is a 429 QUOTA_EXCEEDED. */
  MAX_AGENTS_PER_ACCOUNT?: string
  /** Queued runs of an account waiting or running at once (default 50); one more is a 429 QUOTA_EXCEEDED. */
  MAX_QUEUED_RUNS_PER_ACCOUNT?: string
  MAX_BODY_BYTES?: string
  QUEUE_WAIT_DEFAULT_SECONDS?: string
  QUEUE_WAIT_MAX_SECONDS?: string
  INLINE_RUN_TIMEOUT_SECONDS?: string
  QUEUED_RUN_TIMEOUT_SECONDS?: string
  QUEUE_RETRY_BASE_SECONDS?: string
  VARIABLE_TTL_SECONDS?: string
  IDEMPOTENCY_TTL_SECONDS?: string
  /** Largest input after resolving `{{...}}` references, in bytes (413 above); default MAX_BODY_BYTES, at most 16 MiB. */
  MAX_RESOLVED_INPUT_BYTES?: string
  /** Largest value of one workflow variable, in bytes of JSON (413 above); default 2 MiB, at most 16 MiB. */
  MAX_VARIABLE_BYTES?: string
  /** Largest total of one Workflow-Id scope's live variables, in bytes of JSON (413 above); default 16 MiB. */
  MAX_SCOPE_BYTES?: string
  /** Days after which finished runs and their KV blobs are purged by the cron; default 30, "0" keeps them. */
  RUN_RETENTION_DAYS?: string
  /** "true" lets outbound fetches reach private and loopback addresses: local development and tests only. */
  ALLOW_PRIVATE_FETCH?: string
  /**
   * "doh" (default): outbound host names are resolved through OUTBOUND_DOH_URL before every request
   * and redirect hop, and refused when any address is private or special-purpose. "platform": no
   * lookup, for deployments whose network refuses private targets itself (Cloudflare's network).
   */
  OUTBOUND_DNS_CHECK?: string
  /** DNS-over-HTTPS JSON endpoint of that check. Default https://cloudflare-dns.com/dns-query. */
  OUTBOUND_DOH_URL?: string
  /** Contact put in the outbound User-Agent (EDGAR and others ask for one). */
  CONTACT_EMAIL?: string

  /** Static assets (assets/, built by scripts/build-encoder.mjs): the offline search encoder's files. */
  ASSETS?: Fetcher
  /** Search embedder: "offline" (default, shipped encoder), "workers-ai" (AI binding), "openai" (SEARCH_EMBEDDING_BASE_URL) or "none" (lexical only). */
  SEARCH_EMBEDDER?: string
  /**
   * Optional Vectorize index of agent vectors (dimensions of the embedder, metric cosine): when bound,
   * searches take their nearest candidates from it instead of the isolate's bounded index.
   */
  VECTORIZE?: Vectorize
  /** Embedding model: for workers-ai default @cf/baai/bge-base-en-v1.5; for openai default text-embedding-3-small. */
  SEARCH_EMBEDDING_MODEL?: string
  /** Base URL of an OpenAI-compatible embeddings API (POST <base>/embeddings), for SEARCH_EMBEDDER=openai. */
  SEARCH_EMBEDDING_BASE_URL?: string
  /** Secret. Bearer key for SEARCH_EMBEDDING_BASE_URL, when it wants one. */
  SEARCH_EMBEDDING_API_KEY?: string
  /** Optional Workers AI binding; when present it serves model calls no key covers (model WORKERS_AI_MODEL). */
  AI?: Ai
  /** Secret. Server-wide OpenAI key for the gpt-* model ids (an account's own key wins). */
  OPENAI_API_KEY?: string
  /** Base URL of the OpenAI Responses API (a gateway or proxy); default https://api.openai.com/v1. */
  OPENAI_BASE_URL?: string
  /** Secret. Server-wide Anthropic key for the claude-* model ids (an account's own key wins). */
  ANTHROPIC_API_KEY?: string
  /** Base URL of the Anthropic Messages API; default https://api.anthropic.com/v1. */
  ANTHROPIC_BASE_URL?: string
  /** Any OpenAI-compatible Chat Completions server (e.g. http://localhost:11434/v1); used when no vendor key covers a model. Private addresses need ALLOW_PRIVATE_FETCH=true. */
  OPENAI_COMPATIBLE_BASE_URL?: string
  /** Secret. Bearer key for OPENAI_COMPATIBLE_BASE_URL, when the server wants one. */
  OPENAI_COMPATIBLE_API_KEY?: string
  /** Model name sent to OPENAI_COMPATIBLE_BASE_URL for every public model id; default: the public id itself. */
  OPENAI_COMPATIBLE_MODEL?: string
  /** Workers AI model used through the AI binding; default @cf/meta/llama-3.3-70b-instruct-fp8-fast. */
  WORKERS_AI_MODEL?: string
  /** Per-attempt timeout of one model call in milliseconds; default 60000. */
  LLM_TIMEOUT_MS?: string
  /** HubSpot API base URL for the CRM actions (a proxy or a local fake). Default https://api.hubapi.com. */
  HUBSPOT_API_BASE?: string
  /** "false" turns the built-in CRM off: without a connected CRM the CRM actions then answer 412. Default "true". */
  CRM_BUILTIN_ENABLED?: string
  /** Default AT Protocol PDS (or entryway) for post_to_social logins by email or unresolvable handle. Default https://bsky.social. */
  ATPROTO_PDS_URL?: string
  /** PLC directory used to read did:plc documents (to find an account's PDS). Default https://plc.directory. */
  ATPROTO_PLC_URL?: string
  /** DNS-over-HTTPS JSON endpoint for `_atproto.<handle>` TXT lookups. Default https://cloudflare-dns.com/dns-query. */
  ATPROTO_DOH_URL?: string
  /**
   * Forwarding proxy for YouTube requests (get_video_transcript), for deployments whose egress IPs
   * YouTube blocks. `{url}` is replaced by the encoded target URL; without it `url=<target>` is appended.
   */
  YOUTUBE_PROXY_URL?: string
  /** Secret. Sent to YOUTUBE_PROXY_URL as `Authorization: Bearer <token>` when set. */
  YOUTUBE_PROXY_TOKEN?: string
  /** Login of the DataForSEO API (company research search_keywords, SEO/AEO research keyword data). */
  DATAFORSEO_LOGIN?: string
  /** Secret. Password of the DataForSEO API. */
  DATAFORSEO_PASSWORD?: string
  /** Secret. Trustpilot API key (reviews section of company research). */
  TRUSTPILOT_API_KEY?: string
  /** Secret. Crunchbase API v4 key (funding_history section of company research). */
  CRUNCHBASE_API_KEY?: string
  /** Cloudflare account id for the Browser Rendering REST API (homepage_screenshot section). */
  CF_ACCOUNT_ID?: string
  /** Secret. Cloudflare API token with Browser Rendering - Edit permission (homepage_screenshot section). */
  CF_BROWSER_RENDERING_TOKEN?: string
  /** Content audit: pages fetched at once per crawl (1-16, default 4). */
  CRAWL_CONCURRENCY?: string
  /** Content audit: pages one Queue message fetches before the crawl continues in the next (5-1000, default 50). */
  CRAWL_PAGES_PER_MESSAGE?: string
  /** Secret. Perplexity API key: enables Perplexity (Sonar) as an answer engine in aeo_seo_research_generate_research_action. */
  PERPLEXITY_API_KEY?: string
  /** Perplexity model asked by the SEO/AEO research; default "sonar". */
  PERPLEXITY_MODEL?: string
}

/**
 * The settings documented as secrets above. A run registers their values as its own secrets, so a
 * peer that echoes a key it was sent (in an error message, in data) has it scrubbed from the answer,
 * the run record, the stored variable and the logs, like a password of the request.
 */
export const SECRET_SETTINGS = [
  'ADMIN_TOKEN',
  'ENCRYPTION_KEY',
  'WEBHOOK_SIGNING_SECRET',
  'SEARCH_EMBEDDING_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'OPENAI_COMPATIBLE_API_KEY',
  'YOUTUBE_PROXY_TOKEN',
  'DATAFORSEO_PASSWORD',
  'TRUSTPILOT_API_KEY',
  'CRUNCHBASE_API_KEY',
  'CF_BROWSER_RENDERING_TOKEN',
  'PERPLEXITY_API_KEY',
] as const satisfies readonly (keyof Env)[]
