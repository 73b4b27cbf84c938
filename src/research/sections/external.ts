import { companyFacts, companyFactsUrl, lookupTickers, TICKERS_URL } from '../../providers/edgar/client'
import { annualFigures, padCik, publicFloat } from '../../providers/edgar/transform'
import { searchNews } from '../../providers/gdelt/client'
import { newsQuery } from '../../providers/gdelt/transform'
import { listJobs } from '../../providers/jobs/client'
import { findBoards, type JobPosting } from '../../providers/jobs/transform'
import { summarizeRanks, trancoRanks } from '../../providers/tranco/client'
import { stringValues, tickers } from '../../providers/wikidata/transform'
import { UpstreamError } from '../../providers/errors'
import { ldOfType } from '../html'
import { companyName, wikidataCompany } from '../shared'
import { feed, homepage, page } from '../site'
import { ok, unavailable, type SectionProvider } from '../types'

const HOUR = 3600
const DAY = 24 * HOUR

/**
 * Revenue, net income and margins from SEC EDGAR XBRL company facts. The company is matched only
 * through its Wikidata item (official website = the domain): its SEC CIK (P5531), else a ticker
 * (P249 on P414) looked up in the SEC ticker file. No name matching.
 */
export const financials: SectionProvider = {
  name: 'financials',
  ttlSeconds: 7 * DAY,
  missing: (ctx) => (ctx.config.contactEmail ? null : 'CONTACT_EMAIL'),
  async run(inputs) {
    const wd = await wikidataCompany(inputs)
    if (!wd.entity) return unavailable(`No Wikidata item lists ${inputs.domain} as its official website, so no SEC registrant can be matched.`, wd.sources)
    const sources = [...wd.sources]
    let cik = stringValues(wd.entity, 'P5531')[0] ?? null
    let via = 'Wikidata SEC CIK (P5531)'
    const symbols = cik ? [] : [...new Set(tickers(wd.entity).map((t) => t.ticker))]
    if (symbols.length) {
      const hit = await lookupTickers(inputs.ctx, symbols)
      sources.push(TICKERS_URL)
      if (hit) {
        cik = hit.cik
        via = `ticker ${hit.ticker} (Wikidata P249) in the SEC ticker file`
      }
    }
    if (!cik) return unavailable(`${inputs.domain} is not matched to an SEC registrant: its Wikidata item ${wd.entity.id} has no SEC CIK or US ticker (likely not a US public company).`, sources)
    const facts = await companyFacts(inputs.ctx, cik)
    sources.push(companyFactsUrl(cik))
    if (!facts) return unavailable(`SEC EDGAR has no XBRL company facts for CIK ${padCik(cik)}.`, sources)
    const years = annualFigures(facts)
    if (!years.length) return unavailable(`SEC EDGAR company facts for CIK ${padCik(cik)} hold no annual revenue or net income.`, sources)
    return ok(
      { company: facts.entityName, cik: padCik(cik), matched_via: via, currency: 'USD', annual: years, public_float: publicFloat(facts) },
      sources,
      'Figures are as filed in 10-K/20-F XBRL data. Market capitalization is not reported by EDGAR; public_float is the float the filer reported.',
    )
  },
}

/** Recent press coverage from GDELT plus the company's own blog/news feed. */
export const news: SectionProvider = {
  name: 'news',
  ttlSeconds: 6 * HOUR,
  async run(inputs) {
    const name = await companyName(inputs)
    const sources: string[] = []
    const notes: string[] = []
    let articles: Awaited<ReturnType<typeof searchNews>>['articles'] = []
    try {
      const res = await searchNews(inputs.ctx, newsQuery(name, inputs.domain))
      articles = res.articles
      sources.push(res.url)
    } catch (err) {
      notes.push(`GDELT news search failed: ${(err as Error).message}`)
    }
    let posts = null
    try {
      posts = await feed(inputs)
      if (posts) sources.push(posts.url)
    } catch (err) {
      notes.push(`The company feed could not be read: ${(err as Error).message}`)
    }
    if (!articles.length && !posts?.items.length) {
      if (notes.length && !sources.length) throw new UpstreamError('news sources', 'status', notes.join(' '))
      return unavailable(`No recent news found for ${name ?? inputs.domain}.${notes.length ? ' ' + notes.join(' ') : ''}`, sources, notes.length === 0)
    }
    return ok(
      { query: newsQuery(name, inputs.domain), articles, company_posts: posts?.items.slice(0, 20) ?? [] },
      sources,
      notes.join(' ') || 'Articles are matched by company name in GDELT coverage of the last three months.',
    )
  },
}

