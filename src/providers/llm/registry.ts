import { z } from 'zod'

/** Vendors whose public model ids the API accepts. */
export type Vendor = 'openai' | 'anthropic'

/** One public model id and the vendor that serves it. */
export interface ModelEntry {
  vendor: Vendor
  /** The id sent to the vendor's API (the public id is the vendor's own id). */
  apiId: string
  /** Short note for docs and error messages. */
  note: string
}

/**
 * Every model id the API accepts, checked against the AI SDK's model catalogs (ai 7, @ai-sdk/openai 4,
 * @ai-sdk/anthropic 4). The first vendor is OpenAI, the second Anthropic.
 */
export const MODELS = {
  'gpt-5.4-nano': { vendor: 'openai', apiId: 'gpt-5.4-nano', note: 'smallest GPT-5.4; cheapest and fastest' },
  'gpt-5.4-mini': { vendor: 'openai', apiId: 'gpt-5.4-mini', note: 'mid-size GPT-5.4' },
  'gpt-5.4': { vendor: 'openai', apiId: 'gpt-5.4', note: 'full GPT-5.4' },
  'gpt-4.1-mini': { vendor: 'openai', apiId: 'gpt-4.1-mini', note: 'non-reasoning, low latency' },
  'gpt-4.1': { vendor: 'openai', apiId: 'gpt-4.1', note: 'non-reasoning, larger' },
  'claude-haiku-4-5': { vendor: 'anthropic', apiId: 'claude-haiku-4-5', note: 'fastest Claude' },
  'claude-sonnet-4-6': { vendor: 'anthropic', apiId: 'claude-sonnet-4-6', note: 'balanced Claude' },
  'claude-opus-4-6': { vendor: 'anthropic', apiId: 'claude-opus-4-6', note: 'largest Claude' },
} as const satisfies Record<string, ModelEntry>

export type ModelId = keyof typeof MODELS

/** The 5 ids `fast_model` accepts; the first is the default (smallest model of the first vendor). */
export const FAST_MODEL_IDS = ['gpt-5.4-nano', 'gpt-5.4-mini', 'gpt-4.1-mini', 'claude-haiku-4-5', 'claude-sonnet-4-6'] as const satisfies readonly ModelId[]

/** The 5 ids `quality_model` accepts; the first is the default (the larger model of the first vendor). */
export const QUALITY_MODEL_IDS = ['gpt-5.4', 'gpt-5.4-mini', 'gpt-4.1', 'claude-sonnet-4-6', 'claude-opus-4-6'] as const satisfies readonly ModelId[]

export const DEFAULT_FAST_MODEL = FAST_MODEL_IDS[0]
export const DEFAULT_QUALITY_MODEL = QUALITY_MODEL_IDS[0]

/** The two tiers actions ask for. */
export type Tier = 'fast' | 'quality'

/** Default model of a tier. */
export function defaultModel(tier: Tier): ModelId {
  return tier === 'fast' ? DEFAULT_FAST_MODEL : DEFAULT_QUALITY_MODEL
}

/** Is `id` a public model id? */
export function isModelId(id: string): id is ModelId {
  return Object.prototype.hasOwnProperty.call(MODELS, id)
}

/** `fast_model` input field with its enum and default. */
export function fastModelField() {
  return z
    .enum(FAST_MODEL_IDS)
    .default(DEFAULT_FAST_MODEL)
    .describe(`Model for the simpler sections. One of ${FAST_MODEL_IDS.join(', ')}. Default "${DEFAULT_FAST_MODEL}".`)
}

/** `quality_model` input field with its enum and default. */
export function qualityModelField() {
  return z
    .enum(QUALITY_MODEL_IDS)
    .default(DEFAULT_QUALITY_MODEL)
    .describe(`Model for the complex sections. One of ${QUALITY_MODEL_IDS.join(', ')}. Default "${DEFAULT_QUALITY_MODEL}".`)
}
