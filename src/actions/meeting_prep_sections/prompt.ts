import { SECTIONS, type SectionName } from './sections'
import { parseJson } from '../../lib/json-depth'

/** The context fields a prompt draws on, in the order they are shown to the model. */
export const CONTEXT_FIELDS = [
  ['processed_calendar_event', 'Calendar event'],
  ['meeting_classification', 'Meeting classification'],
  ['target_company_identity', 'Target company identity'],
  ['processed_research', 'Contact research'],
  ['meeting_relationships', 'Relationship analysis'],
  ['topic_signals', 'Topic signals'],
  ['user_context', 'About the user preparing for the meeting'],
] as const

export type ContextField = (typeof CONTEXT_FIELDS)[number][0]

export type MeetingContext = Partial<Record<ContextField | 'meeting_memories_answer', string>>

/** The seller profile when `has_seller_profile` is true and a profile is given; otherwise null. */
export type SellerProfile = { text: string } | null

/** Longest text of one context field put in a prompt; beyond it the text is cut with a note. */
export const MAX_FIELD_CHARS = 24_000

function clip(value: string): string {
  const trimmed = value.trim()
  return trimmed.length <= MAX_FIELD_CHARS ? trimmed : `${trimmed.slice(0, MAX_FIELD_CHARS)}\n[... cut after ${MAX_FIELD_CHARS} characters]`
}

/**
 * Reads the `seller_profile` field: JSON text of `{has_seller_profile, seller_profile}` where the
 * profile may be text or an object. Returns null when there is no usable profile; a string when the
 * field is not that shape (the caller reports it as a 400).
 */
export function parseSellerProfile(raw: string | undefined): SellerProfile | string {
  if (raw === undefined || raw.trim() === '') return null
  let parsed: unknown
  try {
    parsed = parseJson(raw)
  } catch {
    return 'must be the JSON text of an object {"has_seller_profile": boolean, "seller_profile": ...}'
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'must be a JSON object with has_seller_profile and seller_profile'
  const record = parsed as Record<string, unknown>
  const flag = record.has_seller_profile
  const has = flag === true || flag === 'true'
  if (flag !== undefined && typeof flag !== 'boolean' && flag !== 'true' && flag !== 'false') return 'has_seller_profile must be true or false'
  if (!has) return null
  const profile = record.seller_profile
  if (profile === undefined || profile === null || profile === '') return null
  const text = typeof profile === 'string' ? profile : JSON.stringify(profile, null, 2)
  return { text: clip(text) }
}

/** A prompt pair for one section. */
export interface SectionPrompt {
  system: string
  prompt: string
}

/**
 * Builds the system and user prompt of one section from the context. The system prompt names the
 * section ("Section: <name>") and, with a seller profile, tells the model to write from the seller's
 * side; earlier-meeting memories are added when given.
 */
export function buildSectionPrompt(section: SectionName, context: MeetingContext, seller: SellerProfile): SectionPrompt {
  const spec = SECTIONS[section]
  const system = [
    'You prepare briefing documents for business meetings. Write in clear, concrete English for the person attending.',
    'Use only facts found in the context. When the context does not say something, use an empty string or leave the list empty; never invent names, numbers or events.',
    `Section: ${section}`,
    spec.instructions,
    seller
      ? "Seller profile: the reader sells the offering described below. Tailor the section to the seller: connect the prospect's needs to what the seller offers, and frame points from the seller's side of the table."
      : 'No seller profile is available: keep the section neutral and focused on the prospect and the meeting.',
    'Answer with JSON that matches the given schema.',
  ].join('\n')

  const blocks: string[] = []
  for (const [field, label] of CONTEXT_FIELDS) {
    const value = context[field]
    if (value && value.trim()) blocks.push(`<${field}>\n# ${label}\n${clip(value)}\n</${field}>`)
  }
  if (seller) blocks.push(`<seller_profile>\n# Seller profile\n${seller.text}\n</seller_profile>`)
  if (context.meeting_memories_answer && context.meeting_memories_answer.trim()) {
    blocks.push(
      `<meeting_memories>\n# What earlier meetings in this series established\n${clip(context.meeting_memories_answer)}\n</meeting_memories>\nBuild on the earlier meetings: refer to what was already discussed and agreed instead of repeating first-meeting material.`,
    )
  }
  if (blocks.length === 0) blocks.push('No context was provided. Write the section from general good practice and keep every fact field empty.')
  const prompt = `Write the "${section}" section of the meeting brief.\n\n${blocks.join('\n\n')}`
  return { system, prompt }
}
