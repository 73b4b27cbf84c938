import { z } from 'zod'

const name = z.string().trim().min(1).max(200)
const limit = z.number().int().min(1).max(1_000_000_000)

export const CreateAccountBody = z.strictObject({
  name: name.describe('Account name'),
  rate_limit_per_minute: limit.nullable().optional().describe('Requests per minute for the whole account, all its tokens together (overrides RATE_LIMIT_PER_MINUTE)'),
  rate_limit_per_day: limit.nullable().optional().describe('Requests per day for the whole account, all its tokens together (overrides RATE_LIMIT_PER_DAY)'),
})

export const UpdateAccountBody = z.strictObject({
  rate_limit_per_minute: limit.nullable().optional().describe('Requests per minute for the whole account; null returns to RATE_LIMIT_PER_MINUTE'),
  rate_limit_per_day: limit.nullable().optional().describe('Requests per day for the whole account; null returns to RATE_LIMIT_PER_DAY'),
})

const tokenMinute = limit.nullable().optional().describe("This token's own requests per minute, below the account's (null: the account's limit alone)")
const tokenDay = limit.nullable().optional().describe("This token's own requests per day, below the account's (null: the account's limit alone)")

export const UpdateTokenBody = z
  .strictObject({ rate_limit_per_minute: tokenMinute, rate_limit_per_day: tokenDay })
  .refine((b) => b.rate_limit_per_minute !== undefined || b.rate_limit_per_day !== undefined, { message: 'Give rate_limit_per_minute, rate_limit_per_day or both', path: ['rate_limit_per_minute'] })
  .meta({ anyOf: [{ required: ['rate_limit_per_minute'] }, { required: ['rate_limit_per_day'] }] })

export const CreateTeamBody = z.strictObject({ name: name.describe('Team name') })

export const MemberBody = z.strictObject({ role: z.enum(['member', 'admin']).default('member') })

export const CreateTokenBody = z
  .strictObject({
    name: name.default('default').describe('A name to tell tokens apart'),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('Expiry time (ISO 8601)'),
    expires_in_days: z.number().int().min(1).max(3650).optional().describe('Expiry in days from now'),
    rate_limit_per_minute: tokenMinute,
    rate_limit_per_day: tokenDay,
  })
  .refine((b) => !(b.expires_at && b.expires_in_days), { message: 'Give expires_at or expires_in_days, not both', path: ['expires_at'] })
  .meta({ not: { required: ['expires_at', 'expires_in_days'] }, description: 'expires_at and expires_in_days exclude each other; expires_at must be in the future' })

/** Expiry in ms from a token request, or null; 400 for a time in the past. */
export function expiryOf(body: z.output<typeof CreateTokenBody>, now: number): number | null {
  if (body.expires_in_days) return now + body.expires_in_days * 86_400_000
  if (body.expires_at) return Date.parse(body.expires_at)
  return null
}
