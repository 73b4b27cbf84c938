import { toApiError } from '../http/map-error'
import { jsonSize } from '../lib/json-size'
import type { ActionContext } from '../runtime/context'
import { errorFields } from '../runtime/log'
import { readSection, writeSection } from './cache'
import { PROVIDERS } from './providers'
import { SECTION_NAMES, type ResearchInputs, type SectionName, type SectionOutcome, type SectionResult } from './types'

/** At most this many sections run at once: enough to overlap slow upstreams, few enough to be polite. */
const CONCURRENCY = 6

/**
 * Bytes of JSON one section's result takes at most. A section is a KV cache entry, a memoized step
 * and part of the report (a run's result, at most 25 MiB in KV): its data comes from upstreams and
 * pages a domain's owner writes, so one far larger than any real section (the fixture company's
 * report of all 16 is 14 KB, its largest section 2.3 KB) is left out whole, with a note, and a report
 * stays under 17 MiB.
 */
export const SECTION_MAX_BYTES = 1024 * 1024

/** A full report. */
export interface ResearchReport {
  domain: string
  generated_at: string
  sections: Partial<Record<SectionName, SectionResult>>
  summary: { ok: SectionName[]; unavailable: SectionName[]; error: SectionName[] }
  cache: { hits: SectionName[]; refreshed: boolean }
}

/** The selected sections plus every section they read from, in an order where inputs come first. */
export function plan(selected: SectionName[]): SectionName[][] {
  const needed = new Set<SectionName>()
  const visit = (s: SectionName) => {
    if (needed.has(s)) return
    needed.add(s)
    for (const d of PROVIDERS[s].after ?? []) visit(d)
  }
  selected.forEach(visit)
  const levels: SectionName[][] = []
  const placed = new Set<SectionName>()
  while (placed.size < needed.size) {
    const level = SECTION_NAMES.filter((s) => needed.has(s) && !placed.has(s) && (PROVIDERS[s].after ?? []).every((d) => !needed.has(d) || placed.has(d)))
    level.forEach((s) => placed.add(s))
    levels.push(level)
  }
  return levels
}

/** The reason a section cannot run here (a missing setting), or null. */
async function missingSetting(ctx: ActionContext, name: SectionName): Promise<string | null> {
  const check = PROVIDERS[name].missing
  return check ? await check(ctx) : null
}

/** True when every needed section is cached or cannot run for lack of a setting: the report then needs no fetching. */
export async function fullyCached(ctx: ActionContext, domain: string, selected: SectionName[]): Promise<boolean> {
  for (const s of plan(selected).flat()) {
    if ((await readSection(ctx.cache, ctx.account.id, domain, s)) === null && (await missingSetting(ctx, s)) === null) return false
  }
  return true
}

async function pool<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++])
    }),
  )
}

function failure(ctx: ActionContext, name: SectionName, err: unknown): SectionOutcome {
  if (err instanceof Error && err.name === 'NotConfiguredError') {
    return { status: 'unavailable', data: null, sources: [], note: `Not configured: set ${(err as Error & { setting: string }).setting}. ${err.message}`, cacheable: false }
  }
  const api = toApiError(err)
  if (!api) ctx.log.error('research section failed', { section: name, ...errorFields(err) })
  return { status: 'error', data: null, sources: [], note: api ? api.message : `The ${name} section failed unexpectedly (run ${ctx.runId}).`, cacheable: false }
}

/** Runs one section: cache, missing settings, the provider; never throws. */
async function runSection(inputs: ResearchInputs, name: SectionName, forceRefresh: boolean): Promise<{ result: SectionResult; hit: boolean }> {
  const { ctx, domain } = inputs
  if (!forceRefresh) {
    const cached = await readSection(ctx.cache, ctx.account.id, domain, name)
    if (cached) return { result: { ...cached, cached: true }, hit: true }
  }
  const started = Date.now()
  const missing = await missingSetting(ctx, name)
  let outcome: SectionOutcome
  if (missing) outcome = { status: 'unavailable', data: null, sources: [], note: `Not configured: set ${missing}.`, cacheable: false }
  else {
    try {
      outcome = await PROVIDERS[name].run(inputs)
    } catch (err) {
      outcome = failure(ctx, name, err)
    }
  }
  const result: SectionResult = {
    status: outcome.status,
    data: outcome.data,
    sources: [...new Set(outcome.sources)],
    fetched_at: new Date().toISOString(),
    duration_ms: Date.now() - started,
    note: outcome.note ?? null,
    cached: false,
  }
  if (jsonSize(result, SECTION_MAX_BYTES) > SECTION_MAX_BYTES) return { result: leftOut(name, result), hit: false }
  // The cache outlives the run: kept scrubbed, like the run's own records.
  if (outcome.cacheable && outcome.status !== 'error') await writeSection(ctx.cache, ctx.account.id, domain, name, ctx.secrets.scrub(result), PROVIDERS[name].ttlSeconds)
  return { result, hit: false }
}

/** A section whose result came to more than SECTION_MAX_BYTES: an error naming the size, its sources kept. */
function leftOut(name: SectionName, result: SectionResult): SectionResult {
  return {
    ...result,
    status: 'error',
    data: null,
    sources: result.sources.slice(0, 20),
    note: `The ${name} section's data came to more than ${SECTION_MAX_BYTES} bytes of JSON, more than a section keeps, and was left out`,
  }
}

/** What the sections of one report share: its domain, the run, the finished sections, and loads made once (a page, a lookup). */
export function researchInputs(ctx: ActionContext, domain: string): ResearchInputs {
  const loads = new Map<string, Promise<unknown>>()
  return {
    domain,
    ctx,
    results: {},
    once<T>(key: string, load: () => Promise<T>): Promise<T> {
      if (!loads.has(key)) loads.set(key, load())
      return loads.get(key) as Promise<T>
    },
  }
}

/**
 * Builds the report: cached sections first, then the rest in dependency levels with bounded
 * concurrency. Each section is a memoized step, so a retried run does not repeat finished ones.
 */
export async function buildReport(ctx: ActionContext, domain: string, selected: SectionName[], forceRefresh: boolean): Promise<ResearchReport> {
  const inputs = researchInputs(ctx, domain)
  const hits: SectionName[] = []
  const levels = plan(selected)
  const total = levels.flat().length
  let done = 0
  for (const level of levels) {
    await pool(level, CONCURRENCY, async (name) => {
      const { result, hit } = await ctx.step(`section:${name}`, () => runSection(inputs, name, forceRefresh))
      inputs.results[name] = result
      if (hit) hits.push(name)
      done++
      if (ctx.queued) await ctx.progress({ sections_done: done, sections_total: total, last_section: name })
    })
  }
  const sections: Partial<Record<SectionName, SectionResult>> = {}
  const summary: ResearchReport['summary'] = { ok: [], unavailable: [], error: [] }
  for (const s of SECTION_NAMES) {
    if (!selected.includes(s)) continue
    const r = inputs.results[s]!
    sections[s] = r
    summary[r.status].push(s)
  }
  return { domain, generated_at: new Date().toISOString(), sections, summary, cache: { hits: hits.filter((h) => selected.includes(h)), refreshed: forceRefresh } }
}
