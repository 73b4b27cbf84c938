import { z } from 'zod'
import { isModelConfigured } from '../../providers/llm'
import { screenshotMissing, takeScreenshot } from '../../providers/screenshot/client'
import { putArtifact } from '../artifacts'
import { companyName } from '../shared'
import { timelineSvg, type Milestone } from '../timeline'
import { ok, unavailable, type SectionName, type SectionProvider } from '../types'
import { MODEL_SETTINGS, writeWithModel } from './model'

const DAY = 86_400

const Competitors = z.object({
  competitors: z
    .array(
      z.object({
        name: z.string().describe('Competitor company name'),
        domain: z.string().nullable().describe('Its website domain when the material names it, else null'),
        differentiation: z.string().describe('How the researched company differs from it, grounded in the material'),
        cited_sections: z.array(z.string()).describe('Report sections (material keys) this entry was written from'),
      }),
    )
    .max(8),
  caveat: z.string().describe('What the material could not support'),
})

const INPUTS: SectionName[] = ['company_overview', 'product_summary', 'search_keywords', 'technology_stack']

/** Model-written competitor analysis grounded in the other sections' data, citing them. */
export const competitors: SectionProvider = {
  name: 'competitors',
  ttlSeconds: 7 * DAY,
  after: ['company_overview', 'product_summary'],
  missing: async (ctx) => ((await isModelConfigured(ctx)) ? null : MODEL_SETTINGS),
  async run(inputs) {
    const material: Record<string, unknown> = {}
    const sources: string[] = []
    for (const s of INPUTS) {
      const r = inputs.results[s]
      if (r?.status === 'ok') {
        material[s] = r.data
        sources.push(...r.sources)
      }
    }
    if (!Object.keys(material).length) return unavailable('Competitors are written from the overview and product sections, and neither has data.', [], false)
    const written = await writeWithModel(inputs, 'quality', {
      schema: Competitors,
      name: 'competitors',
      task: `List the main competitors of ${inputs.domain} and how it differs from each. Name only companies the material supports (named in it, or a direct category peer of the products it describes), and cite the sections used.`,
      material,
    })
    // The model's own typed failure (an answer of the wrong shape is a 502 naming the vendor), not a
    // plain Error made of its note, which the report could only log and show as an unexpected failure.
    if (!written.object) throw written.error ?? new Error(written.note ?? 'The model wrote nothing')
    return ok({ ...written.object, written_from: Object.keys(material), model: written.model }, sources, 'Model-written from the cited report sections; verify before relying on it.')
  },
}

/** Dated milestones from the other sections, drawn as an SVG infographic stored for the account. */
export const visualTimeline: SectionProvider = {
  name: 'visual_timeline',
  ttlSeconds: 7 * DAY,
  after: ['company_overview', 'funding_history', 'financials', 'news'],
  async run(inputs) {
    const r = inputs.results
    const milestones: Milestone[] = []
    const overview = r.company_overview?.status === 'ok' ? (r.company_overview.data as { founded?: { value: string; source: string } | null }) : null
    if (overview?.founded) milestones.push({ date: overview.founded.value, label: 'Founded', kind: 'founding', source: overview.founded.source })
    const funding =
      r.funding_history?.status === 'ok' ? (r.funding_history.data as { rounds: { name: string; announced_on: string | null; amount_usd: number | null }[]; crunchbase_url: string }) : null
    for (const round of funding?.rounds ?? []) {
      if (round.announced_on)
        milestones.push({
          date: round.announced_on,
          label: round.amount_usd ? `${round.name} ($${(round.amount_usd / 1e6).toFixed(1)}M)` : round.name,
          kind: 'funding',
          source: funding!.crunchbase_url,
        })
    }
    const fin = r.financials?.status === 'ok' ? (r.financials.data as { annual: { fiscal_year: number; period_end: string; revenue_usd: number | null }[] }) : null
    const latest = fin?.annual[0]
    if (latest?.revenue_usd)
      milestones.push({ date: latest.period_end, label: `FY${latest.fiscal_year} revenue $${(latest.revenue_usd / 1e9).toFixed(2)}B`, kind: 'financials', source: r.financials!.sources.at(-1) ?? '' })
    const newsData =
      r.news?.status === 'ok'
        ? (r.news.data as { articles: { title: string; url: string; published_at: string | null }[]; company_posts: { title: string; url: string | null; date: string | null }[] })
        : null
    for (const a of newsData?.articles.slice(0, 3) ?? []) if (a.published_at) milestones.push({ date: a.published_at.slice(0, 10), label: a.title, kind: 'news', source: a.url })
    for (const p of newsData?.company_posts.slice(0, 3) ?? []) if (p.date && p.url) milestones.push({ date: p.date.slice(0, 10), label: p.title, kind: 'blog', source: p.url })
    if (!milestones.length) return unavailable('No dated milestones were found in the overview, funding, financials or news sections.', [], false)
    const name = (await companyName(inputs).catch(() => null)) ?? inputs.domain
    const svg = timelineSvg(name, milestones)
    const artifact = await putArtifact(inputs.ctx.cache, inputs.ctx.account.id, svg, 'image/svg+xml')
    milestones.sort((a, b) => a.date.localeCompare(b.date))
    return ok(
      { url: artifact.url, artifact_id: artifact.id, content_type: 'image/svg+xml', milestones },
      milestones.map((m) => m.source).filter(Boolean),
      'Fetch the SVG at url with the same bearer token.',
    )
  },
}

/** A PNG screenshot of the homepage (Cloudflare Browser Rendering), stored for the account. */
export const homepageScreenshot: SectionProvider = {
  name: 'homepage_screenshot',
  ttlSeconds: 3 * DAY,
  missing: (ctx) => screenshotMissing(ctx.env),
  async run(inputs) {
    const pageUrl = `https://${inputs.domain}/`
    const png = await takeScreenshot(inputs.ctx, pageUrl)
    const artifact = await putArtifact(inputs.ctx.cache, inputs.ctx.account.id, png, 'image/png')
    return ok(
      { url: artifact.url, artifact_id: artifact.id, content_type: 'image/png', page_url: pageUrl, width: 1280, height: 800, bytes: png.byteLength },
      [pageUrl],
      'Fetch the PNG at url with the same bearer token.',
    )
  },
}
