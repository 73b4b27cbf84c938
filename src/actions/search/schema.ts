import { z } from 'zod'

/** Tool-descriptor formats a search can answer in (src/agents/formats.ts builds them). */
export const TOOL_FORMATS = ['openai', 'openai_responses', 'anthropic', 'mcp'] as const

export const SearchInput = z.strictObject({
  query: z.string().max(10_000).optional().describe('Text matched against agent names, descriptions and parameters; empty lists by popularity'),
  status: z.enum(['public', 'private', 'team', 'all']).default('public').describe('Visibility filter; "all" is every agent the caller may see'),
  limit: z
    .number()
    .int()
    .min(1)
    .default(10)
    .transform((n) => Math.min(n, 100))
    .describe('Results per page, 1-100 (larger values are capped at 100)'),
  page: z.number().int().min(0).default(0).describe('Zero-indexed page number'),
  min_score: z.number().min(0).max(1).optional().describe('Extension: leave out hits scoring below this (0-1). Unset returns every match (README, "Search score": how the score is calibrated)'),
  format: z
    .enum(TOOL_FORMATS)
    .optional()
    .describe(
      'Descriptor format of each hit. Omitted: the spec\'s function descriptor (with search metadata). "openai": a Chat Completions function tool valid in strict mode (optional parameters nullable, defaults in the description, no metadata); "openai_responses": the same as a Responses API function tool; "anthropic": {name, description, input_schema}; "mcp": an MCP tool',
    ),
})