/** Popularity rank from the Tranco list: a rank, not a visit count. */
export const webTraffic: SectionProvider = {
  name: 'web_traffic',
  ttlSeconds: DAY,
  async run(inputs) {
    const { body, url } = await trancoRanks(inputs.ctx, inputs.domain)
    const ranks = summarizeRanks(body)
    if (!ranks) return unavailable(`${inputs.domain} is not in the Tranco top-sites list (about the top one million domains).`, [url])
    return ok(
      { metric: 'rank', provider: 'Tranco', latest_rank: ranks.latest.rank, latest_date: ranks.latest.date, best_rank: ranks.best, history: ranks.history, list_url: `https://tranco-list.eu/query` },
      [url],
      'Tranco ranks domains by popularity across several top-sites lists; it is a rank (1 = most popular), not a count of visits.',
    )
  },
}

/**
 * Job boards a report reads: a company links one or two, but the pages are the site's to write, and
 * each board linked is a request (with its retries) to a board API.
 */
export const MAX_JOB_BOARDS = 5

/**
 * Postings a report lists; `count` says how many were found. A board answers up to 5 MiB, and a
 * posting as listed takes 90 bytes or more even when the board sent `{}`: 1.7 million of them made a
 * section of 150 MB, past what KV stores, and failed the report.
 */
export const MAX_JOB_POSTINGS = 1000

/** Current postings from the Greenhouse, Lever or Ashby board linked from the careers page, or JobPosting JSON-LD. */
export const jobOpenings: SectionProvider = {
  name: 'job_openings',
  ttlSeconds: 12 * HOUR,
  async run(inputs) {
    const home = await homepage(inputs)
    const careers = await page(inputs, 'careers')
    const scanned = [home, ...(careers ? [careers] : [])]
    const linked = findBoards(scanned.flatMap((p) => [...p.links.map((l) => l.href), ...p.scripts]))
    const boards = linked.slice(0, MAX_JOB_BOARDS)
    const unread = linked.length > boards.length ? `${linked.length - boards.length} more job boards are linked from the site; only the first ${MAX_JOB_BOARDS} were read.` : null
    const sources = scanned.map((p) => p.url)
    const jobs: JobPosting[] = []
    const notes: string[] = []
    let found = 0
    for (const board of boards) {
      try {
        const got = await listJobs(inputs.ctx, board)
        found += got.jobs.length
        for (const job of got.jobs.slice(0, MAX_JOB_POSTINGS - jobs.length)) jobs.push(job)
        sources.push(got.url)
      } catch (err) {
        notes.push(`${board.kind} board "${board.token}" could not be read: ${(err as Error).message}`)
      }
    }
    for (const j of ldOfType(scanned, ['JobPosting'])) {
      found++
      if (jobs.length >= MAX_JOB_POSTINGS) continue
      const loc = (j.jobLocation as Record<string, unknown>)?.address as Record<string, unknown> | undefined
      jobs.push({
        title: String(j.title ?? ''),
        location: typeof loc?.addressLocality === 'string' ? loc.addressLocality : null,
        department: null,
        employment_type: typeof j.employmentType === 'string' ? j.employmentType : null,
        url: typeof j.url === 'string' ? j.url : (careers?.url ?? home.url),
        posted_at: typeof j.datePosted === 'string' ? j.datePosted : null,
        board: 'site',
      })
    }
    if (!boards.length && !jobs.length) return unavailable(`No Greenhouse, Lever or Ashby board or JobPosting data is linked from ${inputs.domain}'s careers page.`, sources)
    if (!jobs.length && notes.length) throw new UpstreamError('job boards', 'status', [...notes, unread].filter(Boolean).join(' '))
    const cut = found > jobs.length ? `${found} postings were found; the first ${jobs.length} are listed.` : null
    return ok({ boards, count: found, jobs }, sources, [...notes, unread, cut].filter(Boolean).join(' ') || null)
  },
}
