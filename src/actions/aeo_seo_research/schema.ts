import { z } from 'zod'
import { outputVariable } from '../common/fields'

export const SeoResearchInput = z.strictObject({
  topic: z.string().trim().min(2, 'must be at least 2 characters').max(200, 'must be at most 200 characters').describe('Topic to research, e.g. "trail running shoes"'),
  output_variable_name: outputVariable('seo_research'),
  research_depth: z
    .enum(['standard', 'deep'])
    .default('standard')
    .describe('standard: 5 questions, 20 site pages, answered inline; deep: 12 broader questions, 30 site pages, more keywords and SERPs, run queued. Default "standard".'),
  website_url: z
    .string()
    .max(2048)
    .url('must be a full URL including the https:// scheme')
    .refine((v) => /^https?:\/\//i.test(v), 'must use the http or https scheme')
    .describe('Website to relate the research to (full URL with https://): its pages are read for candidate keywords and its domain is looked for among citations and rankings'),
  optimization_focus: z
    .enum(['seo_focused', 'aeo_focused', 'balanced'])
    .default('balanced')
    .describe('Weights recommendation priorities toward search rankings (SEO) or answer-engine citations (AEO). Default "balanced".'),
})

export type SeoResearchInput = z.output<typeof SeoResearchInput>
