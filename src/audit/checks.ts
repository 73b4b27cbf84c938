/** The catalog of audit checks: what each one means, why it matters and how to fix it. */

export type Category = 'seo' | 'aeo'
/** `info` reports a fact that needs no fix (a URL robots.txt excludes); it is never scored or planned. */
export type Severity = 'error' | 'warning' | 'notice' | 'info'

export interface CheckInfo {
  category: Category
  severity: Severity
  /** Share of the page (or site) score this check carries when it applies. */
  weight: number
  /** What the check found when it fails. */
  title: string
  /** The same check worded as a pass ("robots.txt is valid"). */
  passed: string
  why: string
  fix: string
}

/** A failed check on one page (or on the site, with `page` null). */
export interface Finding {
  check: CheckId
  message: string
  details?: unknown
}

export const CHECKS = {
  'http-status': { category: 'seo', severity: 'error', weight: 10, title: 'Page answers with an error status', passed: 'Every page answers with a success status', why: 'Pages answering 4xx/5xx are dropped from search indexes and waste crawl budget; links to them are dead ends.', fix: 'Restore the page, or 301-redirect it to its closest live equivalent and update links pointing to it.' },
  'document-title': { category: 'seo', severity: 'error', weight: 8, title: 'Page has no <title>', passed: 'Every page has a <title>', why: 'The title is the headline of the search result and the strongest on-page relevance signal.', fix: 'Give every page a unique, descriptive <title> of 30-60 characters that leads with its main topic.' },
  'meta-description': { category: 'seo', severity: 'error', weight: 5, title: 'Page has no meta description', passed: 'Every page has a meta description', why: 'Search engines and answer engines use the description as the result snippet; without one they pick text that may not sell the click.', fix: 'Add <meta name="description"> of 70-160 characters summarizing the page.' },
  noindex: { category: 'seo', severity: 'error', weight: 10, title: 'Page is blocked from indexing', passed: 'No page is blocked from indexing', why: 'A noindex directive (meta robots, a bot-specific meta tag or the X-Robots-Tag header) keeps the page out of search results.', fix: 'Remove noindex/none from the meta robots tag and the X-Robots-Tag header on pages that should rank; keep it where the page should stay out of results.' },
  'robots-excluded': { category: 'seo', severity: 'info', weight: 0, title: 'Excluded by robots.txt', passed: 'No URL is excluded by robots.txt', why: "The site's robots.txt disallows this URL, so it was not fetched and search engines do not crawl it either; that is the site's own choice.", fix: 'Nothing to do unless the exclusion is a mistake.' },
  'crawlable-anchors': { category: 'seo', severity: 'warning', weight: 3, title: 'Links are not crawlable', passed: 'Links are crawlable', why: 'Search engines follow only <a href> links with resolvable URLs; script-only links hide pages from crawlers.', fix: 'Use <a href="/real-url"> for navigation; keep click handlers as progressive enhancement.' },
  'link-text': { category: 'seo', severity: 'warning', weight: 3, title: 'Links have non-descriptive text', passed: 'Link texts are descriptive', why: 'Anchor text like "click here" tells search engines nothing about the target page.', fix: 'Rewrite link text to name the destination ("pricing for teams" instead of "click here").' },
  hreflang: { category: 'seo', severity: 'error', weight: 4, title: 'Invalid hreflang annotations', passed: 'hreflang annotations are valid', why: 'Invalid language codes or relative/missing hrefs make search engines ignore the language alternates.', fix: 'Use valid BCP 47 codes (or x-default) with absolute URLs in <link rel="alternate" hreflang> and Link headers.' },
  canonical: { category: 'seo', severity: 'error', weight: 6, title: 'Invalid canonical URL', passed: 'Canonical URLs are valid', why: 'Conflicting, relative, cross-domain or root-pointing canonicals confuse which URL should rank, and search engines may ignore them.', fix: 'Declare exactly one absolute canonical URL per page, on the same site, pointing to the page itself or its true duplicate.' },
  'title-length': { category: 'seo', severity: 'notice', weight: 1, title: 'Title too short or too long', passed: 'Titles are 10-65 characters', why: 'Titles under 10 or over 65 characters are either vague or cut off in results.', fix: 'Keep titles between 10 and 65 characters.' },
  'meta-description-length': { category: 'seo', severity: 'notice', weight: 1, title: 'Meta description too short or too long', passed: 'Meta descriptions are 50-165 characters', why: 'Descriptions under 50 or over 165 characters are thin or truncated in results.', fix: 'Write 70-160 character descriptions.' },
  'h1-missing': { category: 'seo', severity: 'warning', weight: 3, title: 'Page has no H1', passed: 'Every page has an H1', why: 'An H1 states the page topic for readers, search engines and answer engines.', fix: 'Give the page one H1 that names its main topic.' },
  'h1-multiple': { category: 'seo', severity: 'warning', weight: 2, title: 'Page has several H1 headings', passed: 'No page has several H1 headings', why: 'Several H1s blur which topic the page is about.', fix: 'Keep one H1 for the page topic and make the others H2.' },
  'heading-order': { category: 'seo', severity: 'notice', weight: 1, title: 'Heading levels skip', passed: 'Heading levels do not skip', why: 'Skipped heading levels (H2 to H4) break the outline machines use to understand sections.', fix: 'Nest headings in order: H1, then H2, then H3.' },
  'thin-content': { category: 'seo', severity: 'warning', weight: 4, title: 'Thin content', passed: 'Pages have enough main text', why: 'Pages with little main text rarely rank or get cited; they can drag down the perceived quality of the site.', fix: 'Expand the page to fully cover its topic, or merge it into a stronger page.' },
  'duplicate-title': { category: 'seo', severity: 'warning', weight: 3, title: 'Duplicate titles', passed: 'Titles are unique', why: 'Pages sharing a title compete for the same query and look like duplicates.', fix: 'Make every title unique to its page.' },
  'duplicate-description': { category: 'seo', severity: 'warning', weight: 2, title: 'Duplicate meta descriptions', passed: 'Meta descriptions are unique', why: 'Repeated descriptions make results look identical and are often replaced by search engines.', fix: 'Write a unique description per page.' },
  'image-alt': { category: 'seo', severity: 'warning', weight: 2, title: 'Images without alt text', passed: 'Images have alt text', why: 'Alt text is how search engines and assistive technology understand images.', fix: 'Add an alt attribute to every image (alt="" for purely decorative ones).' },
  'broken-links': { category: 'seo', severity: 'error', weight: 5, title: 'Broken internal links', passed: 'Internal links reach live pages', why: 'Links to missing pages waste crawl budget, leak link equity and frustrate readers.', fix: 'Point the links at live pages or redirect the missing URLs.' },
  'redirected-links': { category: 'seo', severity: 'notice', weight: 1, title: 'Internal links point at redirects', passed: 'Internal links point at final URLs', why: 'Every redirect hop slows crawling and users.', fix: 'Link straight to the final URL.' },
  'redirect-chain': { category: 'seo', severity: 'warning', weight: 3, title: 'Redirect chains or loops', passed: 'Redirects take one hop', why: 'Chains of several redirects lose link equity and may not be followed to the end.', fix: 'Redirect each old URL to its final destination in one hop.' },
  'structured-data-invalid': { category: 'seo', severity: 'error', weight: 3, title: 'Structured data does not parse', passed: 'Structured data parses', why: 'A JSON-LD block that is not valid JSON is ignored entirely, losing rich results.', fix: 'Fix the JSON syntax of the JSON-LD block (validate it with a JSON linter).' },
  'structured-data': { category: 'seo', severity: 'notice', weight: 2, title: 'No structured data', passed: 'Pages have structured data', why: 'Schema.org markup (Organization, Article, Product ...) unlocks rich results and helps machines classify the page.', fix: 'Add JSON-LD with the schema.org type that describes the page.' },
  'open-graph': { category: 'seo', severity: 'notice', weight: 1, title: 'Incomplete Open Graph tags', passed: 'Open Graph tags are complete', why: 'og:title, og:description and og:image control how shared links look on social networks and chat apps.', fix: 'Add og:title, og:description and og:image.' },
  'html-lang': { category: 'seo', severity: 'warning', weight: 2, title: 'No lang attribute', passed: 'Pages declare their language', why: 'The page language helps search engines serve it to the right audience and screen readers pronounce it.', fix: 'Set <html lang="…"> to the content language.' },
  'mixed-content': { category: 'seo', severity: 'error', weight: 3, title: 'Mixed content', passed: 'No mixed content', why: 'HTTPS pages loading http:// resources get them blocked by browsers and look insecure.', fix: 'Load every resource over https.' },
  'non-canonical': { category: 'seo', severity: 'notice', weight: 1, title: 'Page is canonicalized to another URL', passed: 'Pages are their own canonical', why: 'The page declares another URL as canonical, so it will not rank itself.', fix: 'Make sure this is intended; otherwise point the canonical at the page itself.' },
  'orphan-page': { category: 'seo', severity: 'notice', weight: 1, title: 'Orphan pages', passed: 'Every page is linked from another', why: 'Pages no crawled page links to are hard for crawlers and readers to find.', fix: 'Link to them from related pages or navigation.' },
  'question-headings': { category: 'aeo', severity: 'notice', weight: 2, title: 'No question-shaped headings', passed: 'Articles phrase headings as questions', why: 'Answer engines match user questions to headings phrased as questions.', fix: 'Phrase some subheadings as the questions readers ask ("How long does X take?").' },
  'direct-answers': { category: 'aeo', severity: 'warning', weight: 4, title: 'Questions without a direct answer', passed: 'Question headings get a direct answer', why: 'Answer engines quote the first sentences under a question; a heading followed by anything but a concise answer is rarely cited.', fix: 'Put a 1-3 sentence direct answer (or a list/table) right below each question heading.' },
  'faq-schema': { category: 'aeo', severity: 'notice', weight: 3, title: 'Q&A content without FAQ/HowTo markup', passed: 'Q&A content has FAQ/HowTo markup', why: 'FAQPage, QAPage and HowTo structured data make questions and steps machine-readable.', fix: 'Add FAQPage (or HowTo) JSON-LD mirroring the questions and answers on the page.' },
  'lists-tables': { category: 'aeo', severity: 'notice', weight: 2, title: 'Long text without lists or tables', passed: 'Long texts use lists or tables', why: 'Answer engines extract steps and comparisons from lists and tables far more readily than from prose.', fix: 'Break steps, options and comparisons into lists or tables.' },
  author: { category: 'aeo', severity: 'warning', weight: 3, title: 'No author information', passed: 'Articles name their author', why: 'Named authorship is an expertise and trust signal for search and answer engines.', fix: 'Show the author (byline with rel="author" or meta author) and add author to Article JSON-LD.' },
  dates: { category: 'aeo', severity: 'warning', weight: 3, title: 'No published or updated date', passed: 'Articles show a date', why: 'Answer engines prefer content whose freshness they can verify.', fix: 'Show a visible date and add datePublished/dateModified (or article:published_time).' },
  freshness: { category: 'aeo', severity: 'notice', weight: 2, title: 'Stale content', passed: 'Content is fresh', why: 'Content not updated for over 18 months is less likely to be cited for current questions.', fix: 'Review and update the page, then bump dateModified.' },
  'robots-txt': { category: 'seo', severity: 'error', weight: 6, title: 'robots.txt is not valid', passed: 'robots.txt is valid', why: 'An unreachable (5xx) or malformed robots.txt can stop crawlers or make them ignore your rules.', fix: 'Serve robots.txt with status 200 (or 404) and fix the listed lines.' },
  sitemap: { category: 'seo', severity: 'warning', weight: 4, title: 'Sitemap missing or broken', passed: 'The XML sitemap is found and its URLs answer', why: 'Sitemaps tell search engines which pages exist and when they changed.', fix: 'Publish an XML sitemap of canonical pages and list it in robots.txt with a Sitemap: line.' },
  'llms-txt': { category: 'aeo', severity: 'notice', weight: 3, title: 'No llms.txt', passed: 'llms.txt is present', why: 'llms.txt gives AI assistants a curated map of the site in plain Markdown.', fix: 'Publish /llms.txt with a short summary and links to the key pages.' },
  'ai-crawlers': { category: 'aeo', severity: 'warning', weight: 6, title: 'robots.txt blocks AI answer-engine crawlers', passed: 'robots.txt allows AI answer-engine crawlers', why: 'Blocked answer-engine crawlers (OAI-SearchBot, PerplexityBot, Claude-SearchBot ...) cannot read or cite the site.', fix: 'Allow the answer-engine crawlers you want to be cited by in robots.txt; keep training crawlers blocked if that is your policy.' },
  'ai-training-crawlers': { category: 'aeo', severity: 'notice', weight: 1, title: 'robots.txt blocks AI training crawlers', passed: 'robots.txt allows AI training crawlers', why: 'Blocking training crawlers (GPTBot, Google-Extended, CCBot ...) is a policy choice; it may reduce how well models know the brand.', fix: 'Keep or lift these blocks deliberately.' },
} as const satisfies Record<string, CheckInfo>

export type CheckId = keyof typeof CHECKS

/** Checks scored per page (the rest are site-level). */
export const SITE_CHECKS: CheckId[] = ['robots-txt', 'sitemap', 'llms-txt', 'ai-crawlers', 'ai-training-crawlers']
