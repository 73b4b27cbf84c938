import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { calibratedPart, rawRelevance } from '../src/agents/calibration'
import { POPULARITY_WEIGHT } from '../src/agents/ranking'

const rel = fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1e6, noNaN: true }))
const cos = fc.double({ min: -1, max: 1, noNaN: true })

describe('the calibrated search score', () => {
  it('stays in [0, 1 - popularity weight] for any relevance and cosine', () => {
    fc.assert(
      fc.property(rel, cos, (r, c) => {
        const part = calibratedPart(r, c)
        expect(part).toBeGreaterThanOrEqual(0)
        expect(part).toBeLessThanOrEqual(1 - POPULARITY_WEIGHT)
      }),
    )
  })

  it('ranks as the raw evidence does: more words matched or a nearer meaning never lowers it', () => {
    fc.assert(
      fc.property(rel, rel, cos, cos, (r1, r2, c1, c2) => {
        const [ra, rb] = r1 <= r2 ? [r1, r2] : [r2, r1]
        const [ca, cb] = c1 <= c2 ? [c1, c2] : [c2, c1]
        expect(rawRelevance(ra, ca)).toBeLessThanOrEqual(rawRelevance(rb, cb))
        expect(calibratedPart(ra, ca)).toBeLessThanOrEqual(calibratedPart(rb, cb))
      }),
    )
  })

  it('keeps a hit with no evidence far below the documented min_score 0.29, and a strong match near the top', () => {
    expect(calibratedPart(0, 0)).toBeLessThan(0.05)
    expect(calibratedPart(200, 0.8)).toBeGreaterThan(0.9)
  })
})
