import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cleanTitle, formatSubject, parseSelectedMeeting } from '../../src/actions/meeting_prep_subject/parse'
import * as before from '../fixtures/before-redos/meeting-parse'
import { action, newCaller } from '../helpers'

const NAME = 'meeting_prep_generate_subject_line'

/** The documented examples (docs/models-and-meeting-prep.md): selection string and subject. */
const EXAMPLES: [string, string][] = [
  ['Acme Corp Discovery Call - Tuesday, March 5, 2024 at 2:00 PM', 'Meeting prep: Acme Corp Discovery Call (Tue, Mar 5, 2:00 PM)'],
  ['Acme sync (2024-03-05 14:00 - 15:00)', 'Meeting prep: Acme sync (Tue, Mar 5, 2:00 PM)'],
  ['2024-03-05T14:00:00Z | Acme sync', 'Meeting prep: Acme sync (Tue, Mar 5, 2:00 PM UTC)'],
  ['Acme sync — Mar 5, 2024, 2:00 PM – 3:00 PM PST', 'Meeting prep: Acme sync (Tue, Mar 5, 2:00 PM PST)'],
  ['Invitation: Acme sync @ Tue Mar 5, 2024 2pm - 3pm (PST) (john@example.com)', 'Meeting prep: Acme sync (Tue, Mar 5, 2:00 PM PST)'],
  ['Mar 5 2:00pm: Acme sync', 'Meeting prep: Acme sync (Mar 5, 2:00 PM)'],
  ['Acme sync on 3/5/2024 at 2pm', 'Meeting prep: Acme sync (Tue, Mar 5, 2:00 PM)'],
  ['Fri 13 Sep 2024 14:23 - Board meeting', 'Meeting prep: Board meeting (Fri, Sep 13, 2:23 PM)'],
  ['{"summary":"Globex QBR","start":{"dateTime":"2026-03-10T09:30:00-05:00","timeZone":"America/Chicago"}}', 'Meeting prep: Globex QBR (Tue, Mar 10, 9:30 AM UTC-05:00)'],
  ['Weekly 1:1', 'Meeting prep: Weekly 1:1'],
  ['Q3 planning', 'Meeting prep: Q3 planning'],
]

describe('subject line parsing', () => {
  for (const [selected, subject] of EXAMPLES) {
    it(`formats ${JSON.stringify(selected)} as ${JSON.stringify(subject)}`, () => {
      expect(formatSubject(parseSelectedMeeting(selected))).toBe(subject)
    })
  }

  it('does not read a month out of a name without a day', () => {
    expect(parseSelectedMeeting('Coffee with May Chen').format).toBe('title_only')
  })

  it('ignores impossible dates', () => {
    expect(parseSelectedMeeting('Review 2024-02-31').date).toBeNull()
  })

  it('reads years 0000-0099 as themselves, not as 1900-1999', () => {
    expect(parseSelectedMeeting('Sync 0024-03-05')).toMatchObject({ date: '0024-03-05', weekday: 'Tue' })
    expect(parseSelectedMeeting('Sync 0000-02-29').date).toBe('0000-02-29')
    expect(parseSelectedMeeting('Sync 0100-02-29').date).toBeNull()
  })

  it('reads any ISO date of years 0000-9999 as that day of the Gregorian calendar, and refuses days it lacks', () => {
    const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
    const days = (y: number, m: number) => [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]
    // Zeller's congruence, written out apart from the code's Date arithmetic.
    const weekday = (y: number, m: number, d: number) => {
      const [yy, mm] = m < 3 ? [y - 1, m + 12] : [y, m]
      const k = ((yy % 100) + 100) % 100
      const j = Math.floor(yy / 100)
      const h = (((d + Math.floor((13 * (mm + 1)) / 5) + k + Math.floor(k / 4) + Math.floor(j / 4) + 5 * j) % 7) + 7) % 7
      return ['Sat', 'Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri'][h]
    }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (y, m, d) => {
        const text = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
        const parsed = parseSelectedMeeting(`Sync ${text}`)
        if (d > days(y, m)) expect(parsed.date).toBeNull()
        else expect(parsed).toMatchObject({ date: text, weekday: weekday(y, m, d) })
      }),
      {
        numRuns: 1000,
        examples: [
          [24, 3, 5],
          [0, 2, 29],
          [100, 2, 29],
          [1900, 2, 29],
          [2000, 2, 29],
        ],
      },
    )
  })

  it('cuts very long titles with an ellipsis', () => {
    const subject = formatSubject(parseSelectedMeeting(`${'Very long title '.repeat(20)}- March 5, 2024`))
    expect(subject).toMatch(/… \(Tue, Mar 5\)$/)
    expect(subject.length).toBeLessThan(110)
  })
})

