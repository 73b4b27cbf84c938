import { z } from 'zod'

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
})
