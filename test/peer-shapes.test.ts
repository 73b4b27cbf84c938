/**
 * Peers that answer with the wrong shape. Each provider's recorded (or, where there is no recording,
 * carefully built) answer is mutated (fields deleted, set to null, booleans, numbers from -1 to 1e308,
 * empty, numeric-looking and 20,000-character strings, empty, mixed and nested arrays and objects,
 * another field's value, or wrapped a level deeper) and read through the provider's client and pure
 * transform. Property: the reader returns a well-formed result (its declared shape, checked by a
 * schema) or throws the project's typed error (UpstreamError or ProviderError, a 502 or 4xx naming
 * the service), never a TypeError or RangeError, which would be a 500 (and a queued run retried).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { askAnthropicSearch } from '../src/providers/anthropic-search/client'
import { createRecord, createSession, uploadBlob, type Session } from '../src/providers/atproto/client'
import { pdsEndpoint, resolveHandle } from '../src/providers/atproto/identity'
import { getProfile } from '../src/providers/atproto/profile'
import { xrpcError } from '../src/providers/atproto/transform'
import { organizationByDomain } from '../src/providers/crunchbase/client'
import { fundingOf } from '../src/providers/crunchbase/transform'
import { rankedKeywordsFor } from '../src/providers/dataforseo/client'
import { rankedKeywords } from '../src/providers/dataforseo/transform'
import { resolve } from '../src/providers/dns/client'
import { companyFacts, lookupTickers } from '../src/providers/edgar/client'
import { annualFigures, publicFloat } from '../src/providers/edgar/transform'
import { searchNews } from '../src/providers/gdelt/client'
import { errorBodyOf, mapBatchError, mapHubSpotError, parseAssociationPage, parseObject, parseSearch, parseUpsert } from '../src/providers/hubspot/transform'
import { listJobs } from '../src/providers/jobs/client'
import { askOpenAiSearch } from '../src/providers/openai-search/client'
import { askPerplexity } from '../src/providers/perplexity/client'
import { summarizeRanks, trancoRanks } from '../src/providers/tranco/client'
import { findBusinessUnit, reviewSummary } from '../src/providers/trustpilot/client'
import type { GuardedFetch } from '../src/providers/web/fetch'
import { findCompany, getEntities } from '../src/providers/wikidata/client'
import { dateValue, entityValues, labelOf, latestQuantity, stringValues, tickers } from '../src/providers/wikidata/transform'
import { fetchTranscript } from '../src/providers/youtube/client'
import { buildMetadata, extractJsonAssignment } from '../src/providers/youtube/transform'
import type { ActionContext } from '../src/runtime/context'
import { dataForSeoProvider } from '../src/seo/keywords/dataforseo'
import { env } from 'cloudflare:test'
import { createEmbedder } from '../src/agents/embedder'
import { getAction } from '../src/actions/registry'
import { readConfig } from '../src/config'
import type { Env } from '../src/env'
import { getModel } from '../src/providers/llm'
import { createContext } from '../src/runtime/execute'
import { createLogger } from '../src/runtime/log'
import { mockFetch } from './helpers'
import { createFakeLlm } from './llm/fake-llm'
import anthropicError from './fixtures/anthropic-search/messages-search-error.json'
import anthropicAnswer from './fixtures/anthropic-search/messages-web-search.json'
import bskyProfile from './fixtures/bluesky/profile.json'
import cbAutocomplete from './fixtures/crunchbase/autocomplete.json'
import cbOrganization from './fixtures/crunchbase/organization.json'
import rankedKeywordsAnswer from './fixtures/dataforseo/ranked_keywords.json'
import dfsIdeas from './fixtures/dataforseo-keywords/keyword_ideas.json'
import dfsRanked from './fixtures/dataforseo-keywords/ranked_keywords.json'
import dfsSerp from './fixtures/dataforseo-keywords/serp.json'
import dnsMx from './fixtures/dns/mx.json'
import dnsTxt from './fixtures/dns/txt.json'
import tickerFile from './fixtures/edgar/company_tickers.json'
import edgarFacts from './fixtures/edgar/companyfacts.json'
import artlist from './fixtures/gdelt/artlist.json'
import hsAssociations from './fixtures/hubspot/associations-page.json'
import hsContact from './fixtures/hubspot/contact.json'
import hsExpired from './fixtures/hubspot/error-expired.json'
import hsScopes from './fixtures/hubspot/error-missing-scopes.json'
import hsValidation from './fixtures/hubspot/error-validation.json'
import hsSearch from './fixtures/hubspot/search-companies-two.json'
import hsUpsert from './fixtures/hubspot/upsert-created.json'
import ashby from './fixtures/jobs/ashby.json'
import greenhouse from './fixtures/jobs/greenhouse.json'
import lever from './fixtures/jobs/lever.json'
import openAiAnswer from './fixtures/openai-search/responses-web-search.json'
import perplexityAnswer from './fixtures/perplexity/sonar-answer.json'
import trancoAnswer from './fixtures/tranco/ranks.json'
import trustpilotAnswer from './fixtures/trustpilot/find.json'
import wdEntities from './fixtures/wikidata/entities.json'
import wdLabels from './fixtures/wikidata/labels.json'
import wdSparql from './fixtures/wikidata/sparql.json'
import { crashOf, jsonResponse, mutate, mutations, type Json, type Mutation } from './peer-shapes'
import { VIDEO_ID, yt } from './youtube/fixtures'

const DOMAIN = 'acmerobotics.example'
const RUNS = 300

/** A context whose guarded fetch is the fake peer: the clients only use `fetch`, `env` and `config`. */
function peerCtx(answer: (url: string) => Response): ActionContext {
  return {
    env: { DATAFORSEO_LOGIN: 'l', DATAFORSEO_PASSWORD: 'p', TRUSTPILOT_API_KEY: 'k', CRUNCHBASE_API_KEY: 'k' },
    config: { contactEmail: 'research@acme.test' },
    fetch: async (url: string) => answer(url),
  } as unknown as ActionContext
}

