import { setOwn } from '../lib/objects'
import type { Logger } from './log'

export const REDACTED = '[redacted]'
/**
 * Secrets shorter than this are replaced only where they are a whole string: replacing every "ab"
 * inside other text would mangle records without hiding anything.
 */
const MIN_SUBSTRING = 4
/** Values nested deeper than this are replaced whole rather than walked. */
const MAX_DEPTH = 256

/**
 * The secret values of one run tree: every value that flowed into a secret field (by schema type),
 * plus credentials an action obtained on the way (session tokens). Every record the run tree writes
 * (run inputs, step results, outputs, errors, progress, logs) passes through `scrub` first.
 */
export class SecretSet {
  private readonly values = new Set<string>()
  private ordered: { raw: string; escaped: string }[] | null = null

  /** Registers a secret; numbers and booleans count by their text, empty and non-scalar values are ignored. */
  add(value: unknown): void {
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : ''
    if (text === '' || text === REDACTED || this.values.has(text)) return
    this.values.add(text)
    this.ordered = null
  }

  /** How many secrets are registered. */
  get size(): number {
    return this.values.size
  }

  /** `text` with every secret (and its JSON-escaped form, for secrets inside JSON text) replaced by "[redacted]". */
  scrubText(text: string): string {
    if (this.values.size === 0) return text
    if (this.values.has(text)) return REDACTED
    // Longest first, so a secret that contains another is replaced whole.
    this.ordered ??= [...this.values]
      .filter((v) => v.length >= MIN_SUBSTRING)
      .sort((a, b) => b.length - a.length)
      .map((raw) => ({ raw, escaped: JSON.stringify(raw).slice(1, -1) }))
    let out = text
    for (const { raw, escaped } of this.ordered) {
      if (out.includes(raw)) out = out.split(raw).join(REDACTED)
      if (escaped !== raw && out.includes(escaped)) out = out.split(escaped).join(REDACTED)
    }
    return out
  }

  /** `value` with every secret replaced in its strings and keys; the same value when none occurs. */
  scrub<T>(value: T): T {
    if (this.values.size === 0) return value
    return this.walk(value, 0) as T
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.scrubText(value)
    // A secret parameter may be a number (a PIN) or a boolean: registered by its text, hidden as a whole value.
    if (typeof value === 'number' || typeof value === 'boolean') return this.values.has(String(value)) ? REDACTED : value
    if (value === null || typeof value !== 'object') return value
    if (depth > MAX_DEPTH) return REDACTED
    if (Array.isArray(value)) {
      let changed = false
      const out = value.map((v) => {
        const w = this.walk(v, depth + 1)
        changed ||= w !== v
        return w
      })
      return changed ? out : value
    }
    let changed = false
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      const key = this.scrubText(k)
      const w = this.walk(v, depth + 1)
      changed ||= w !== v || key !== k
      setOwn(out, key, w)
    }
    return changed ? out : value
  }
}

/** A logger that scrubs the run's secrets from every message and field it writes. */
export function scrubbingLogger(log: Logger, secrets: SecretSet): Logger {
  const clean = (fields?: Record<string, unknown>) => (fields ? secrets.scrub(fields) : fields)
  return {
    info: (m, f) => log.info(secrets.scrubText(m), clean(f)),
    warn: (m, f) => log.warn(secrets.scrubText(m), clean(f)),
    error: (m, f) => log.error(secrets.scrubText(m), clean(f)),
    child: (f) => scrubbingLogger(log.child(clean(f) ?? {}), secrets),
  }
}
