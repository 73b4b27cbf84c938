/// <reference types="vite/client" />
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { extractHtml, extractHtmlText } from '../../src/providers/web/html'
import { tokenizeHtml, type TagElement } from '../../src/providers/web/html-tokenizer'
import { HTML_PATHS, ORIGIN, trailgear } from '../fixtures/sites/trailgear'

/**
 * The tokenizer must tokenize as HTMLRewriter (lol-html, a spec-following tokenizer) does: every
 * case here runs through both and compares the start tags, end tags and text they report. What
 * the extractor makes of those events is its own (see docs/html-reader.md) and tested apart.
 */

const fixtures = import.meta.glob(['../fixtures/**/*.html', '../fixtures/**/*.html.static'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>

type Event = ['start', string, [string, string][], boolean] | ['end', string] | ['text', string]

/** Start tags, end tags and text between them (adjacent chunks joined: only their concatenation matters). */
function recorder() {
  const events: Event[] = []
  const text = (raw: string) => {
    const last = events[events.length - 1]
    if (last?.[0] === 'text') last[1] += raw
    else if (raw) events.push(['text', raw])
  }
  const element = (el: TagElement) => {
    const tag = el.tagName
    let canEnd = true
    try {
      el.onEndTag(() => events.push(['end', tag]))
    } catch {
      canEnd = false
    }
    events.push(['start', tag, [...el.attributes].map(([k, v]) => [k, v] as [string, string]), canEnd])
  }
  return { events, text, element }
}

async function rewriterEvents(html: string): Promise<Event[]> {
  const r = recorder()
  await new HTMLRewriter()
    .on('*', { element: r.element })
    .onDocument({ text: (c) => r.text(c.text) })
    .transform(new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }))
    .arrayBuffer()
  return r.events
}

function tokenizerEvents(html: string): Event[] {
  const r = recorder()
  tokenizeHtml(html, r)
  return r.events
}

async function same(html: string) {
  expect(tokenizerEvents(html)).toEqual(await rewriterEvents(html))
}

const EDGE_CASES = [
  '<p id=1>one<p id=2>two</p></p>x',
  '<li>a</li><li>b</li><li>c<li>d</li>',
  '<div><a href=x>t</div>z</a> <div><table><td>x</div>y</td></table></div>',
  '<svg><a/><title>x<b>y</b></title><foreignObject><p>in</p><title>t<i></title></foreignObject></svg><noscript><img src=a></noscript><title>a<b>c</b></title>',
  '<svg><p><title>a<b>c</b></title></p></svg><svg><font color=red><title>r<b></title></font></svg><svg><font><title>q<b>w</b></title></font></svg>',
  '<math><mi><b>x</b><title>t<i></title></mi><mi/></math><math><annotation-xml encoding="text/html"><title>a<b>c</b></title></annotation-xml></math>',
  // HTML inside an integration point is left by the end tag of any integration point around it.
  '<svg><title></desc><style><p>x</style></svg><svg><foreignObject></title><style><p></svg><math><mi></mo><style><p><math><annotation-xml encoding="text/html"></mi><style><p>',
  '<svg><![CDATA[y<b>]]></svg><![CDATA[z]]>after<svg/><p>x</p>',
  '<script>if (a<b) x="</div>"</script><style>p>a{}</style><textarea><b>x</b></textarea><xmp><i></xmp><iframe><u></iframe><noembed><a></noembed>',
  '<script><!--<script>x</script>-->y</script>z<script><!-->a</script>b<script><!--->c</script>d<script><!-- x --></script>e',
  '<script>a<!--b<script>c</script>d</script>e</SCRIPT >f',
  '<!-- c --><!doctype html><?php x ?>q</ >r<!x>s</>t<!---->u<!-->v<!--->w<!--a--!>x',
  '<A HREF="X" Data-Foo=1 data-foo=2 =eq>t</A><IMG SRC=x ALT><a href=x/>q</a><a href="1"title=\'2\'>r</a><a b = c d>e</a>',
  'x < y &lt; z a<3 b <> c <? d',
  '<br></br><p></br>x<div/>y</div><span/>z',
  '<title>x</titlex>y</title ><textarea>a</textarea foo="></textarea>">b',
  '<plaintext><b>x</b></plaintext>',
  '<a href=x',
  'a<b c="d',
  '<!--x',
  'text</',
  '<html lang="en"><head><title>T</title><meta name="description" content="D &amp; d"></head><body><nav lang="de"><a href="/x">hier</a></nav><main><h1>Why?</h1><p>Because it is so, as said here.</p></main></body></html>',
]

