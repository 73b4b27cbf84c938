import { assertPublicDestination } from '../../providers/web/dns'
import { runResearch } from '../../seo/research'
import { defineAction } from '../define'
import { SeoResearchInput } from './schema'

/**
 * `aeo_seo_research_generate_research_action`: keyword opportunities, AI-answer citation gaps, the
 * competitor landscape and content recommendations for a topic and a site. Standard depth answers
 * inline; deep runs queued. Every part says what measured it, when, and whether it was available.
 */
export const seoResearchAction = defineAction({
  name: 'aeo_seo_research_generate_research_action',
  summary: 'Research SEO keywords and AI-answer citation gaps for a topic',
  description:
    'Reads up to 20-30 pages of the site, asks realistic questions about the topic to answer engines that return citations (Perplexity, OpenAI web search, Anthropic web search: each when its key is set) and compares the cited domains with the site; measures keywords with a keyword data provider when configured (DataForSEO), else lists unmeasured candidates; ranks competing domains and recommends content. Standard depth answers inline, deep runs queued.',
  input: SeoResearchInput,
  hints: { readOnly: true },
  integrations: ['model'],
  mode: (input) => (input.research_depth === 'deep' ? 'queued' : 'inline'),
  examples: [
    { topic: 'trail running shoes', website_url: 'https://example.com', research_depth: 'standard', optimization_focus: 'balanced', output_variable_name: 'seo_research' },
    { topic: 'kubernetes cost optimization', website_url: 'https://example.com/blog/', research_depth: 'deep', optimization_focus: 'aeo_focused' },
  ],
  async precheck(input, ctx) {
    await assertPublicDestination(input.website_url, { allowPrivate: ctx.config.allowPrivateFetch, dns: ctx.config.outboundDns }, 'website_url')
  },
  async run(input, ctx) {
    return runResearch(ctx, input, (name, fn) => ctx.step(name, fn))
  },
})