const ACCESS = { apiKey: 'k', baseUrl: 'https://engine.test/v1', model: 'm', keySource: 'server' }

const str = z.string()
const num = z.number()
const nstr = str.nullable()
const nnum = num.nullable()
const answer = z.object({ text: str, cited: z.array(str), sources: z.array(str), model: nstr })

/** One provider answer to mutate, and the read it goes through. */
interface ShapeCase {
  name: string
  payload: Json
  read: (mutated: Json) => unknown
  schema?: z.ZodType
  runs?: number
}

const SESSION: Session = { pds: 'https://pds.test', did: 'did:plc:abc', handle: 'a.test', accessJwt: 'access', refreshJwt: 'refresh' }
const fakePeer = (payload: Json, status = 200) => (async () => jsonResponse(payload, status)) as unknown as GuardedFetch

const player = JSON.parse(yt.innertube.ok)
/** The parts of the player answer the transcript reads (the rest is 190 KB the reader never looks at). */
const playerRead = { playabilityStatus: player.playabilityStatus, captions: player.captions, videoDetails: player.videoDetails, microformat: player.microformat }
const watchPlayer = extractJsonAssignment(yt.watchHtml, 'ytInitialPlayerResponse')
const watchPlayerRead = { videoDetails: watchPlayer.videoDetails, microformat: watchPlayer.microformat }
const initialData = extractJsonAssignment(yt.watchHtml, 'ytInitialData')

function youtubePeer(playerAnswer: Json): GuardedFetch {
  return (async (url: string) => {
    if (url.startsWith('https://www.youtube.com/watch')) return new Response(yt.watchHtml, { headers: { 'content-type': 'text/html' } })
    if (url.startsWith('https://www.youtube.com/youtubei/v1/player')) return jsonResponse(playerAnswer)
    if (url.startsWith('https://www.youtube.com/api/timedtext')) return new Response(yt.transcriptXml, { headers: { 'content-type': 'text/xml' } })
    return new Response('not found', { status: 404 })
  }) as unknown as GuardedFetch
}

const cue = z.object({ start: num, duration: num, text: str })
const metadata = z.object({
  author: str,
  category: nstr,
  channel_id: str,
  channel_link: nstr,
  channel_name: str,
  description: str,
  id: str,
  key_moments: z.array(z.object({ title: str, start_seconds: num, time: str })),
  length_seconds: nnum,
  likes: nnum,
  published_time: nstr,
  thumbnail: nstr,
  title: str,
  views: nnum,
  transcript_language: str,
  transcript_source: z.enum(['manual', 'generated', 'translated']),
})

