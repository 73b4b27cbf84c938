import { json } from '../helpers'
import { markSecret } from '../secret-scan'
import { validateInput, validateLexicon } from './lexicon'

/** An account the fake network knows. */
export interface FakeAccount {
  handle: string
  did: string
  email: string
  /** The app password that logs in. */
  password: string
  /** Origin of the PDS hosting the account. */
  pds: string
  /** How the handle resolves: through bsky.social's resolveHandle, DNS TXT, or the well-known file. */
  resolution: 'pds' | 'dns' | 'well-known'
  authFactor?: boolean
}

export const ENTRYWAY = 'https://bsky.social'
export const BSKY_HOST = 'https://morel.us-east.host.bsky.network'

export const alice: FakeAccount = {
  handle: 'alice.bsky.social',
  did: 'did:plc:aliceaaaaaaaaaaaaaaaaaaa',
  email: 'alice@example.com',
  password: markSecret('alic-e4pp-pass-w0rd'),
  pds: BSKY_HOST,
  resolution: 'pds',
}
export const bob: FakeAccount = {
  handle: 'bob.bsky.social',
  did: 'did:plc:bobbbbbbbbbbbbbbbbbbbbbb',
  email: 'bob@example.com',
  password: markSecret('bob-secret-pass'),
  pds: BSKY_HOST,
  resolution: 'pds',
}
export const carol: FakeAccount = {
  handle: 'carol.example.org',
  did: 'did:plc:carolccccccccccccccccccc',
  email: 'carol@example.org',
  password: markSecret('c4rol-self-hosted'),
  pds: 'https://pds.carol.example.org',
  resolution: 'dns',
}
export const dave: FakeAccount = {
  handle: 'dave.example.net',
  did: 'did:web:dave.example.net',
  email: 'dave@example.net',
  password: markSecret('dave-did-web-pass'),
  pds: 'https://pds.dave.example.net',
  resolution: 'well-known',
}
export const erin: FakeAccount = {
  handle: 'erin.bsky.social',
  did: 'did:plc:erineeeeeeeeeeeeeeeeeeee',
  email: 'erin@example.com',
  password: markSecret('erin-main-password'),
  pds: BSKY_HOST,
  resolution: 'pds',
  authFactor: true,
}

function didDoc(a: FakeAccount) {
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: a.did,
    alsoKnownAs: [`at://${a.handle}`],
    verificationMethod: [{ id: `${a.did}#atproto`, type: 'Multikey', controller: a.did, publicKeyMultibase: 'zQ3shXjHeiBuRCKmM36cuYnm7YEMzhGnCmCyW92sRJ9pribSF' }],
    service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: a.pds }],
  }
}

const xrpcErr = (status: number, error: string, message: string, headers: Record<string, string> = {}) => json({ error, message }, status, headers)

/**
 * A fake AT Protocol network: an entryway (bsky.social), PDSes, the PLC directory, DNS over HTTPS
 * and handle well-known files. XRPC inputs and records are checked against the recorded lexicons
 * (so the post text limits are the lexicon's), facets against the text, and tokens per session.
 */
export class FakeAtproto {
  readonly accounts: FakeAccount[]
  readonly records: { pds: string; did: string; rkey: string; record: Record<string, unknown> }[] = []
  readonly blobs: { did: string; mimeType: string; size: number }[] = []
  readonly loggedOut: string[] = []
  readonly logins: { host: string; identifier: string }[] = []
  /** Answer createSession with 429 and rate-limit headers. */
  rateLimitLogin = false
  /** Answer createRecord with this status (server errors). */
  createRecordStatus: number | null = null
  private readonly sessions = new Map<string, { did: string; kind: 'access' | 'refresh'; pds: string }>()
  private counter = 0

  constructor(accounts: FakeAccount[] = [alice, bob, carol, dave, erin]) {
    this.accounts = accounts
  }

