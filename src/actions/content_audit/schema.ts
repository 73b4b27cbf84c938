import { z } from 'zod'
import { THIN_CONTENT_WORDS } from '../../audit/page-checks'
import { outputVariable } from '../common/fields'

/** Largest page cap a caller may ask for. */
export const MAX_PAGES_LIMIT = 1000

export const ContentAuditInput = z
  .strictObject({
    website_url: z
      .string()
      .max(2048)
      .url('must be a full URL including the https:// scheme')
      .refine((v) => /^https?:\/\//i.test(v), 'must use the http or https scheme')
      .describe('Full URL of the site (or section) to audit, including the https:// scheme; the crawl starts here'),
    audit_scope: z
      .enum(['full_site', 'blog_only', 'custom_path'])
      .default('full_site')
      .describe(
        'full_site: every page of the site; blog_only: blog-like sections found from URLs, post sitemaps and feeds; custom_path: pages under custom_path (or under the path of website_url). Default "full_site".',
      ),
    optimization_focus: z
      .enum(['seo_focused', 'aeo_focused', 'balanced'])
      .default('balanced')
      .describe('Weights the overall score and the action-plan priorities toward search (SEO) or answer engines (AEO). Default "balanced".'),
    custom_path: z
      .string()
      .max(512)
      .regex(/^\/[^\s?#]*$/, 'must be a URL path starting with "/" (no query or fragment)')
      .optional()
      .describe('Path prefix audited when audit_scope is custom_path, e.g. "/docs/"; default: the path of website_url'),
    max_pages: z.number().int().min(1).max(MAX_PAGES_LIMIT).default(100).describe(`Most URLs fetched (pages, redirects and errors alike), 1-${MAX_PAGES_LIMIT}. Default 100.`),
    thin_content_words: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .default(THIN_CONTENT_WORDS)
      .describe(
        `Pages with fewer words of main content (the main/article region when the page has one, else the body without navigation, header, footer and aside) are reported as thin, 0-10000. Default ${THIN_CONTENT_WORDS}, the "Low Content Pages" threshold of Screaming Frog's SEO Spider.`,
      ),
    output_variable_name: outputVariable('content_audit'),
  })
  .superRefine((v, ctx) => {
    if (v.custom_path !== undefined && v.audit_scope !== 'custom_path') {
      ctx.addIssue({ code: 'custom', path: ['custom_path'], message: 'custom_path is only used with audit_scope "custom_path"' })
    }
  })

export type ContentAuditInput = z.output<typeof ContentAuditInput>