const posting = z.object({ title: str, location: nstr, department: nstr, employment_type: nstr, url: str, posted_at: nstr, board: str })
const jobs = z.object({ jobs: z.array(posting), url: str })

const wikidataFacts = z.object({
  cik: z.array(str),
  tickers: z.array(z.object({ ticker: str, exchange: nstr })),
  founded: nstr,
  employees: z.object({ value: num, as_of: nstr }).nullable(),
  label: nstr,
  refs: z.array(str),
})

/** What the research reads of a Wikidata item. */
function readEntity(entity: Parameters<typeof stringValues>[0] | null) {
  if (!entity) return null
  return {
    cik: stringValues(entity, 'P5531'),
    tickers: tickers(entity),
    founded: dateValue(entity, 'P571'),
    employees: latestQuantity(entity, 'P1128'),
    label: labelOf(entity),
    refs: ['P159', 'P452', 'P169', 'P112', 'P414', 'P17'].flatMap((p) => entityValues(entity, p)),
  }
}

const hubspotObject = z.object({ id: str, properties: z.record(str, nstr), createdAt: str, updatedAt: str, archived: z.boolean() })
const CALL = { objectType: 'contacts', operation: 'read' as const, notFound: 'Contact not found', field: 'properties' as const }

/** Turns an error value a mapper returns into a throw, so the check sees it as the HTTP layer would. */
function thrown(err: Error): never {
  throw err
}

