import type { EngineAccess } from '../../providers/engine-access'
import type { ActionContext } from '../../runtime/context'

export type { EngineAccess }

/** Answer engine ids. */
export type EngineId = 'perplexity' | 'openai_web_search' | 'anthropic_web_search'

/** What one engine answered to one question, reduced to what the research compares. */
export interface EngineAnswer {
  /** Model the engine ran. */
  model: string
  /** First part of the answer text, for evidence. */
  answer_excerpt: string
  /** URLs the answer cites (inline citations), in order, deduplicated. */
  cited_urls: string[]
  /** URLs the engine's searches returned (consulted, not necessarily cited). */
  source_urls: string[]
}

/** One answer engine that returns citations. Add an engine by implementing this and listing it in `engines/index.ts`. */
export interface AnswerEngine {
  id: EngineId
  label: string
  /** Setting(s) that enable it, named in `unavailable` notes. */
  setting: string
  /** Access when configured, or null. */
  access(ctx: ActionContext): Promise<EngineAccess | null>
  ask(ctx: ActionContext, access: EngineAccess, question: string): Promise<EngineAnswer>
}
