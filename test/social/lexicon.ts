import embedExternal from '../fixtures/atproto/app.bsky.embed.external.json'
import embedImages from '../fixtures/atproto/app.bsky.embed.images.json'
import feedPost from '../fixtures/atproto/app.bsky.feed.post.json'
import facet from '../fixtures/atproto/app.bsky.richtext.facet.json'
import resolveHandle from '../fixtures/atproto/com.atproto.identity.resolveHandle.json'
import createRecord from '../fixtures/atproto/com.atproto.repo.createRecord.json'
import strongRef from '../fixtures/atproto/com.atproto.repo.strongRef.json'
import uploadBlob from '../fixtures/atproto/com.atproto.repo.uploadBlob.json'
import createSession from '../fixtures/atproto/com.atproto.server.createSession.json'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Def = any

/**
 * A small Lexicon validator over the recorded lexicons: enough of the Lexicon spec (objects,
 * required fields, strings with byte/grapheme limits and formats, integers, arrays, refs, unions,
 * blobs) to check what a PDS would check about records this service writes.
 */
const lexicons = new Map<string, { id: string; defs: Record<string, Def> }>(
  [embedExternal, embedImages, feedPost, facet, resolveHandle, createRecord, strongRef, uploadBlob, createSession].map((l) => [l.id, l as { id: string; defs: Record<string, Def> }]),
)

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' })
const graphemes = (s: string) => [...segmenter.segment(s)].length
const bytes = (s: string) => new TextEncoder().encode(s).byteLength

const FORMATS: Record<string, (s: string) => boolean> = {
  did: (s) => /^did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]$/.test(s),
  handle: (s) => s.length <= 253 && /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/.test(s),
  uri: (s) => /^[a-z][a-z0-9+.-]*:\S+$/i.test(s),
  'at-uri': (s) => /^at:\/\/[^/\s]+(\/[a-zA-Z0-9.-]+(\/[a-zA-Z0-9._~:-]+)?)?$/.test(s),
  datetime: (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  language: (s) => /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{1,8})*$/.test(s),
  nsid: (s) => /^[a-zA-Z]([a-zA-Z0-9-]*)(\.[a-zA-Z0-9-]+)+$/.test(s),
  cid: (s) => /^[a-zA-Z0-9+=]{8,}$/.test(s),
  'at-identifier': (s) => FORMATS.did(s) || FORMATS.handle(s),
  'record-key': (s) => /^[a-zA-Z0-9._:~-]{1,512}$/.test(s) && s !== '.' && s !== '..',
}

function resolve(ref: string, lexId: string): { lexId: string; def: Def } {
  const [id, name] = ref.startsWith('#') ? [lexId, ref.slice(1)] : ref.split('#')
  const lex = lexicons.get(id)
  const def = lex?.defs[name ?? 'main']
  if (!def) throw new Error(`no lexicon for ${ref}`)
  return { lexId: id, def }
}

function check(def: Def, value: unknown, path: string, lexId: string, errors: string[]): void {
  switch (def.type) {
    case 'record':
      return check(def.record, value, path, lexId, errors)
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return void errors.push(`${path} must be an object`)
      const obj = value as Record<string, unknown>
      for (const key of def.required ?? []) if (obj[key] === undefined) errors.push(`${path}/${key} is required`)
      for (const [key, prop] of Object.entries(def.properties ?? {})) if (obj[key] !== undefined) check(prop, obj[key], `${path}/${key}`, lexId, errors)
      return
    }
    case 'string': {
      if (typeof value !== 'string') return void errors.push(`${path} must be a string`)
      if (def.maxLength !== undefined && bytes(value) > def.maxLength) errors.push(`${path} is longer than ${def.maxLength} bytes`)
      if (def.maxGraphemes !== undefined && graphemes(value) > def.maxGraphemes) errors.push(`${path} is longer than ${def.maxGraphemes} graphemes`)
      if (def.minLength !== undefined && bytes(value) < def.minLength) errors.push(`${path} is shorter than ${def.minLength} bytes`)
      if (def.format && !FORMATS[def.format]?.(value)) errors.push(`${path} is not a valid ${def.format}`)
      return
    }
    case 'integer':
      if (!Number.isInteger(value)) return void errors.push(`${path} must be an integer`)
      if (def.minimum !== undefined && (value as number) < def.minimum) errors.push(`${path} is below ${def.minimum}`)
      if (def.maximum !== undefined && (value as number) > def.maximum) errors.push(`${path} is above ${def.maximum}`)
      return
    case 'boolean':
      if (typeof value !== 'boolean') errors.push(`${path} must be a boolean`)
      return
    case 'array':
      if (!Array.isArray(value)) return void errors.push(`${path} must be an array`)
      if (def.maxLength !== undefined && value.length > def.maxLength) errors.push(`${path} has more than ${def.maxLength} items`)
      value.forEach((item, i) => check(def.items, item, `${path}/${i}`, lexId, errors))
      return
    case 'ref': {
      const target = resolve(def.ref, lexId)
      return check(target.def, value, path, target.lexId, errors)
    }
    case 'union': {
      const type = (value as { $type?: unknown })?.$type
      if (typeof type !== 'string') return void errors.push(`${path} needs a $type`)
      const refs: string[] = def.refs.map((r: string) => (r.startsWith('#') ? `${lexId}${r}` : r))
      const match = refs.find((r) => r === type || `${r}#main` === type || r === `${type}#main`)
      if (!match) return void errors.push(`${path} has $type ${type}, not one of ${refs.join(', ')}`)
      const target = resolve(match, lexId)
      return check(target.def, value, path, target.lexId, errors)
    }
    case 'blob': {
      const blob = value as { $type?: unknown; ref?: { $link?: unknown }; mimeType?: unknown; size?: unknown }
      if (blob?.$type !== 'blob' || typeof blob.ref?.$link !== 'string' || typeof blob.mimeType !== 'string' || !Number.isInteger(blob.size)) {
        return void errors.push(`${path} is not a blob reference`)
      }
      if (def.maxSize !== undefined && (blob.size as number) > def.maxSize) errors.push(`${path} is larger than ${def.maxSize} bytes`)
      if (def.accept && !def.accept.some((a: string) => (a.endsWith('/*') ? (blob.mimeType as string).startsWith(a.slice(0, -1)) : a === blob.mimeType))) {
        errors.push(`${path} has MIME type ${blob.mimeType as string}, not ${def.accept.join(', ')}`)
      }
      return
    }
    case 'unknown':
      if (!value || typeof value !== 'object') errors.push(`${path} must be an object`)
      return
    default:
      errors.push(`${path}: unsupported lexicon type ${def.type}`)
  }
}

/** Errors of `value` against a lexicon definition ("app.bsky.feed.post", "app.bsky.richtext.facet#link"); empty when valid. */
export function validateLexicon(ref: string, value: unknown): string[] {
  const { lexId, def } = resolve(ref, '')
  const errors: string[] = []
  check(def, value, '', lexId, errors)
  return errors
}

/** Errors of a procedure's JSON input against its lexicon. */
export function validateInput(nsid: string, value: unknown): string[] {
  const { lexId, def } = resolve(nsid, '')
  const errors: string[] = []
  check(def.input.schema, value, '', lexId, errors)
  return errors
}