const CASES: ShapeCase[] = [
  {
    name: 'Perplexity answer',
    payload: perplexityAnswer,
    read: (p) =>
      askPerplexity(
        peerCtx(() => jsonResponse(p)),
        ACCESS,
        'q',
      ),
    schema: answer,
  },
  {
    name: 'OpenAI web search answer',
    payload: openAiAnswer,
    read: (p) =>
      askOpenAiSearch(
        peerCtx(() => jsonResponse(p)),
        ACCESS,
        'q',
      ),
    schema: answer,
  },
  {
    name: 'Anthropic web search answer',
    payload: anthropicAnswer,
    read: (p) =>
      askAnthropicSearch(
        peerCtx(() => jsonResponse(p)),
        ACCESS,
        'q',
      ),
    schema: answer.extend({ errors: z.array(str) }),
  },
  {
    name: 'Anthropic web search error answer',
    payload: anthropicError,
    read: (p) =>
      askAnthropicSearch(
        peerCtx(() => jsonResponse(p)),
        ACCESS,
        'q',
      ),
    schema: answer.extend({ errors: z.array(str) }),
  },
  ...(['autocomplete', 'organization'] as const).map((which): ShapeCase => ({
    name: `Crunchbase ${which}`,
    payload: which === 'autocomplete' ? cbAutocomplete : cbOrganization,
    read: async (p) => {
      const ctx = peerCtx((url) => jsonResponse(url.includes('/autocompletes') === (which === 'autocomplete') ? p : which === 'autocomplete' ? cbOrganization : cbAutocomplete))
      const { org, sources } = await organizationByDomain(ctx, DOMAIN)
      return { sources, org: org && { name: org.properties.identifier.value, permalink: org.properties.identifier.permalink, ...fundingOf(org) } }
    },
    schema: z.object({
      sources: z.array(str),
      org: z
        .object({
          name: str,
          permalink: str,
          total_usd: nnum,
          round_count: nnum,
          last_type: nstr,
          rounds: z.array(z.object({ name: str, announced_on: nstr, type: nstr, amount_usd: nnum, amount: nnum, currency: nstr, investor_count: nnum, lead_investors: z.array(str) })),
        })
        .nullable(),
    }),
  })),
  {
    name: 'DataForSEO ranked keywords (research)',
    payload: rankedKeywordsAnswer,
    read: async (p) =>
      rankedKeywords(
        await rankedKeywordsFor(
          peerCtx(() => jsonResponse(p)),
          DOMAIN,
        ),
      ),
    schema: z.object({
      total: nnum,
      organic_count: nnum,
      paid_count: nnum,
      organic_etv: nnum,
      keywords: z.array(z.object({ keyword: str, search_volume: nnum, cpc_usd: nnum, competition: nnum, competition_level: nstr, type: str, position: nnum, url: nstr, estimated_traffic: nnum })),
    }),
  },
  {
    name: 'DataForSEO keyword ideas (SEO)',
    payload: dfsIdeas,
    read: (p) =>
      dataForSeoProvider.ideas(
        peerCtx(() => jsonResponse(p)),
        'robots',
        10,
      ),
    schema: z.array(z.object({ keyword: str, search_volume: nnum, keyword_difficulty: nnum, cpc_usd: nnum, competition: nnum, intent: nstr })),
  },
  {
    name: 'DataForSEO ranked keywords (SEO)',
    payload: dfsRanked,
    read: (p) =>
      dataForSeoProvider.rankings(
        peerCtx(() => jsonResponse(p)),
        DOMAIN,
        10,
      ),
    schema: z.array(z.object({ keyword: str, position: nnum, url: nstr })),
  },
  {
    name: 'DataForSEO SERP (SEO)',
    payload: dfsSerp,
    read: (p) =>
      dataForSeoProvider.serp(
        peerCtx(() => jsonResponse(p)),
        'robots',
        10,
      ),
    schema: z.object({ keyword: str, results: z.array(z.object({ position: num, url: str, title: nstr })) }),
  },
  ...(
    [
      ['MX', dnsMx],
      ['TXT', dnsTxt],
    ] as const
  ).map(([type, payload]): ShapeCase => ({
    name: `DNS over HTTPS ${type} answer`,
    payload,
    read: (p) =>
      resolve(
        peerCtx(() => jsonResponse(p)),
        DOMAIN,
        type,
      ),
    schema: z.object({ records: z.array(str), url: str }),
  })),
  {
    name: 'GDELT article list',
    payload: artlist,
    read: (p) =>
      searchNews(
        peerCtx(() => jsonResponse(p)),
        '"Acme Robotics"',
      ),
    schema: z.object({ articles: z.array(z.object({ title: str, url: str, source: str, published_at: nstr, language: str, country: str })), url: str }),
  },
  {
    name: 'Tranco ranks',
    payload: trancoAnswer,
    read: async (p) =>
      summarizeRanks(
        (
          await trancoRanks(
            peerCtx(() => jsonResponse(p)),
            DOMAIN,
          )
        ).body,
      ),
    schema: z.object({ latest: z.object({ date: str, rank: num }), best: num, history: z.array(z.object({ date: str, rank: num })) }).nullable(),
  },
  {
    name: 'Trustpilot business unit',
    payload: trustpilotAnswer,
    read: async (p) => {
      const { unit } = await findBusinessUnit(
        peerCtx(() => jsonResponse(p)),
        DOMAIN,
      )
      return unit && reviewSummary(unit)
    },
    schema: z
      .object({
        site: str,
        name: str,
        trust_score: nnum,
        stars: nnum,
        review_count: nnum,
        distribution: z.record(str, nnum),
        profile_url: nstr,
      })
      .nullable(),
  },
  {
    name: 'SEC EDGAR ticker file',
    payload: tickerFile,
    read: (p) =>
      lookupTickers(
        peerCtx(() => jsonResponse(p)),
        ['ACME', 'AAPL'],
      ),
    schema: z.object({ ticker: str, cik: str, title: str }).nullable(),
  },
  {
    name: 'SEC EDGAR company facts',
    payload: edgarFacts,
    read: async (p) => {
      const facts = await companyFacts(
        peerCtx(() => jsonResponse(p)),
        '9990001',
      )
      return facts && { company: facts.entityName, annual: annualFigures(facts), public_float: publicFloat(facts) }
    },
    schema: z
      .object({
        company: str,
        annual: z.array(
          z.object({
            fiscal_year: num,
            period_end: str,
            form: str,
            filed: str,
            accession: str,
            revenue_usd: nnum,
            net_income_usd: nnum,
            operating_income_usd: nnum,
            gross_profit_usd: nnum,
            gross_margin: nnum,
            operating_margin: nnum,
            net_margin: nnum,
          }),
        ),
        public_float: z.object({ value_usd: num, as_of: str }).nullable(),
      })
      .nullable(),
  },
  ...(
    [
      ['greenhouse', greenhouse],
      ['lever', lever],
      ['ashby', ashby],
    ] as const
  ).map(([kind, payload]): ShapeCase => ({
    name: `${kind} job board`,
    payload,
    read: (p) =>
      listJobs(
        peerCtx(() => jsonResponse(p)),
        { kind, token: 'acme' },
      ),
    schema: jobs,
  })),
  ...(
    [
      ['Wikidata SPARQL result', wdSparql, (p: Json) => (url: string) => (url.startsWith('https://query.wikidata.org') ? p : wdEntities)],
      ['Wikidata entities', wdEntities, (p: Json) => (url: string) => (url.startsWith('https://query.wikidata.org') ? wdSparql : p)],
    ] as const
  ).map(([name, payload, answers]) => ({
    name,
    payload,
    read: async (p: Json) =>
      readEntity(
        (
          await findCompany(
            peerCtx((url) => jsonResponse(answers(p)(url))),
            DOMAIN,
          )
        ).entity,
      ),
    schema: wikidataFacts.nullable(),
  })),
  {
    name: 'Wikidata labels',
    payload: wdLabels,
    read: async (p) => {
      const { entities } = await getEntities(
        peerCtx(() => jsonResponse(p)),
        ['Q62', 'Q11012', 'Q999002'],
        'labels|claims',
      )
      return ['Q62', 'Q11012', 'Q999002'].map((id) => labelOf(entities[id]))
    },
    schema: z.array(nstr),
  },
  {
    name: 'Bluesky profile',
    payload: bskyProfile,
    read: async (p) =>
      (
        await getProfile(
          peerCtx(() => jsonResponse(p)),
          DOMAIN,
        )
      ).profile,
    schema: z.object({ handle: str, followersCount: num.optional(), postsCount: num.optional() }).nullable(),
  },
  { name: 'HubSpot object', payload: hsContact, read: (p) => parseObject(p), schema: hubspotObject },
  { name: 'HubSpot search', payload: hsSearch, read: (p) => parseSearch(p), schema: z.object({ total: num, results: z.array(hubspotObject) }) },
  { name: 'HubSpot associations page', payload: hsAssociations, read: (p) => parseAssociationPage(p), schema: z.object({ ids: z.array(str), after: str.optional() }) },
  {
    name: 'HubSpot batch upsert',
    payload: hsUpsert,
    read: (p) => {
      const r = parseUpsert(p)
      return 'error' in r ? thrown(mapBatchError(r.error, CALL)) : r
    },
    schema: z.object({ object: hubspotObject, created: z.boolean() }),
  },
  ...(
    [
      [401, hsExpired],
      [403, hsScopes],
      [400, hsValidation],
      [409, hsValidation],
      [429, hsExpired],
      [500, hsValidation],
    ] as const
  ).map(([status, payload]): ShapeCase => ({
    name: `HubSpot ${status} error body`,
    payload,
    read: (p) => thrown(mapHubSpotError(status, errorBodyOf(JSON.stringify(p ?? null)), CALL)),
  })),
  {
    name: 'AT Protocol createSession',
    payload: {
      did: 'did:plc:abc',
      didDoc: { id: 'did:plc:abc', service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: 'https://pds.test' }] },
      handle: 'a.test',
      email: 'a@a.test',
      accessJwt: 'access',
      refreshJwt: 'refresh',
    },
    read: (p) => createSession(fakePeer(p), 'https://bsky.test', 'a.test', 'pw'),
    schema: z.object({ pds: str, did: str, handle: str, accessJwt: str, refreshJwt: str }),
  },
  {
    name: 'AT Protocol createRecord',
    payload: { uri: 'at://did:plc:abc/app.bsky.feed.post/3k', cid: 'bafyrei', commit: { cid: 'bafy', rev: '3k' }, validationStatus: 'valid' },
    read: (p) => createRecord(fakePeer(p), SESSION, 'app.bsky.feed.post', { text: 'hi' }),
    schema: z.object({ uri: str, cid: str }),
  },
  {
    name: 'AT Protocol uploadBlob',
    payload: { blob: { $type: 'blob', ref: { $link: 'bafkreiblob' }, mimeType: 'image/png', size: 68 } },
    read: (p) => uploadBlob(fakePeer(p), SESSION, new ArrayBuffer(4), 'image/png'),
    schema: z.object({ $type: z.literal('blob'), ref: z.object({ $link: str }), mimeType: str, size: num }),
  },
  {
    name: 'AT Protocol XRPC error body',
    payload: { error: 'InvalidRequest', message: 'Record/text must not be longer than 300 graphemes' },
    read: (p) => thrown(xrpcError('post', 400, p, new Headers(), ['access'])),
  },
  {
    name: 'AT Protocol resolveHandle',
    payload: { did: 'did:plc:abc' },
    read: (p) => resolveHandle(fakePeer(p), { pdsUrl: 'https://pds.test', plcUrl: 'https://plc.test', dohUrl: 'https://doh.test/dns-query' }, 'a.test'),
    schema: nstr,
  },
  {
    name: 'AT Protocol handle TXT record over DoH',
    payload: { Status: 0, Answer: [{ name: '_atproto.a.test', type: 16, TTL: 300, data: '"did=did:plc:abc"' }] },
    read: (p) =>
      resolveHandle(
        (async (url: string) => (url.startsWith('https://doh.test') ? jsonResponse(p) : new Response('no', { status: 404 }))) as unknown as GuardedFetch,
        { pdsUrl: 'https://pds.test', plcUrl: 'https://plc.test', dohUrl: 'https://doh.test/dns-query' },
        'a.test',
      ),
    schema: nstr,
  },
  {
    name: 'AT Protocol DID document',
    payload: { id: 'did:plc:abc', service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: 'https://pds.test' }] },
    read: (p) => pdsEndpoint(p),
    schema: nstr,
  },
  {
    name: 'YouTube InnerTube player',
    payload: playerRead,
    read: async (p) => {
      const t = await fetchTranscript(youtubePeer(p), VIDEO_ID, undefined)
      return { metadata: t.metadata, cues: t.cues, text: t.text }
    },
    schema: z.object({ metadata, cues: z.array(cue), text: str }),
  },
  {
    name: 'YouTube watch page player response',
    payload: watchPlayerRead,
    read: (p) =>
      buildMetadata({
        videoId: VIDEO_ID,
        player: playerRead,
        watchPlayer: p,
        initialData,
        choice: { track: { baseUrl: '/api/timedtext?v=x', languageCode: 'en', name: 'English', generated: false, translatable: true }, translateTo: null },
      }),
    schema: metadata,
  },
  {
    name: 'YouTube watch page initial data',
    payload: initialData,
    read: (p) =>
      buildMetadata({
        videoId: VIDEO_ID,
        player: playerRead,
        watchPlayer,
        initialData: p,
        choice: { track: { baseUrl: '/api/timedtext?v=x', languageCode: 'en', name: 'English', generated: false, translatable: true }, translateTo: null },
      }),
    schema: metadata,
    runs: 60,
  },
  {
    name: 'OpenAI-compatible embeddings',
    payload: {
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.1, -0.2, 0.3] },
        { object: 'embedding', index: 1, embedding: [0.3, 0.2, 0.1] },
      ],
      model: 'm',
      usage: { prompt_tokens: 4, total_tokens: 4 },
    },
    read: (p) => createEmbedder({ SEARCH_EMBEDDER: 'openai', SEARCH_EMBEDDING_BASE_URL: 'https://embed.test/v1' } as Env, fakePeer(p))!.embed(['a', 'b']),
    schema: z.array(z.instanceof(Float32Array)).length(2),
  },
  {
    name: 'Workers AI embeddings',
    payload: {
      shape: [2, 3],
      data: [
        [0.1, -0.2, 0.3],
        [0.3, 0.2, 0.1],
      ],
      pooling: 'mean',
    },
    read: (p) => createEmbedder({ SEARCH_EMBEDDER: 'workers-ai', AI: { run: async () => p } as unknown as Ai } as Env, fakePeer(null))!.embed(['a', 'b']),
    schema: z.array(z.instanceof(Float32Array)).length(2),
  },
]

