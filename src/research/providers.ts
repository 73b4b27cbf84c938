import { competitors, homepageScreenshot, visualTimeline } from './sections/composed'
import { financials, jobOpenings, news, webTraffic } from './sections/external'
import { fundingHistory, reviews, searchKeywords } from './sections/keyed'
import { companyOverview, contact, detectedTechnologies, people, productSummary, technologyStack } from './sections/web'
import type { SectionName, SectionProvider } from './types'

/** Every section's provider, by name. */
export const PROVIDERS: Record<SectionName, SectionProvider> = {
  company_overview: companyOverview,
  visual_timeline: visualTimeline,
  product_summary: productSummary,
  homepage_screenshot: homepageScreenshot,
  technology_stack: technologyStack,
  detected_technologies: detectedTechnologies,
  search_keywords: searchKeywords,
  financials,
  funding_history: fundingHistory,
  web_traffic: webTraffic,
  news,
  people,
  competitors,
  job_openings: jobOpenings,
  contact,
  reviews,
}
