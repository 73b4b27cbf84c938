import { cutChars } from '../lib/text'

/** One dated milestone on the visual timeline. */
export interface Milestone {
  date: string
  label: string
  kind: 'founding' | 'funding' | 'financials' | 'news' | 'blog' | 'other'
  source: string
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const COLORS: Record<Milestone['kind'], string> = { founding: '#2563eb', funding: '#16a34a', financials: '#9333ea', news: '#ea580c', blog: '#0891b2', other: '#6b7280' }

function truncate(s: string, n: number): string {
  return s.length > n ? `${cutChars(s, n - 1)}…` : s
}

/**
 * A horizontal timeline infographic: milestones in date order along one axis, labels alternating
 * above and below so neighbours do not overlap. Pure SVG, no scripts or external references.
 */
export function timelineSvg(company: string, milestones: Milestone[]): string {
  const items = [...milestones].sort((a, b) => a.date.localeCompare(b.date))
  const step = 170
  const width = Math.max(640, 80 + step * items.length)
  const height = 360
  const axisY = 190
  const parts: string[] = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif">`)
  parts.push(`<title>${esc(company)} timeline</title>`)
  parts.push(`<rect width="100%" height="100%" fill="#ffffff"/>`)
  parts.push(`<text x="40" y="40" font-size="22" font-weight="bold" fill="#111827">${esc(truncate(company, 60))}: milestones</text>`)
  parts.push(`<line x1="40" y1="${axisY}" x2="${width - 40}" y2="${axisY}" stroke="#9ca3af" stroke-width="3"/>`)
  items.forEach((m, i) => {
    const x = 80 + i * step
    const up = i % 2 === 0
    const textY = up ? axisY - 70 : axisY + 60
    parts.push(`<line x1="${x}" y1="${axisY}" x2="${x}" y2="${up ? axisY - 45 : axisY + 35}" stroke="${COLORS[m.kind]}" stroke-width="2"/>`)
    parts.push(`<circle cx="${x}" cy="${axisY}" r="8" fill="${COLORS[m.kind]}"/>`)
    parts.push(`<text x="${x}" y="${textY}" text-anchor="middle" font-size="13" font-weight="bold" fill="#111827">${esc(m.date)}</text>`)
    const words = truncate(m.label, 60)
    const line1 = cutChars(words, 30)
    const line2 = words.slice(line1.length)
    parts.push(`<text x="${x}" y="${textY + 18}" text-anchor="middle" font-size="11" fill="#374151">${esc(line1)}</text>`)
    if (line2) parts.push(`<text x="${x}" y="${textY + 32}" text-anchor="middle" font-size="11" fill="#374151">${esc(line2)}</text>`)
  })
  parts.push(`<text x="40" y="${height - 20}" font-size="10" fill="#6b7280">Sources: ${esc(truncate([...new Set(items.map((m) => m.kind))].join(', '), 120))} sections of the research report</text>`)
  parts.push('</svg>')
  return parts.join('\n')
}
