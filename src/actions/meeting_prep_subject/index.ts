import type { z } from 'zod'
import { ApiError } from '../../http/errors'
import { defineAction } from '../define'
import { cleanTitle, formatSubject, parseSelectedMeeting, type ParsedMeeting } from './parse'
import { SubjectLineInput, SubjectLineOutput } from './schema'

/** Formats the meeting-prep email subject from the title and the date/time in the selection. No model. */
export const subjectLineAction = defineAction({
  name: 'meeting_prep_generate_subject_line',
  summary: 'Generate a meeting-prep subject line',
  description:
    'Parses the meeting title and date/time out of selected_meeting (calendar-event JSON, invitation subjects, ISO or written dates, or a bare title) and formats a concise subject: "Meeting prep: <title> (<Tue, Mar 5, 2:00 PM>)". meeting_title, when given, wins over the parsed title. Deterministic.',
  input: SubjectLineInput,
  output: SubjectLineOutput,
  hints: { readOnly: true, idempotent: true },
  mode: 'inline',
  examples: [
    { selected_meeting: 'Acme Corp Discovery Call - Tuesday, March 5, 2024 at 2:00 PM' },
    { meeting_title: 'Globex QBR', selected_meeting: '{"summary":"QBR","start":{"dateTime":"2026-03-10T09:30:00Z"}}' },
  ],
  async run(input): Promise<z.output<typeof SubjectLineOutput>> {
    const title = cleanTitle(input.meeting_title ?? '')
    const selected = (input.selected_meeting ?? '').trim()
    if (!title && !selected) {
      throw new ApiError('VALIDATION_FAILED', 'Give meeting_title or selected_meeting (or both)', [
        { path: '/meeting_title', message: 'Required when selected_meeting is empty' },
        { path: '/selected_meeting', message: 'Required when meeting_title is empty' },
      ])
    }
    const parsed: ParsedMeeting = selected ? parseSelectedMeeting(selected) : { title, date: null, month: null, day: null, weekday: null, time: null, timezone: null, format: 'title_only' }
    const meeting = { ...parsed, title: title || parsed.title }
    return {
      subject_line: formatSubject(meeting),
      meeting_title: meeting.title,
      meeting_date: meeting.date,
      meeting_time: meeting.time,
      weekday: meeting.weekday,
      timezone: meeting.timezone,
      parsed_format: selected ? parsed.format : 'none',
    }
  },
})
