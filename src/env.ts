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

  RATE_LIMIT_PER_MINUTE?: string
  RATE_LIMIT_PER_DAY?: string
  MAX_BODY_BYTES?: string
  QUEUE_WAIT_DEFAULT_SECONDS?: string
  QUEUE_WAIT_MAX_SECONDS?: string
  QUEUE_RETRY_BASE_SECONDS?: string
  VARIABLE_TTL_SECONDS?: string
  IDEMPOTENCY_TTL_SECONDS?: string
  /** "true" lets outbound fetches reach private and loopback addresses: local development and tests only. */
  ALLOW_PRIVATE_FETCH?: string
  /** Contact put in the outbound User-Agent (EDGAR and others ask for one). */
  CONTACT_EMAIL?: string
  /** Content audit: pages fetched at once per crawl (1-16, default 4). */
  CRAWL_CONCURRENCY?: string
  /** Content audit: pages one Queue message fetches before the crawl continues in the next (5-1000, default 50). */
  CRAWL_PAGES_PER_MESSAGE?: string
}