describe('HTML tokenizer', () => {
  it('reads edge cases as HTMLRewriter does', async () => {
    for (const html of EDGE_CASES) await same(html)
  })

  it('reads the recorded fixture pages as HTMLRewriter does', async () => {
    expect(Object.keys(fixtures).length).toBeGreaterThanOrEqual(5)
    for (const [path, html] of Object.entries(fixtures)) {
      expect(tokenizerEvents(html), path).toEqual(await rewriterEvents(html))
    }
  })

  it('reads the test site pages as HTMLRewriter does', async () => {
    for (const path of HTML_PATHS) {
      const res = await trailgear(new Request(ORIGIN + path))
      await same(await res!.text())
    }
  })

  it('reads random markup as HTMLRewriter does', async () => {
    const piece = fc.constantFrom(
      '<p>',
      '</p>',
      '<div>',
      '</div>',
      '<a href="/x">',
      '<a href=/y nofollow rel=nofollow>',
      '</a>',
      '<li>',
      '</li>',
      '<ul>',
      '</ul>',
      '<h2>',
      '</h2>',
      '<title>',
      '</title>',
      '<script>',
      '</script>',
      '<script type="application/ld+json">',
      '<style>',
      '</style>',
      '<noscript>',
      '</noscript>',
      '<svg>',
      '</svg>',
      '<math>',
      '</math>',
      '<mi>',
      '<desc>',
      '</desc>',
      '<foreignObject>',
      '</foreignObject>',
      '</mi>',
      '<mo>',
      '</mo>',
      '<font color=red>',
      '<b>',
      '</b>',
      '<br/>',
      '<img src=a>',
      '<!--',
      '-->',
      '<!-->',
      '<![CDATA[',
      ']]>',
      '<!doctype html>',
      '<?x?>',
      '</ >',
      '</>',
      '</br>',
      '<',
      '>',
      '"',
      "'",
      '=',
      '/',
      ' ',
      '\n',
      '&amp;',
      '&lt;',
      'What is it?',
      'word',
      'Mot français',
      '<span lang="fr">',
      '</span>',
      '<main>',
      '<nav>',
      '</nav>',
      '<textarea>',
      '</textarea>',
      '<div itemprop=author>',
      // Not '<svg/>' or '<math/>' alone: the test runtime's older HTMLRewriter still enters foreign content for them.
      '<mi/>',
      '<a/>',
      '<p/>',
      '<title/>',
      '<annotation-xml encoding="text/html">',
      '<plaintext>',
      '<xmp>',
      '</xmp>',
      '<h1 lang=en>',
      '</h1>',
    )
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 40 }), async (pieces) => {
        await same(pieces.join(''))
      }),
      { numRuns: 3000 },
    )
  })

  // A search per comment or per escaped script for a marker the page lacks would take minutes here
  // (the clock does not move inside a Worker, so the test's timeout is the guard).
  it('stays linear on pages full of comments and escaped scripts with no closing marker', () => {
    const pages = ['<!--x-->'.repeat(100_000), '<script><!--<a></script>'.repeat(40_000), `<svg>${'<![CDATA[x]]>'.repeat(50_000)}</svg>`]
    const elements = pages.map((html) => {
      let n = 0
      tokenizeHtml(html, { element: () => void n++, text: () => undefined })
      return n
    })
    expect(elements).toEqual([0, 40_000, 1])
  })

  it('stays linear on a deep stack of open elements under end tags that match none of them', () => {
    let ended = 0
    const html = `${'<div>'.repeat(100_000)}${'</span>'.repeat(100_000)}<b></b>`
    tokenizeHtml(html, { element: (el) => el.tagName === 'b' && el.onEndTag(() => void ended++), text: () => undefined })
    expect(ended).toBe(1)
  })

  it('decodes the body with the charset of Content-Type, UTF-8 when none is given', async () => {
    const latin1 = new Uint8Array([0x3c, 0x70, 0x3e, 0x63, 0x61, 0x66, 0xe9, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x73])
    const utf8 = new TextDecoder().decode(latin1)
    for (const [type, text] of [
      ['text/html; charset=iso-8859-1', '<p>café cafés'],
      ['text/html;charset="latin1"', '<p>café cafés'],
      ['TEXT/HTML; CHARSET=windows-1252', '<p>café cafés'],
      ['text/html', utf8],
      ['text/html; charset=', utf8],
    ]) {
      const ours = await extractHtml(new Response(latin1, { headers: { 'content-type': type } }), 'https://a.test/')
      expect(ours, type).toEqual(extractHtmlText(text, 'https://a.test/'))
    }
    for (const [type, message] of [
      ['text/html; charset=utf-16', 'Expected ASCII-compatible encoding'],
      ['text/html; charset=no-such-charset', 'Unknown character encoding'],
    ]) {
      const rewriter = async () =>
        new HTMLRewriter()
          .on('*', { element: () => undefined })
          .transform(new Response('x', { headers: { 'content-type': type } }))
          .arrayBuffer()
      await expect(rewriter()).rejects.toThrow(message)
      await expect(extractHtml(new Response('x', { headers: { 'content-type': type } }), 'https://a.test/')).rejects.toThrow(message)
    }
  })
})
