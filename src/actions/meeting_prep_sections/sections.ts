import { z } from 'zod'
import type { Tier } from '../../providers/llm/registry'

/** The V3 section set (`use_v4_sections: true`). */
export const V3_SECTIONS = ['overview', 'attendees', 'company', 'situation', 'segues', 'questions', 'next_step'] as const
/** The V2 section set (`use_v4_sections: false`). */
export const V2_SECTIONS = ['overview', 'attendees', 'company', 'strategy', 'goals'] as const

export type SectionName = (typeof V3_SECTIONS)[number] | (typeof V2_SECTIONS)[number]

const text = (d: string) => z.string().describe(d)
const list = (d: string) => z.array(z.string()).describe(d)

/** One section: its model tier, the JSON schema of its answer, and what the model is asked to write. */
export interface SectionSpec {
  tier: Tier
  schema: z.ZodObject
  instructions: string
}

/**
 * Every section. Tiers follow the spec: overview, company, questions and next_step are simple
 * (fast_model); attendees, situation and segues are complex (quality_model). The spec leaves the
 * V2-only sections open: strategy needs the same reasoning as situation (quality), goals is a short
 * list (fast).
 */
export const SECTIONS: Record<SectionName, SectionSpec> = {
  overview: {
    tier: 'fast',
    schema: z.object({
      headline: text('One line naming the meeting, the company and its purpose'),
      summary: text('Two to four sentences: who is meeting, why now, and what a good outcome looks like'),
      meeting_type: text('The kind of meeting (discovery, demo, renewal, partnership, internal ...)'),
      key_points: list('Three to five facts the reader must know walking in'),
    }),
    instructions: 'Write a short overview of the meeting: its purpose, the parties, and the few facts that matter most.',
  },
  attendees: {
    tier: 'quality',
    schema: z.object({
      attendees: z
        .array(
          z.object({
            name: text('Full name as given in the calendar event or research'),
            title: text('Job title, or an empty string when unknown'),
            company: text('Employer, or an empty string when unknown'),
            role_in_meeting: text('Likely role: decision maker, champion, evaluator, influencer, blocker, internal ...'),
            background: text('One to three sentences of relevant background from the research'),
            talking_points: list('Topics likely to resonate with this person'),
          }),
        )
        .describe('One entry per external attendee, most senior first'),
      dynamics: text('How the attendees relate to each other and to the seller, from the relationship analysis'),
    }),
    instructions:
      'Profile each attendee: role, background and what they care about. Use the relationship analysis for how they relate. Never invent people or facts that the context does not support.',
  },
  company: {
    tier: 'fast',
    schema: z.object({
      name: text('Company name'),
      description: text('What the company does, in two sentences'),
      industry: text('Industry or sector'),
      size: text('Employee count or size band, or an empty string when unknown'),
      headquarters: text('Headquarters location, or an empty string when unknown'),
      recent_developments: list('Recent news, funding, hires or launches worth mentioning'),
      relevance: text('Why this company matters for this meeting'),
    }),
    instructions: 'Summarize the target company from its identity and the research: what it does, its size, and recent developments.',
  },
  situation: {
    tier: 'quality',
    schema: z.object({
      current_state: text("The company's and attendees' current situation as far as the context shows"),
      challenges: list('Problems or pressures they likely face'),
      opportunities: list('Where the meeting can create value'),
      implications: text('What this means for how to run the meeting'),
    }),
    instructions: "Analyze the prospect's situation: where they are now, what pressures they face, and where value can be created.",
  },
  segues: {
    tier: 'quality',
    schema: z.object({
      segues: z
        .array(
          z.object({
            topic: text('Topic of the transition'),
            opener: text('A natural sentence that moves the conversation to the topic'),
            why_it_matters: text('Why this topic matters to the attendees'),
          }),
        )
        .describe('Three to five natural conversation transitions, in the order they would come up'),
    }),
    instructions: 'Suggest natural segues: sentences that move the conversation from rapport to the topics that matter, grounded in the topic signals.',
  },
  questions: {
    tier: 'fast',
    schema: z.object({
      questions: z
        .array(
          z.object({
            question: text('The question, as it would be asked'),
            purpose: text('What the answer reveals'),
            follow_up: text('A follow-up question for a short answer'),
          }),
        )
        .describe('Five to eight open questions, most important first'),
    }),
    instructions: 'Write open discovery questions tailored to the attendees and the situation, each with its purpose and a follow-up.',
  },
  next_step: {
    tier: 'fast',
    schema: z.object({
      recommended_next_step: text('The single next step to propose at the end of the meeting'),
      rationale: text('Why this step fits the situation'),
      alternatives: list('Fallback next steps if the first is declined'),
      proposed_timeline: text('When the next step should happen'),
    }),
    instructions: 'Recommend the next step to propose at the close of the meeting, with a rationale and alternatives.',
  },
  strategy: {
    tier: 'quality',
    schema: z.object({
      approach: text('The overall approach for the meeting'),
      key_messages: list('The messages to land, most important first'),
      potential_objections: z.array(z.object({ objection: text('A likely objection'), response: text('How to answer it') })).describe('Objections the attendees may raise, with answers'),
      positioning: text('How to position the offering against the status quo and alternatives'),
    }),
    instructions: 'Plan the meeting strategy: approach, key messages, likely objections with answers, and positioning.',
  },
  goals: {
    tier: 'fast',
    schema: z.object({
      primary_goal: text('The one outcome that makes the meeting a success'),
      secondary_goals: list('Other useful outcomes'),
      success_criteria: list('Observable signs that the goals were met'),
    }),
    instructions: 'Set the goals for the meeting: one primary goal, secondary goals and observable success criteria.',
  },
}

/** The valid section names for the chosen set. */
export function sectionSet(useV4: boolean): readonly SectionName[] {
  return useV4 ? V3_SECTIONS : V2_SECTIONS
}