  /** The fetch handler; pass it to mockFetch. */
  readonly handle = async (req: Request): Promise<Response | null> => {
    const url = new URL(req.url)
    const origin = url.origin
    if (origin === 'https://plc.directory') {
      const a = this.accounts.find((x) => x.did === decodeURIComponent(url.pathname.slice(1)))
      return a ? json(didDoc(a)) : json({ message: 'DID not registered' }, 404)
    }
    if (origin === 'https://cloudflare-dns.com' && url.pathname === '/dns-query') {
      if (req.headers.get('accept') !== 'application/dns-json') return new Response('need accept', { status: 400 })
      const name = url.searchParams.get('name') ?? ''
      const a = this.accounts.find((x) => x.resolution === 'dns' && `_atproto.${x.handle}` === name)
      if (!a || url.searchParams.get('type') !== 'TXT') return json({ Status: 3, Question: [{ name, type: 16 }] })
      return json({ Status: 0, Question: [{ name, type: 16 }], Answer: [{ name, type: 16, TTL: 300, data: `"did=${a.did}"` }] })
    }
    if (url.pathname === '/.well-known/atproto-did') {
      const a = this.accounts.find((x) => x.resolution === 'well-known' && x.handle === url.hostname)
      return a ? new Response(a.did, { headers: { 'content-type': 'text/plain' } }) : new Response('not found', { status: 404 })
    }
    if (url.pathname === '/.well-known/did.json') {
      const a = this.accounts.find((x) => x.did === `did:web:${url.hostname}`)
      return a ? json(didDoc(a)) : new Response('not found', { status: 404 })
    }
    const isPds = origin === ENTRYWAY || this.accounts.some((a) => a.pds === origin)
    if (!isPds || !url.pathname.startsWith('/xrpc/')) return null
    return this.xrpc(req, origin, url.pathname.slice('/xrpc/'.length), url)
  }

  private token(did: string, kind: 'access' | 'refresh', pds: string): string {
    const t = markSecret(`${kind}-jwt-${++this.counter}-${crypto.randomUUID()}`)
    this.sessions.set(t, { did, kind, pds })
    return t
  }

  private auth(req: Request, kind: 'access' | 'refresh') {
    const header = req.headers.get('authorization') ?? ''
    const session = this.sessions.get(header.replace(/^Bearer /, ''))
    return session && session.kind === kind ? session : null
  }