const set = (path: (string | number)[], value: Json): Mutation => ({ path, op: 'set', value })
const ROOT_NULL = [set([], null)]

/**
 * Counterexamples the property found on the code before the readers checked shapes (each was a
 * TypeError, a 500, or a result of the wrong shape), kept as examples so they are checked on every run.
 */
const FOUND: [string, Mutation[]][] = [
  ['Perplexity answer', [set(['search_results'], {})]],
  ['Perplexity answer', [set(['search_results', 0], null)]],
  ['Perplexity answer', [set(['choices', 0, 'message', 'content'], 0)]],
  ['OpenAI web search answer', ROOT_NULL],
  ['OpenAI web search answer', [set(['output'], 0)]],
  ['Anthropic web search answer', [set(['content', 0], null)]],
  ['Anthropic web search error answer', [set(['content'], -1)]],
  ['Crunchbase autocomplete', [set(['entities'], {})]],
  ['Crunchbase organization', [{ path: ['properties'], op: 'delete' }]],
  ['Crunchbase organization', [set(['cards', 'raised_funding_rounds', 0, 'lead_investor_identifiers'], {})]],
  ['Crunchbase organization', [set(['cards', 'raised_funding_rounds', 1, 'announced_on'], 0)]],
  ['DataForSEO ranked keywords (research)', [{ path: ['tasks', 0, 'result', 0, 'items', 0, 'keyword_data'], op: 'delete' }]],
  ['DataForSEO ranked keywords (research)', [set(['tasks', 0, 'result', 0, 'items'], {})]],
  ['DataForSEO keyword ideas (SEO)', [set(['tasks', 0, 'result', 0, 'items'], {})]],
  ['DataForSEO ranked keywords (SEO)', [set(['tasks', 0, 'result', 0, 'items'], true)]],
  ['DataForSEO SERP (SEO)', [set(['tasks', 0, 'result', 0, 'items'], 1.5)]],
  ['DNS over HTTPS MX answer', ROOT_NULL],
  ['DNS over HTTPS MX answer', [set(['Answer', 0, 'data'], null)]],
  ['DNS over HTTPS TXT answer', [set(['Answer'], {})]],
  ['GDELT article list', [{ path: ['articles', 1, 'domain'], op: 'delete' }]],
  ['Tranco ranks', [set(['ranks', 0, 'date'], null)]],
  ['Tranco ranks', [set(['ranks'], 0)]],
  ['Trustpilot business unit', [set(['displayName'], 0)]],
  ['SEC EDGAR ticker file', [set(['1', 'title'], 0)]],
  ['SEC EDGAR company facts', [{ path: ['facts'], op: 'delete' }]],
  ['SEC EDGAR company facts', [set(['facts', 'dei', 'EntityPublicFloat', 'units', 'USD', 0, 'end'], null)]],
  ['greenhouse job board', [set(['jobs'], {})]],
  ['lever job board', [set([0], null)]],
  ['ashby job board', [set(['jobs'], 'not the expected text')]],
  ['Wikidata SPARQL result', [set(['results'], null)]],
  ['Wikidata SPARQL result', [set(['results', 'bindings', 0, 'item', 'value'], 0)]],
  ['Wikidata entities', [set(['entities', 'Q999001', 'claims', 'P571', 0], null)]],
  ['Wikidata entities', [set(['entities', 'Q999001', 'claims', 'P856'], {})]],
  ['Wikidata labels', ROOT_NULL],
  ['Bluesky profile', [set(['followersCount'], 'not the expected text')]],
  ['HubSpot associations page', [set(['results', 0], null)]],
  ['HubSpot batch upsert', [set(['errors'], [null])]],
  ['HubSpot 401 error body', [set(['message'], 0)]],
  ['HubSpot 403 error body', [set(['errors'], {})]],
  ['HubSpot 403 error body', [set(['errors', 0], null)]],
  ['AT Protocol createSession', ROOT_NULL],
  ['AT Protocol createRecord', ROOT_NULL],
  ['AT Protocol uploadBlob', ROOT_NULL],
  ['AT Protocol handle TXT record over DoH', [set(['Answer'], {})]],
  ['YouTube InnerTube player', [set(['captions', 'playerCaptionsTracklistRenderer', 'translationLanguages'], {})]],
  ['YouTube InnerTube player', [set(['captions', 'playerCaptionsTracklistRenderer', 'captionTracks'], [{}])]],
  ['OpenAI-compatible embeddings', ROOT_NULL],
  ['OpenAI-compatible embeddings', [{ path: [], op: 'delete' }]],
  ['OpenAI-compatible embeddings', [set(['data', 0, 'embedding'], [null])]],
  ['Workers AI embeddings', ROOT_NULL],
  ['Workers AI embeddings', [set(['data'], [[1, 2]])]],
]

