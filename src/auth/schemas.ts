import { z } from 'zod'

const name = z.string().trim().min(1).max(200)
const limit = z.number().int().min(1).max(1_000_000_000)

export const CreateAccountBody = z.strictObject({
  name: name.describe('Account name'),
  rate_limit_per_minute: limit.nullable().optional().describe('Per-token requests per minute (overrides the default)'),
  rate_limit_per_day: limit.nullable().optional().describe('Per-token requests per day (overrides the default)'),
})

export const UpdateAccountBody = z.strictObject({
  rate_limit_per_minute: limit.nullable().optional(),
  rate_limit_per_day: limit.nullable().optional(),
})

export const CreateTeamBody = z.strictObject({ name: name.describe('Team name') })

export const MemberBody = z.strictObject({ role: z.enum(['member', 'admin']).default('member') })

export const CreateTokenBody = z
  .strictObject({
    name: name.default('default').describe('A name to tell tokens apart'),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('Expiry time (ISO 8601)'),
    expires_in_days: z.number().int().min(1).max(3650).optional().describe('Expiry in days from now'),
  })
  .refine((b) => !(b.expires_at && b.expires_in_days), { message: 'Give expires_at or expires_in_days, not both', path: ['expires_at'] })

/** Expiry in ms from a token request, or null; 400 for a time in the past. */
export function expiryOf(body: z.output<typeof CreateTokenBody>, now: number): number | null {
  if (body.expires_in_days) return now + body.expires_in_days * 86_400_000
  if (body.expires_at) return Date.parse(body.expires_at)
  return null
}
