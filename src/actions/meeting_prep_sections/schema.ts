import { z } from 'zod'
import { outputVariable } from '../common/fields'
import { fastModelField, qualityModelField } from '../../providers/llm/registry'

const MAX_CONTEXT = 200_000

const contextField = (description: string) => z.string().max(MAX_CONTEXT).optional().describe(`${description} (text, JSON text, or a {{variable}} reference; at most ${MAX_CONTEXT} characters)`)

export const MeetingSectionsInput = z.strictObject({
  processed_research: contextField('Processed contact research results'),
  target_company_identity: contextField('Target company information'),
  meeting_classification: contextField('Meeting classification result'),
  processed_calendar_event: contextField('Processed calendar event data'),
  output_variable_name: outputVariable('meeting_sections'),
  topic_signals: contextField('Topic signals from the classification'),
  meeting_relationships: contextField('Relationship analysis results'),
  user_context: contextField('Context for personalization'),
  seller_profile: contextField(
    'JSON text of the seller profile record {"has_seller_profile": boolean, "seller_profile": text or object}; sections adapt to the seller when has_seller_profile is true',
  ),
  sections_to_generate: z
    .string()
    .max(2000)
    .optional()
    .describe(
      'Text of a JSON array of section names, e.g. ["overview","questions"]. V3 names: overview, attendees, company, situation, segues, questions, next_step. V2 names: overview, attendees, company, strategy, goals. Default: every section of the chosen set',
    ),
  use_v4_sections: z.boolean().default(true).describe('true generates the V3 set (situation, segues, questions, next_step); false the V2 set (strategy, goals). Default true.'),
  fast_model: fastModelField(),
  quality_model: qualityModelField(),
  meeting_memories_answer: contextField('Answer of a meeting-memory query: context from earlier meetings in the series'),
})

export type MeetingSectionsInput = z.output<typeof MeetingSectionsInput>
