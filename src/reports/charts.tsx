/**
 * Inline SVG charts drawn on the server from report data: no scripts, no styles (CSP forbids inline
 * ones), only SVG presentation attributes. Each chart carries a <title> for screen readers.
 */

/** Colours with at least 4.5:1 contrast on white, so the numbers drawn in them stay readable. */
export function scoreColor(score: number): string {
  return score >= 90 ? '#15803d' : score >= 50 ? '#a16207' : '#b91c1c'
}

/** A 0-100 score as a ring gauge with the number in the middle. */
export function Gauge({ label, score, id }: { label: string; score: number | null; id: string }) {
  const r = 42
  const circumference = 2 * Math.PI * r
  const value = score === null ? 0 : Math.max(0, Math.min(100, score))
  const color = score === null ? '#6b7280' : scoreColor(value)
  return (
    <figure class="gauge">
      <svg width="120" height="120" viewBox="0 0 120 120" role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{`${label} score: ${score === null ? 'not available' : `${value} of 100`}`}</title>
        <circle cx="60" cy="60" r={r} fill="none" stroke="#e5e7eb" stroke-width="12" />
        <circle
          cx="60"
          cy="60"
          r={r}
          fill="none"
          stroke={color}
          stroke-width="12"
          stroke-linecap="round"
          stroke-dasharray={`${((circumference * value) / 100).toFixed(2)} ${circumference.toFixed(2)}`}
          transform="rotate(-90 60 60)"
        />
        <text x="60" y="68" text-anchor="middle" font-size="26" font-weight="700" fill={color} data-score={label}>
          {score === null ? '—' : String(value)}
        </text>
      </svg>
      <figcaption>{label}</figcaption>
    </figure>
  )
}

export interface Series {
  name: string
  color: string
  counts: number[]
}

/** Grouped bars: one group per bucket label, one bar per series. */
export function BarChart({ title, buckets, series, id }: { title: string; buckets: string[]; series: Series[]; id: string }) {
  const width = 640
  const height = 220
  const left = 36
  const bottom = 28
  const top = 12
  const plotH = height - bottom - top
  const max = Math.max(1, ...series.flatMap((s) => s.counts))
  const groupW = (width - left - 8) / Math.max(1, buckets.length)
  const barW = Math.max(2, (groupW - 6) / Math.max(1, series.length))
  const ticks = [0, Math.ceil(max / 2), max]
  return (
    <figure class="chart">
      <svg width="100%" viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${id}-title`}>
        <title id={`${id}-title`}>{`${title}: ${series.map((s) => `${s.name} ${buckets.map((b, i) => `${b}: ${s.counts[i] ?? 0}`).join(', ')}`).join('; ')}`}</title>
        {ticks.map((t) => {
          const y = top + plotH - (plotH * t) / max
          return (
            <g>
              <line x1={left} x2={width - 4} y1={y} y2={y} stroke="#e5e7eb" />
              <text x={left - 6} y={y + 4} text-anchor="end" font-size="11" fill="#374151">
                {String(t)}
              </text>
            </g>
          )
        })}
        {buckets.map((b, i) => {
          const x0 = left + 4 + i * groupW
          return (
            <g>
              {series.map((s, j) => {
                const h = (plotH * (s.counts[i] ?? 0)) / max
                return <rect x={x0 + j * barW} y={top + plotH - h} width={barW - 1} height={h} fill={s.color} />
              })}
              <text x={x0 + groupW / 2 - 3} y={height - 10} text-anchor="middle" font-size="11" fill="#374151">
                {b}
              </text>
            </g>
          )
        })}
      </svg>
      <figcaption>
        {title}
        {series.map((s) => (
          <span class="legend">
            <svg width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" fill={s.color} />
            </svg>{' '}
            {s.name}
          </span>
        ))}
      </figcaption>
    </figure>
  )
}

/** Score buckets of width 10 (the last is 90-100), as the distribution chart shows them. */
export const SCORE_BUCKETS = ['0-9', '10-19', '20-29', '30-39', '40-49', '50-59', '60-69', '70-79', '80-89', '90-100']

/** How many of the scores fall in each bucket of SCORE_BUCKETS. */
export function bucketCounts(scores: number[]): number[] {
  const counts = new Array<number>(10).fill(0)
  for (const s of scores) counts[Math.min(9, Math.max(0, Math.floor(s / 10)))]++
  return counts
}
