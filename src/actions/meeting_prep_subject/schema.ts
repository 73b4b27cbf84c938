import { z } from 'zod'
import { outputVariable } from '../common/fields'

export const SubjectLineInput = z
  .strictObject({
    output_variable_name: outputVariable('results_subject_line'),
    meeting_title: z.string().max(2000).optional().describe('Meeting title to format as a subject line; when empty the title is parsed from selected_meeting'),
    selected_meeting: z
      .string()
      .max(20_000)
      .optional()
      .describe(
        'Full meeting selection string the title and date/time are parsed from: "<title> - Tuesday, March 5, 2024 at 2:00 PM", "<title> (2024-03-05 14:00 - 15:00)", an invitation subject, calendar-event JSON, or a bare title',
      ),
  })
  .meta({
    // Checked when the action runs (a 400 naming both fields); stated here so the document says it.
    anyOf: [
      { required: ['meeting_title'], properties: { meeting_title: { pattern: '\\S' } } },
      { required: ['selected_meeting'], properties: { selected_meeting: { pattern: '\\S' } } },
    ],
  })

export const SubjectLineOutput = z.object({
  subject_line: z.string().describe('The email subject, e.g. "Meeting prep: Acme sync (Tue, Mar 5, 2:00 PM)"'),
  meeting_title: z.string().describe('The title used'),
  meeting_date: z.string().nullable().describe('ISO date (YYYY-MM-DD) when the year is known'),
  meeting_time: z.string().nullable().describe('Start time, 24-hour HH:MM'),
  weekday: z.string().nullable(),
  timezone: z.string().nullable().describe('Time zone as written in the selection'),
  parsed_format: z.string().describe('Shape the selection had: json_event, invitation, iso, month_name, numeric_date, title_only, none'),
})
