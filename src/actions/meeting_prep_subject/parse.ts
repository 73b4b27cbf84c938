import { parseJson } from '../../lib/json-depth'
import { cutChars } from '../../lib/text'

/** What was read out of a meeting selection string. */
export interface ParsedMeeting {
  title: string
  /** ISO date (YYYY-MM-DD) when the year is known, otherwise null (see `month`/`day`). */
  date: string | null
  month: number | null
  day: number | null
  weekday: string | null
  /** 24-hour "HH:MM", or null. */
  time: string | null
  /** Time zone as written ("PST", "UTC", "UTC+01:00"), or null. */
  timezone: string | null
  /** Which shape the selection had. */
  format: 'json_event' | 'invitation' | 'iso' | 'month_name' | 'numeric_date' | 'title_only'
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']

const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?'
// At most the six letters that end "wednesday": an open `[a-z]*` scanned a whole run of letters from
// each "mon", "sun"... in it ("monmonmon...", quadratic in a 20,000-character selection).
const WEEKDAY = '(?:(mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6}\\.?,?\\s+)?'
const TIME = '(\\d{1,2})(?::(\\d{2}))?\\s*(am|pm|a\\.m\\.|p\\.m\\.)|(\\d{1,2}):(\\d{2})'
// GMT is one of the `[a-z]{2,4}t` zones; only its offset form needs naming.
const TZ = '(?:\\s*\\(?\\b(utc|z|[a-z]{2,4}t|(?:utc|gmt)[+-]\\d{1,2}(?::?\\d{2})?)\\b\\)?)?'
const RANGE_END = `(?:\\s*(?:-|–|—|to)\\s*(?:${TIME}))?`

const ISO = /(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?/i
const MONTH_FIRST = new RegExp(`${WEEKDAY}${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?(?:,?\\s+(\\d{4}))?`, 'i')
const DAY_FIRST = new RegExp(`${WEEKDAY}(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH}(?:,?\\s+(\\d{4}))?`, 'i')
const NUMERIC = new RegExp(`${WEEKDAY}(\\d{1,2})/(\\d{1,2})(?:/(\\d{2,4}))?`, 'i')
// Sticky: tried only at the few offsets findTimeAfter accepts, not at every offset of a long rest.
const TIME_AT = new RegExp(`(?:,?\\s*(?:(?:at|@|from)\\s*)?)(?:${TIME})${RANGE_END}${TZ}`, 'iy')

const pad = (n: number) => String(n).padStart(2, '0')

/** The day as a UTC Date; setUTCFullYear, since Date.UTC reads years 0-99 as 1900-1999. */
function utcDay(year: number, month: number, day: number): Date {
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  return d
}

function weekdayOf(year: number, month: number, day: number): string {
  return WEEKDAYS[utcDay(year, month, day).getUTCDay()]
}

function validDate(year: number | null, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > 31) return false
  if (year === null) return true
  const d = utcDay(year, month, day)
  return d.getUTCMonth() === month - 1 && d.getUTCDate() === day
}

function to24(hour: number, minute: number, meridiem: string | undefined): string | null {
  let h = hour
  if (meridiem) {
    const pm = meridiem.toLowerCase().startsWith('p')
    if (h < 1 || h > 12) return null
    if (pm && h !== 12) h += 12
    if (!pm && h === 12) h = 0
  }
  if (h > 23 || minute > 59) return null
  return `${pad(h)}:${pad(minute)}`
}

/** Strips invitation prefixes, organiser addresses and separators left around a title. */
export function cleanTitle(raw: string): string {
  let t = raw.replace(/\s+/g, ' ').trim()
  t = t.replace(/^(?:(?:updated|new|accepted|declined|tentative|canceled|cancelled)\s+)?(?:invitation|event|meeting|invite)\s*:\s*/i, '')
  // The address splits at its first "@" after the first character, so "@" runs are not tried at every split.
  t = t.replace(/\(\s*[^()\s][^()\s@]*@[^()\s]+\s*\)\s*$/, '')
  t = t.replace(/\(\s*\)/g, '')
  // The lookbehinds start a trailing run only at its first character, not again at each one after it.
  t = t.replace(/^[\s\-–—|:@,;·•]+|(?<![\s\-–—|:@,;·•])[\s\-–—|:@,;·•]+$/g, '')
  t = t.replace(/(?<!\s)\s+(?:on|at|@)$/i, '').replace(/^(?:on|at)\s+/i, '')
  return t.replace(/^[\s\-–—|:@,;·•]+|(?<![\s\-–—|:@,;·•])[\s\-–—|:@,;·•]+$/g, '').trim()
}

interface DatePart {
  start: number
  end: number
  year: number | null
  month: number
  day: number
  weekday: string | null
  time: string | null
  timezone: string | null
  format: ParsedMeeting['format']
}

function findTimeAfter(text: string, from: number): { end: number; time: string; timezone: string | null } | null {
  const rest = text.slice(from)
  // Only a time right after the date belongs to it (", 2pm", " at 14:00", " 2:00 PM"): the first
  // match starting within 3 characters, which is the leftmost match when that is close enough.
  let m: RegExpExecArray | null = null
  for (let at = 0; at <= 3 && !m; at++) {
    TIME_AT.lastIndex = at
    m = TIME_AT.exec(rest)
  }
  if (!m) return null
  const hour = Number(m[1] ?? m[4])
  const minute = Number(m[2] ?? m[5] ?? 0)
  const time = to24(hour, minute, m[3])
  if (!time) return null
  const tz = m[11] ? m[11].toUpperCase() : null
  return { end: from + m.index + m[0].length, time, timezone: tz }
}

function findDate(text: string): DatePart | null {
  const iso = ISO.exec(text)
  if (iso) {
    const [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])]
    if (validDate(year, month, day)) {
      let time = iso[4] ? to24(Number(iso[4]), Number(iso[5]), undefined) : null
      let timezone = iso[6] ? (iso[6].toUpperCase() === 'Z' ? 'UTC' : `UTC${iso[6].length === 5 ? `${iso[6].slice(0, 3)}:${iso[6].slice(3)}` : iso[6]}`) : null
      let end = iso.index + iso[0].length
      if (!time) {
        const after = findTimeAfter(text, end)
        if (after) ({ time, timezone, end } = { time: after.time, timezone: after.timezone ?? timezone, end: after.end })
      } else {
        // A range end like " - 15:00" after an ISO start belongs to the date part.
        const range = /^\s*(?:-|–|—|to)\s*(?:\d{4}-\d{2}-\d{2}[T ])?\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?/i.exec(text.slice(end))
        if (range) end += range[0].length
      }
      return { start: iso.index, end, year, month, day, weekday: weekdayOf(year, month, day), time, timezone, format: 'iso' }
    }
  }
  const candidates: DatePart[] = []
  const named = [
    { re: MONTH_FIRST, monthAt: 2, dayAt: 3 },
    { re: DAY_FIRST, monthAt: 3, dayAt: 2 },
  ]
  for (const { re, monthAt, dayAt } of named) {
    const m = re.exec(text)
    if (!m) continue
    const month = MONTHS.indexOf(m[monthAt].slice(0, 3).toLowerCase()) + 1
    const day = Number(m[dayAt])
    const year = m[4] ? Number(m[4]) : null
    if (!validDate(year, month, day)) continue
    candidates.push(withTime(text, { start: m.index, end: m.index + m[0].length, year, month, day, weekday: weekdayName(m[1], year, month, day), time: null, timezone: null, format: 'month_name' }))
  }
  const n = NUMERIC.exec(text)
  if (n) {
    const [month, day] = [Number(n[2]), Number(n[3])]
    const year = n[4] ? (n[4].length === 2 ? 2000 + Number(n[4]) : Number(n[4])) : null
    if (validDate(year, month, day)) {
      candidates.push(
        withTime(text, { start: n.index, end: n.index + n[0].length, year, month, day, weekday: weekdayName(n[1], year, month, day), time: null, timezone: null, format: 'numeric_date' }),
      )
    }
  }
  candidates.sort((a, b) => a.start - b.start)
  return candidates[0] ?? null
}

