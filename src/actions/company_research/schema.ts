import { z } from 'zod'
import { flag, outputVariable } from '../common/fields'
import { SECTION_NAMES, type SectionName } from '../../research/types'

const SECTION_DOCS: Record<SectionName, string> = {
  company_overview: 'Description, industry, employee count, headquarters.',
  visual_timeline: 'Generated visual infographic of company milestones and history.',
  product_summary: 'Product descriptions and review-site ratings.',
  homepage_screenshot: 'Screenshot of the company homepage.',
  technology_stack: 'Technologies, social media profiles, follower counts.',
  detected_technologies: 'Detailed technology detection.',
  search_keywords: 'SEO keyword analysis with PPC and organic metrics.',
  financials: 'Revenue, market cap, profit margins (public companies).',
  funding_history: 'Funding rounds and investors.',
  web_traffic: 'Website traffic trends and visitor metrics (a popularity rank).',
  news: 'Recent news and press coverage.',
  people: 'Executives and leadership with professional-profile URLs.',
  competitors: 'Competitor analysis with differentiation.',
  job_openings: 'Current job listings.',
  contact: 'Company contact details.',
  reviews: 'Review-site summary and ratings.',
}

const sectionFlags = Object.fromEntries(SECTION_NAMES.map((s) => [`section_${s}`, flag(SECTION_DOCS[s], true)])) as Record<`section_${SectionName}`, ReturnType<typeof flag>>

/** Input of company_research_v2_run_full_research (and of the start action). */
export const CompanyResearchInput = z.strictObject({
  domain: z.string().min(1).max(300).describe('Domain to research (a bare domain name such as "example.com"; a scheme, www. and trailing slash are tolerated).'),
  output_variable_name: outputVariable('research_report'),
  ...sectionFlags,
  force_refresh: flag('Bypass the cache, fetch fresh data and rewrite the cache.', false),
})

export type CompanyResearchInput = z.output<typeof CompanyResearchInput>

/** The sections a request selects. */
export function selectedSections(input: CompanyResearchInput): SectionName[] {
  return SECTION_NAMES.filter((s) => input[`section_${s}`])
}

const SectionResultSchema = z.object({
  status: z.enum(['ok', 'unavailable', 'error']),
  data: z.unknown(),
  sources: z.array(z.string()),
  fetched_at: z.string(),
  duration_ms: z.number(),
  note: z.string().nullable(),
  cached: z.boolean().optional(),
})

/** Documented report shape. */
export const ResearchReportSchema = z.object({
  domain: z.string(),
  generated_at: z.string(),
  sections: z.record(z.string(), SectionResultSchema),
  summary: z.object({ ok: z.array(z.string()), unavailable: z.array(z.string()), error: z.array(z.string()) }),
  cache: z.object({ hits: z.array(z.string()), refreshed: z.boolean() }),
})
