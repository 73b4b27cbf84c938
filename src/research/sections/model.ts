import type { z } from 'zod'
import { getModel, isModelConfigured } from '../../providers/llm'
import type { ResearchInputs } from '../types'

/** What to set when no model can serve a model-written part. */
export const MODEL_SETTINGS = 'OPENAI_API_KEY or ANTHROPIC_API_KEY (or an account model key at /v1/integrations/llm, OPENAI_COMPATIBLE_BASE_URL, or the AI binding)'

/** Note for a section whose model-written part was skipped. */
export const NO_MODEL_NOTE = `No model is configured, so the model-written summary is omitted: set ${MODEL_SETTINGS}.`

/**
 * Asks the model for a structured answer written only from the given section data; null with a
 * note when no model is configured or the call failed (the section keeps its sourced data), and
 * the failure itself as `error`, for a section that is nothing without the model's part.
 */
export async function writeWithModel<S extends z.ZodType>(
  inputs: ResearchInputs,
  tier: 'fast' | 'quality',
  request: { schema: S; name: string; task: string; material: unknown },
): Promise<{ object: z.output<S> | null; note: string | null; model: string | null; error?: unknown }> {
  if (!(await isModelConfigured(inputs.ctx))) return { object: null, note: NO_MODEL_NOTE, model: null }
  try {
    const model = await getModel(inputs.ctx, tier)
    const result = await model.generateObject({
      schema: request.schema,
      name: request.name,
      system:
        'You write parts of a company research report. Use only the JSON material given; never add facts from memory. ' +
        'When the material does not support a statement, leave it out. Cite the material keys you used.',
      prompt: `${request.task}\n\nMaterial (JSON):\n${JSON.stringify(request.material).slice(0, 24_000)}`,
      maxOutputTokens: 2000,
    })
    return { object: result.object, note: null, model: `${result.model.provider}:${result.model.model}` }
  } catch (err) {
    return { object: null, note: `The model-written part failed: ${(err as Error).message.slice(0, 200)}`, model: null, error: err }
  }
}