  private async xrpc(req: Request, origin: string, nsid: string, url: URL): Promise<Response> {
    switch (nsid) {
      case 'com.atproto.identity.resolveHandle': {
        if (req.method !== 'GET') return xrpcErr(405, 'InvalidRequest', 'Method not allowed')
        const handle = url.searchParams.get('handle') ?? ''
        const a = this.accounts.find((x) => x.handle === handle && x.resolution === 'pds' && (origin === ENTRYWAY || origin === x.pds))
        return a ? json({ did: a.did }) : xrpcErr(400, 'InvalidRequest', 'Unable to resolve handle')
      }
      case 'com.atproto.server.createSession': {
        if (req.method !== 'POST' || !req.headers.get('content-type')?.startsWith('application/json')) return xrpcErr(400, 'InvalidRequest', 'Expected JSON POST')
        const body = (await req.json()) as { identifier: string; password: string }
        const problems = validateInput('com.atproto.server.createSession', body)
        if (problems.length) return xrpcErr(400, 'InvalidRequest', `Input ${problems.join(', ')}`)
        this.logins.push({ host: origin, identifier: body.identifier })
        if (this.rateLimitLogin) {
          const reset = Math.floor(Date.now() / 1000) + 300
          return xrpcErr(429, 'RateLimitExceeded', 'Rate Limit Exceeded', { 'ratelimit-limit': '30', 'ratelimit-remaining': '0', 'ratelimit-reset': String(reset), 'ratelimit-policy': '30;w=300' })
        }
        const id = body.identifier.toLowerCase()
        const a = this.accounts.find((x) => x.handle === id || x.email === id || x.did === body.identifier)
        const hostsIt = a && (a.pds === origin || (origin === ENTRYWAY && a.pds === BSKY_HOST))
        if (!a || !hostsIt || a.password !== body.password) return xrpcErr(401, 'AuthenticationRequired', 'Invalid identifier or password')
        if (a.authFactor) return xrpcErr(401, 'AuthFactorTokenRequired', 'A sign in code has been sent to your email address')
        return json({
          did: a.did,
          didDoc: didDoc(a),
          handle: a.handle,
          email: a.email,
          emailConfirmed: true,
          active: true,
          accessJwt: this.token(a.did, 'access', a.pds),
          refreshJwt: this.token(a.did, 'refresh', a.pds),
        })
      }
      case 'com.atproto.repo.uploadBlob': {
        const session = this.auth(req, 'access')
        if (!session || session.pds !== origin) return xrpcErr(401, 'AuthenticationRequired', 'Authentication Required')
        const mimeType = req.headers.get('content-type') ?? ''
        const size = (await req.arrayBuffer()).byteLength
        this.blobs.push({ did: session.did, mimeType, size })
        return json({ blob: { $type: 'blob', ref: { $link: `bafkreiblob${this.blobs.length}aaaaaaaaaaaaaaaaaaaaaaaa` }, mimeType, size } })
      }
      case 'com.atproto.repo.createRecord': {
        const session = this.auth(req, 'access')
        if (!session || session.pds !== origin) return xrpcErr(401, 'AuthenticationRequired', 'Authentication Required')
        if (this.createRecordStatus) return xrpcErr(this.createRecordStatus, 'InternalServerError', 'Internal Server Error')
        const body = (await req.json()) as { repo: string; collection: string; record: Record<string, unknown> }
        const problems = validateInput('com.atproto.repo.createRecord', body)
        if (body.repo !== session.did) problems.push('/repo is not the session account')
        if (body.record?.$type !== body.collection) problems.push('/record/$type must equal the collection')
        if (body.collection === 'app.bsky.feed.post') problems.push(...validateLexicon('app.bsky.feed.post', body.record).map((p) => `/record${p}`))
        problems.push(...this.facetProblems(body.record))
        if (problems.length) return xrpcErr(400, 'InvalidRequest', `Invalid app.bsky.feed.post record: ${problems.join('; ')}`)
        const rkey = `3l${(++this.counter).toString().padStart(11, '0')}`
        this.records.push({ pds: origin, did: session.did, rkey, record: body.record })
        const uri = `at://${session.did}/${body.collection}/${rkey}`
        return json({ uri, cid: `bafyreipost${rkey}aaaaaaaaaaaaaaaaaaaaaaaaaaaa`, commit: { cid: 'bafyreicommitaaaaaaaaaaaaaaaaa', rev: rkey }, validationStatus: 'valid' })
      }
      case 'com.atproto.server.deleteSession': {
        const session = this.auth(req, 'refresh')
        if (!session) return xrpcErr(401, 'AuthenticationRequired', 'Authentication Required')
        this.loggedOut.push(session.did)
        for (const [token, s] of this.sessions) if (s.did === session.did) this.sessions.delete(token)
        return new Response(null, { status: 200 })
      }
      default:
        return xrpcErr(501, 'MethodNotImplemented', `Method Not Implemented: ${nsid}`)
    }
  }

  /** Facet ranges must lie inside the text and not overlap (what the app view relies on). */
  private facetProblems(record: Record<string, unknown>): string[] {
    const facets = (record?.facets ?? []) as { index: { byteStart: number; byteEnd: number } }[]
    const length = new TextEncoder().encode(String(record?.text ?? '')).byteLength
    const problems: string[] = []
    let lastEnd = 0
    for (const f of [...facets].sort((a, b) => a.index.byteStart - b.index.byteStart)) {
      if (f.index.byteStart >= f.index.byteEnd || f.index.byteEnd > length) problems.push(`facet ${f.index.byteStart}-${f.index.byteEnd} is outside the text`)
      if (f.index.byteStart < lastEnd) problems.push(`facet ${f.index.byteStart}-${f.index.byteEnd} overlaps another`)
      lastEnd = f.index.byteEnd
    }
    return problems
  }
}

/** The substring of `text` a facet covers, by its UTF-8 byte range. */
export function facetText(text: string, index: { byteStart: number; byteEnd: number }): string {
  return new TextDecoder().decode(new TextEncoder().encode(text).slice(index.byteStart, index.byteEnd))
}
