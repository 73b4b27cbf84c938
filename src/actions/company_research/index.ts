import { assertPublicDestination } from '../../providers/web/dns'
import { normalizeDomain } from '../../research/domain'
import { buildReport, fullyCached } from '../../research/report'
import { defineAction } from '../define'
import { CompanyResearchInput, ResearchReportSchema, selectedSections } from './schema'

/** Researches a company from its domain: sixteen selectable sections from open and keyed sources, cached per section. */
export const companyResearchAction = defineAction({
  name: 'company_research_v2_run_full_research',
  summary: 'Run full company research',
  description:
    'Researches a company from its domain. Each section_* flag selects a section; every section reports status ok, unavailable (with the reason or missing setting) or error, with source URLs and fetch time. Sections are cached per domain; force_refresh bypasses and rewrites the cache. A fully cached report answers at once; otherwise the run is queued (200 when it finishes within Prefer: wait, else 202 with a run id to poll).',
  input: CompanyResearchInput,
  output: ResearchReportSchema,
  hints: { readOnly: true, idempotent: true },
  integrations: ['model'],
  async precheck(input, ctx) {
    await assertPublicDestination(`https://${normalizeDomain(input.domain)}/`, { allowPrivate: ctx.config.allowPrivateFetch, dns: ctx.config.outboundDns }, 'domain')
  },
  async mode(input, ctx) {
    if (input.force_refresh) return 'queued'
    return (await fullyCached(ctx, normalizeDomain(input.domain), selectedSections(input))) ? 'inline' : 'queued'
  },
  examples: [{ domain: 'example.com' }, { domain: 'example.com', section_homepage_screenshot: false, section_visual_timeline: false, force_refresh: true }],
  async run(input, ctx) {
    return buildReport(ctx, normalizeDomain(input.domain), selectedSections(input), input.force_refresh)
  },
})
