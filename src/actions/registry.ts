import type { AnyAction } from './define'
import { getVariableAction, storeVariableAction } from './variables'
import { invokeAgentAction } from './invoke_agent'
import { searchAction } from './search'
import { meetingSectionsAction } from './meeting_prep_sections'
import { subjectLineAction } from './meeting_prep_subject'
import { crmLookupObjectAction } from './crm_lookup_object'
import { crmUpdateObjectAction } from './crm_update_object'
import { getVideoTranscriptAction } from './get_video_transcript'
import { postToSocialAction } from './post_to_social'
import { companyResearchAction } from './company_research'
import { companyResearchStartAction } from './company_research_start'
import { companyResearchStatusAction } from './company_research_status'
import { companyResearchReportAction } from './company_research_report'
import { contentAuditAction } from './content_audit'
import { seoResearchAction } from './aeo_seo_research'

/** Every action, once. Routes, validation, docs, OpenAPI and MCP tools all come from this list. */
export const actions: readonly AnyAction[] = [
  searchAction,
  invokeAgentAction,
  storeVariableAction,
  getVariableAction,
  meetingSectionsAction,
  subjectLineAction,
  crmUpdateObjectAction,
  crmLookupObjectAction,
  getVideoTranscriptAction,
  postToSocialAction,
  companyResearchAction,
  companyResearchStartAction,
  companyResearchStatusAction,
  companyResearchReportAction,
  contentAuditAction,
  seoResearchAction,
]

const byName = new Map(actions.map((a) => [a.name, a]))

/** The action registered under `name`, if any. */
export function getAction(name: string): AnyAction | undefined {
  return byName.get(name)
}
