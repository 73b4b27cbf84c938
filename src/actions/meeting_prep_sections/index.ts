import { z } from 'zod'
import { ApiError } from '../../http/errors'
import { toApiError } from '../../http/map-error'
import { getModel, type ModelService, type TokenUsage } from '../../providers/llm'
import { errorFields } from '../../runtime/log'
import { defineAction } from '../define'
import { buildSectionPrompt, parseSellerProfile, type MeetingContext } from './prompt'
import { MeetingSectionsInput } from './schema'
import { SECTIONS, sectionSet, type SectionName } from './sections'
import { parseJson } from '../../lib/json-depth'

/**
 * Reads `sections_to_generate` (JSON array text) against the chosen set; a 400 lists the valid names.
 * @example parseSections('["overview","questions"]', true) // ['overview', 'questions']
 */
export function parseSections(raw: string | undefined, useV4: boolean): SectionName[] {
  const valid = sectionSet(useV4)
  if (raw === undefined || raw.trim() === '') return [...valid]
  const setName = useV4 ? 'V3 (use_v4_sections true)' : 'V2 (use_v4_sections false)'
  const fail = (message: string) =>
    new ApiError('VALIDATION_FAILED', `sections_to_generate ${message}. Valid ${setName} sections: ${valid.join(', ')}`, [
      { path: '/sections_to_generate', message: `${message}; valid: ${valid.join(', ')}` },
    ])
  let parsed: unknown
  try {
    parsed = parseJson(raw)
  } catch {
    throw fail('is not the text of a JSON array')
  }
  if (!Array.isArray(parsed)) throw fail('must be the text of a JSON array of section names')
  if (parsed.length === 0) throw fail('must name at least one section')
  const names: SectionName[] = []
  const unknown: string[] = []
  for (const item of parsed) {
    if (typeof item !== 'string') throw fail('must hold only strings')
    const name = item.trim()
    if ((valid as readonly string[]).includes(name)) {
      if (!names.includes(name as SectionName)) names.push(name as SectionName)
    } else unknown.push(JSON.stringify(item.slice(0, 40)))
  }
  if (unknown.length) throw fail(`names unknown section${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 10).join(', ')}`)
  return names
}

const SectionModel = z.object({ tier: z.enum(['fast', 'quality']), id: z.string(), provider: z.string(), model: z.string() })
const Usage = z.object({ input_tokens: z.number(), output_tokens: z.number(), total_tokens: z.number() })

const MeetingSectionsOutput = z.object({
  sections: z.record(z.string(), z.record(z.string(), z.unknown())).describe('Generated sections by name; each matches its documented schema'),
  errors: z.record(z.string(), z.object({ code: z.string(), status: z.number(), message: z.string() })).describe('Sections that failed, with their error'),
  models: z.record(z.string(), SectionModel).describe('The model that served (or was asked for) each section'),
  usage: z.record(z.string(), Usage).describe('Token usage per section and in total'),
  timings_ms: z.record(z.string(), z.number()).describe('Milliseconds per section, and for the whole call'),
  section_set: z.enum(['v3', 'v2']),
  seller_profile_used: z.boolean(),
})

type Output = z.output<typeof MeetingSectionsOutput>

const zero = (): TokenUsage => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0 })

/** Generates meeting-prep sections in parallel: simple ones on fast_model, complex ones on quality_model. */
export const meetingSectionsAction = defineAction({
  name: 'meeting_prep_v3_generate_meeting_sections',
  summary: 'Generate meeting-prep sections',
  description:
    'Generates the requested meeting-prep sections in parallel from the meeting context. Simple sections (overview, company, questions, next_step, goals) use fast_model; complex ones (attendees, situation, segues, strategy) use quality_model. Adapts to the seller profile when has_seller_profile is true. A section that fails is reported under errors while the others are returned.',
  input: MeetingSectionsInput,
  output: MeetingSectionsOutput,
  hints: { readOnly: true },
  integrations: ['model'],
  mode: 'inline',
  examples: [
    {
      processed_calendar_event: '{"title":"Acme <> Globex discovery","start":"2026-03-05T14:00:00Z","attendees":["jane@globex.com"]}',
      target_company_identity: '{"name":"Globex","domain":"globex.com"}',
      sections_to_generate: '["overview","questions","next_step"]',
      use_v4_sections: true,
    },
  ],
  async run(input, ctx): Promise<Output> {
    const started = Date.now()
    const names = parseSections(input.sections_to_generate, input.use_v4_sections)
    const seller = parseSellerProfile(input.seller_profile)
    if (typeof seller === 'string') {
      throw new ApiError('VALIDATION_FAILED', `seller_profile ${seller}`, [{ path: '/seller_profile', message: seller }])
    }
    // Resolve both tiers before any call, so a missing key is one 503 naming the setting.
    const tiers = new Set(names.map((n) => SECTIONS[n].tier))
    const models: Partial<Record<'fast' | 'quality', ModelService>> = {}
    if (tiers.has('fast')) models.fast = await getModel(ctx, input.fast_model)
    if (tiers.has('quality')) models.quality = await getModel(ctx, input.quality_model)

    const context: MeetingContext = input
    const settled = await Promise.allSettled(
      names.map(async (name) => {
        const spec = SECTIONS[name]
        const model = models[spec.tier]!
        const { system, prompt } = buildSectionPrompt(name, context, seller)
        return model.generateObject({ schema: spec.schema, name: `meeting_section_${name}`, description: `The ${name} section of a meeting brief`, system, prompt })
      }),
    )

    const out: Output = {
      sections: {},
      errors: {},
      models: {},
      usage: {},
      timings_ms: {},
      section_set: input.use_v4_sections ? 'v3' : 'v2',
      seller_profile_used: seller !== null,
    }
    const total = zero()
    let firstError: unknown
    settled.forEach((result, i) => {
      const name = names[i]
      const tier = SECTIONS[name].tier
      const info = models[tier]!.info
      out.models[name] = { tier, id: info.id, provider: info.provider, model: info.model }
      if (result.status === 'fulfilled') {
        out.sections[name] = result.value.object as Record<string, unknown>
        out.usage[name] = result.value.usage
        out.timings_ms[name] = result.value.ms
        total.input_tokens += result.value.usage.input_tokens
        total.output_tokens += result.value.usage.output_tokens
        total.total_tokens += result.value.usage.total_tokens
        return
      }
      firstError ??= result.reason
      const api = toApiError(result.reason)
      if (!api) ctx.log.error('meeting section failed', { section: name, ...errorFields(result.reason) })
      out.errors[name] = api ? { code: api.code, status: api.status, message: api.message } : { code: 'INTERNAL', status: 500, message: `Internal error while generating the ${name} section` }
    })
    // Nothing generated: the call as a whole failed, with the first section's error.
    if (Object.keys(out.sections).length === 0) throw firstError
    out.usage.total = total
    out.timings_ms.total = Date.now() - started
    return out
  },
})