describe('meeting_prep_generate_subject_line', () => {
  it('parses the title and date/time from selected_meeting', async () => {
    const { token } = await newCaller()
    const res = await action(NAME, { selected_meeting: 'Acme Corp Discovery Call - Tuesday, March 5, 2024 at 2:00 PM' }, token)
    expect(res.status).toBe(200)
    expect(res.body.response).toEqual({
      subject_line: 'Meeting prep: Acme Corp Discovery Call (Tue, Mar 5, 2:00 PM)',
      meeting_title: 'Acme Corp Discovery Call',
      meeting_date: '2024-03-05',
      meeting_time: '14:00',
      weekday: 'Tue',
      timezone: null,
      parsed_format: 'month_name',
    })
  })

  it('lets meeting_title win over the parsed title while keeping the parsed date', async () => {
    const { token } = await newCaller()
    const res = await action(NAME, { meeting_title: 'Invitation: Globex renewal', selected_meeting: 'Renewal (2026-03-10 09:30)' }, token)
    expect(res.body.response.subject_line).toBe('Meeting prep: Globex renewal (Tue, Mar 10, 9:30 AM)')
  })

  it('works from a bare meeting_title', async () => {
    const { token } = await newCaller()
    const res = await action(NAME, { meeting_title: 'Pipeline review' }, token)
    expect(res.body.response).toMatchObject({ subject_line: 'Meeting prep: Pipeline review', parsed_format: 'none' })
  })

  it('stores the subject under output_variable_name in the workflow', async () => {
    const { token } = await newCaller()
    const res = await action(NAME, { selected_meeting: 'Q3 planning' }, token, { 'workflow-id': 'wf_subject_1' })
    expect(res.status).toBe(200)
    const got = await action('get_variable', { name: 'results_subject_line' }, token, { 'workflow-id': 'wf_subject_1' })
    expect(JSON.stringify(got.body)).toContain('Meeting prep: Q3 planning')
  })

  it('answers 400 naming both fields when neither is given', async () => {
    const { token } = await newCaller()
    const empty = await action(NAME, {}, token)
    expect(empty.status).toBe(400)
    expect(empty.body.details.map((d: { path: string }) => d.path)).toEqual(['/meeting_title', '/selected_meeting'])
    const blank = await action(NAME, { meeting_title: '  ', selected_meeting: '' }, token)
    expect(blank.status).toBe(400)
  })
})

/** Pieces of ordinary selections: titles, dates and times in the shapes the parser reads, separators. */
const piece = fc.oneof(
  fc.constantFrom('Acme sync', 'Board meeting', 'Q3 planning', 'Weekly 1:1', 'Coffee with May Chen', 'Globex QBR', 'Sunday brunch', 'Ops @ HQ', 'Kickoff (remote)'),
  fc.constantFrom('March 5, 2024', 'Mar 5', 'Tuesday, March 5, 2024', 'Tue Mar 5, 2024', 'Wed. 6th Mar', '5 March 2024', 'Fri 13 Sep 2024', '3/5/2024', '3/5', '12/31/24'),
  fc.constantFrom('2024-03-05', '2024-03-05T14:00:00Z', '2024-03-05 14:00 - 15:00', '2026-03-10T09:30:00-05:00', '2024-02-31'),
  fc.constantFrom(' at 2:00 PM', ', 2pm', ' 14:00', ' 2pm - 3pm', ' from 9:30 am to 10 am', ' @ 3pm', ' 2:00 PM PST', ' 2pm (PST)', ' 14:23 UTC+01:00', ' 9 a.m. GMT', ' at  2pm', ',  14:00 CET'),
  fc.constantFrom(' - ', ' — ', ' | ', ': ', ' (', ') ', ' on ', ' at ', ' ', '  ', '\t', '\n', ' ()', ' ( - ) ', ' (john@example.com)', ' (a@b@c.d) ', ' --- '),
)
const ordinary = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''))
const selection = fc.oneof(
  ordinary,
  fc.tuple(fc.constantFrom('Invitation: ', 'Updated invitation: ', 'New Invitation : ', 'invitation:'), ordinary, fc.constantFrom(' @ ', '  @  ', ' @'), ordinary).map((p) => p.join('')),
  fc.tuple(ordinary, fc.oneof(ordinary, fc.constantFrom('2024-03-05', '2024-03-05T14:00:00Z'))).map(([title, when]) => JSON.stringify({ summary: title, start: { dateTime: when } })),
  fc.tuple(ordinary, ordinary).map(([title, when]) => JSON.stringify({ title, start: when })),
)

describe('subject line parsing in linear time', () => {
  it('reads ordinary selections as the backtracking patterns did', () => {
    fc.assert(
      fc.property(selection, (text) => {
        expect(parseSelectedMeeting(text)).toEqual(before.parseSelectedMeeting(text))
        expect(cleanTitle(text)).toBe(before.cleanTitle(text))
      }),
      { numRuns: 2000 },
    )
  })

  it('reads a word of more than nine letters as no weekday, where the old pattern read any "mon…" word as Monday', () => {
    expect(before.parseSelectedMeeting('Monitoring March 5').weekday).toBe('Mon')
    expect(parseSelectedMeeting('Monitoring March 5')).toMatchObject({ weekday: null, month: 3, day: 5 })
  })

  it('returns on long hostile selections that the old patterns took minutes over', () => {
    const n = 100_000
    const hostile = [
      JSON.stringify({ summary: 'a', start: `2024-03-05${' '.repeat(n)}x` }), // the time after the date
      'mon'.repeat(n / 3), // a weekday word
      `x (${'a@'.repeat(n / 2)}`, // an organiser address
      `x ${'-'.repeat(n)}x`, // separators at the end
      `Invitation: ${'a @ '.repeat(n / 4)}`,
    ]
    for (const text of hostile) {
      expect(parseSelectedMeeting(text).title.length).toBeGreaterThan(0)
      expect(typeof cleanTitle(text)).toBe('string')
    }
  })
})
