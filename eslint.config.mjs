// @ts-check
import js from '@eslint/js'
import regexp from 'eslint-plugin-regexp'
import tseslint from 'typescript-eslint'

/**
 * The design's rules, enforced: outbound calls only through the guarded client, SQL only in src/db/.
 * Both are `no-restricted-*` rules, whose options one block replaces rather than merges, so each
 * part of src/ gets the full list that applies to it.
 */

/**
 * The modules that may call the runtime's fetch: the guarded client (SSRF checks, caps, timeouts)
 * and its DNS-over-HTTPS resolver, which the guard itself uses to check names before any call.
 */
const GUARDED_CLIENT = ['src/providers/web/fetch.ts', 'src/providers/web/dns.ts']

const fetchMessage = 'Outbound calls go through the guarded client (ctx.fetch, or createGuardedFetch in providers/web/fetch.ts), which checks every address, caps sizes and times out.'
const sqlMessage = 'SQL lives only in src/db/: add a typed query function there and call it.'

/**
 * The URI built-ins throw URIError on text that reaches them from outside: a lone surrogate ("\\ud800",
 * which JSON allows) in encodeURI*, bad percent-encoding ("%E0") in decodeURI*. Only lib/text.ts
 * calls them, behind helpers that cannot throw (encodeUriPart, encodeUriText, encodeUri, decodeUriPart).
 */
const URI_HELPERS = 'src/lib/text.ts'
const uriMessage = 'Use the helpers in src/lib/text.ts (encodeUriPart, encodeUriText, encodeUri, decodeUriPart): the built-in throws URIError on a lone surrogate or bad percent-encoding.'
const noUriBuiltins = ['encodeURIComponent', 'encodeURI', 'decodeURIComponent', 'decodeURI'].map((name) => ({ name, message: uriMessage }))
// The same built-ins reached through the global object.
const noUriMembers = ['property.name', 'property.value'].map((key) => ({ selector: `MemberExpression[object.name=/^(globalThis|self)$/][${key}=/^(en|de)codeURI(Component)?$/]`, message: uriMessage }))

const noGlobalFetch = {
  globals: [{ name: 'fetch', message: fetchMessage }],
  syntax: [{ selector: "MemberExpression[object.name=/^(globalThis|self)$/][property.name='fetch']", message: fetchMessage }],
}

// Upper-case keywords only, as the code writes SQL: prose such as "select one from the list" is not SQL.
const SQL = String.raw`/(\bSELECT\b[\s\S]*\bFROM\b|\bINSERT\s+(OR\s+[A-Z]+\s+)?INTO\b|\bUPDATE\s+\S+\s+SET\b|\bDELETE\s+FROM\b|\bCREATE\s+(TABLE|INDEX|TRIGGER)\b)/`
// A template splits a statement around its interpolations (`SELECT ${cols} FROM agents`), so a piece
// that ends in SELECT or UPDATE, or starts with FROM or SET, is SQL too.
const SQL_PIECE = String.raw`/(\b(SELECT|UPDATE)\s*$|^\s*(FROM|SET)\b)/`
const noSql = [
  { selector: `Literal[value=${SQL}]`, message: sqlMessage },
  { selector: `TemplateElement[value.raw=${SQL}]`, message: sqlMessage },
  { selector: `TemplateElement[value.raw=${SQL_PIECE}]`, message: sqlMessage },
  { selector: "CallExpression[callee.property.name='prepare']", message: sqlMessage },
]

/**
 * Where src/ runs regexes on text an attacker writes: fetched pages, their headers, robots.txt,
 * sitemaps and feeds (crawler, audit, research, SEO), provider payloads, and callers' own input
 * (actions, CRM). A regex that rescans a run once per start position is quadratic there, not only
 * one that backtracks (see the ReDoS block below).
 */
const UNTRUSTED_TEXT = ['src/actions/**/*.ts', 'src/audit/**/*.ts', 'src/crawler/**/*.ts', 'src/crm/**/*.ts', 'src/providers/**/*.ts', 'src/research/**/*.ts', 'src/seo/**/*.ts', 'src/lib/text.ts']

export default tseslint.config(
  { ignores: ['node_modules/**', '.wrangler/**', 'worker-configuration.d.ts', 'test/fixtures/**', 'scripts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // Unused names are errors, except the `_` prefix the code uses for values destructured away.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/db/**', ...GUARDED_CLIENT, URI_HELPERS],
    rules: {
      'no-restricted-globals': ['error', ...noGlobalFetch.globals, ...noUriBuiltins],
      'no-restricted-syntax': ['error', ...noGlobalFetch.syntax, ...noUriMembers, ...noSql],
    },
  },
  {
    files: [URI_HELPERS],
    rules: {
      'no-restricted-globals': ['error', ...noGlobalFetch.globals],
      'no-restricted-syntax': ['error', ...noGlobalFetch.syntax, ...noSql],
    },
  },
  {
    files: ['src/db/**/*.ts'],
    rules: {
      'no-restricted-globals': ['error', ...noGlobalFetch.globals, ...noUriBuiltins],
      'no-restricted-syntax': ['error', ...noGlobalFetch.syntax, ...noUriMembers],
    },
  },
  {
    files: GUARDED_CLIENT,
    rules: { 'no-restricted-globals': ['error', ...noUriBuiltins], 'no-restricted-syntax': ['error', ...noUriMembers, ...noSql] },
  },
  {
    // ReDoS: a regex that backtracks super-linearly can spend a request's whole CPU limit on one
    // crafted string. The backtracking rules, and those for patterns that are plainly wrong (dead or
    // ambiguous alternatives, groups and assertions that cannot matter); not the plugin's style rules
    // (flag order, class order, named groups, `u` everywhere), which would rewrite hundreds of working
    // patterns for no safety gain. The lint cannot read a pattern built from a variable at run time
    // (research/tech.ts, the feed reader in research/site.ts): those are kept linear by hand. Not in
    // test/, whose patterns read the project's own fixtures and keep old patterns as oracles.
    files: ['src/**/*.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-dupe-disjunctions': 'error',
      'regexp/no-misleading-capturing-group': 'error',
      'regexp/no-lazy-ends': 'error',
      'regexp/no-optional-assertion': 'error',
      'regexp/no-contradiction-with-assertion': 'error',
      'regexp/no-potentially-useless-backreference': 'error',
      'regexp/no-useless-backreference': 'error',
      'regexp/no-empty-capturing-group': 'error',
      'regexp/no-empty-group': 'error',
      'regexp/no-empty-lookarounds-assertion': 'error',
      'regexp/no-zero-quantifier': 'error',
      'regexp/no-useless-dollar-replacements': 'error',
      'regexp/no-missing-g-flag': 'error',
    },
  },
  {
    // An unanchored `x+$` or `<[^>]*>` starts over at every "x" or "<" and scans the rest, so a long
    // run of them costs the square of its length. Real only where the run comes from outside; a base
    // URL from settings is not attacker text, but the same linear form costs nothing there.
    files: UNTRUSTED_TEXT,
    plugins: { regexp },
    rules: { 'regexp/no-super-linear-move': 'error' },
  },
)