function weekdayName(given: string | undefined, year: number | null, month: number, day: number): string | null {
  if (year !== null) return weekdayOf(year, month, day)
  if (!given) return null
  const i = WEEKDAYS.findIndex((w) => w.toLowerCase() === given.slice(0, 3).toLowerCase())
  return i >= 0 ? WEEKDAYS[i] : null
}

function withTime(text: string, part: DatePart): DatePart {
  const after = findTimeAfter(text, part.end)
  return after ? { ...part, end: after.end, time: after.time, timezone: after.timezone } : part
}

function fromDatePart(title: string, part: DatePart | null, format: ParsedMeeting['format']): ParsedMeeting {
  if (!part) return { title, date: null, month: null, day: null, weekday: null, time: null, timezone: null, format }
  return {
    title,
    date: part.year !== null ? `${String(part.year).padStart(4, '0')}-${pad(part.month)}-${pad(part.day)}` : null,
    month: part.month,
    day: part.day,
    weekday: part.weekday,
    time: part.time,
    timezone: part.timezone,
    format,
  }
}

/** Reads a calendar-event JSON object (Google/Microsoft exports and processed events), or null. */
function parseJsonEvent(text: string): ParsedMeeting | null {
  const trimmed = text.trim()
  if (!trimmed.startsWith('{')) return null
  let value: unknown
  try {
    value = parseJson(trimmed)
  } catch {
    return null
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null
  const o = value as Record<string, unknown>
  const title = [o.summary, o.title, o.subject, o.name, o.meeting_title].find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? ''
  const start = o.start ?? o.start_time ?? o.startTime ?? o.date ?? o.when
  let when = ''
  if (typeof start === 'string') when = start
  else if (start && typeof start === 'object') {
    const s = start as Record<string, unknown>
    when = String(s.dateTime ?? s.date_time ?? s.date ?? '')
  }
  const part = when ? findDate(when) : null
  return fromDatePart(cleanTitle(title), part, 'json_event')
}

/**
 * Reads the meeting title and date/time out of a selection string. Handles calendar-event JSON,
 * invitation subjects ("Invitation: X @ Tue Mar 5, 2024 2pm - 3pm (PST) (a@b.com)"), ISO dates,
 * month names in either order, US numeric dates, and a bare title.
 * @example parseSelectedMeeting('Acme sync - Tuesday, March 5, 2024 at 2:00 PM').time // '14:00'
 */
export function parseSelectedMeeting(selected: string): ParsedMeeting {
  const json = parseJsonEvent(selected)
  if (json) return json
  const text = selected.replace(/\s+/g, ' ').trim()
  // `text` has single spaces and no line breaks, so a space stands for each old `\s+`/`\s*` and
  // `(.+)` runs to the end: no run of spaces for the title's lazy `.+?` to trade back and forth.
  const invitation = /^(?:(?:updated|new) )?invitation ?: ?(.+?) @ (.+)/i.exec(text)
  if (invitation) {
    const part = findDate(invitation[2])
    return fromDatePart(cleanTitle(invitation[1]), part, 'invitation')
  }
  const part = findDate(text)
  if (!part) return fromDatePart(cleanTitle(text), null, 'title_only')
  const title = cleanTitle(`${text.slice(0, part.start)} ${text.slice(part.end)}`.replace(/\(\s*(?:[-–—]\s*)?\)/g, ''))
  return fromDatePart(title, part, part.format)
}

/** "2:00 PM" from "14:00". */
export function displayTime(time: string): string {
  const [h, m] = time.split(':').map(Number)
  const suffix = h >= 12 ? 'PM' : 'AM'
  const hour = h % 12 === 0 ? 12 : h % 12
  return `${hour}:${pad(m)} ${suffix}`
}

/** Longest title kept in a subject before it is cut with an ellipsis. */
export const MAX_TITLE_CHARS = 80

/**
 * The subject line: "Meeting prep: <title>", then " (<Tue, Mar 5, 2:00 PM PST>)" when a date or
 * time is known. Deterministic: the same input always gives the same subject.
 * @example formatSubject({ title: 'Acme sync', date: '2024-03-05', month: 3, day: 5, weekday: 'Tue', time: '14:00', timezone: null, format: 'iso' }) // 'Meeting prep: Acme sync (Tue, Mar 5, 2:00 PM)'
 */
export function formatSubject(m: ParsedMeeting): string {
  const title = m.title.length > MAX_TITLE_CHARS ? `${cutChars(m.title, MAX_TITLE_CHARS - 1).trimEnd()}…` : m.title
  const parts: string[] = []
  if (m.month !== null && m.day !== null) parts.push(`${m.weekday ? `${m.weekday}, ` : ''}${MONTH_NAMES[m.month - 1]} ${m.day}`)
  if (m.time) parts.push(`${displayTime(m.time)}${m.timezone ? ` ${m.timezone}` : ''}`)
  const base = `Meeting prep: ${title || 'Upcoming meeting'}`
  return parts.length ? `${base} (${parts.join(', ')})` : base
}