/** A structured model call through the AI SDK, its HTTP answers served by `answer`. */
async function modelCall(model: 'gpt-5.4-nano' | 'claude-haiku-4-5', answer: (req: Request) => Response | Promise<Response>) {
  mockFetch(answer)
  const e = { ...env, OPENAI_API_KEY: 'sk-test-openai', ANTHROPIC_API_KEY: 'sk-ant-test' } as Env
  const ctx = createContext(
    { env: e, config: readConfig(e), log: createLogger({ test: 'peer-shapes' }), actions: getAction, waitUntil: () => undefined },
    { account: { id: 'acct_peer_shapes', teamIds: [] }, requestId: 'req_peer_shapes', workflowId: null, signal: new AbortController().signal },
    'run_peer_shapes',
    false,
  )
  const service = await getModel(ctx, model)
  const { object } = await service.generateObject({ schema: z.object({ summary: z.string() }), name: 'summary', system: 'Summarize.', prompt: 'A text.' })
  return object
}

describe('peers that answer with the wrong shape', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s: a mutated answer reads as a result of its shape or a typed upstream error', async (_name, c) => {
    const crashes = new Map<string, string>()
    await fc.assert(
      fc.asyncProperty(mutations(c.payload), async (ms) => {
        const crash = await crashOf(() => c.read(mutate(c.payload, ms)), c.schema)
        if (crash && !crashes.has(crash)) crashes.set(crash, JSON.stringify(ms).slice(0, 400))
      }),
      { numRuns: c.runs ?? RUNS },
    )
    expect([...crashes].map(([crash, ms]) => `${crash} <- ${ms}`)).toEqual([])
  })

  it.each(['gpt-5.4-nano', 'claude-haiku-4-5'] as const)('%s: a mutated model answer reads as the requested object or a typed upstream error', async (model) => {
    const fake = createFakeLlm()
    let recorded: Json = null
    await modelCall(model, async (req) => {
      const res = (await fake.handle(req))!
      recorded = await res.clone().json()
      return res
    })
    expect(recorded).not.toBeNull()
    const crashes = new Map<string, string>()
    await fc.assert(
      fc.asyncProperty(mutations(recorded), async (ms) => {
        const crash = await crashOf(() => modelCall(model, () => jsonResponse(mutate(recorded, ms))), z.object({ summary: str }))
        if (crash && !crashes.has(crash)) crashes.set(crash, JSON.stringify(ms).slice(0, 400))
      }),
      { numRuns: 150 },
    )
    expect([...crashes].map(([crash, ms]) => `${crash} <- ${ms}`)).toEqual([])
  })

  it.each(FOUND.map(([name, ms]) => [name, JSON.stringify(ms), ms] as const))('%s answering %s reads as a result of its shape or a typed upstream error', async (name, _text, ms) => {
    const c = CASES.find((x) => x.name === name)!
    expect(await crashOf(() => c.read(mutate(c.payload, ms)), c.schema)).toBeNull()
  })

  // A typed error passes the mutation properties; a recorded answer as it came must be read as a
  // result, not refused (only the recorded error answers are errors), and not read as nothing.
  it('reads every recorded answer unchanged as a result', async () => {
    for (const c of CASES) {
      let out: unknown
      try {
        out = await c.read(structuredClone(c.payload))
      } catch (err) {
        expect(c.name, `${c.name}: ${String(err)}`).toMatch(/error/i)
        continue
      }
      expect(out, c.name).not.toBeNull()
      expect(out, c.name).not.toBeUndefined()
      expect(await crashOf(() => out, c.schema), c.name).toBeNull()
    }
  })
})
