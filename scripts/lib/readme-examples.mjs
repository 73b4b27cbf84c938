/**
 * The README's curl examples as requests: each ```sh block is read as the shell would read it (quotes,
 * $VARIABLES, line continuations, comments) and every `curl` command in it becomes { method, url,
 * headers, body }. No shell or curl is needed to run them, so a test can check them on any machine.
 */

/** The ```sh blocks of a Markdown text, with the line each starts on. */
export function shellBlocks(markdown) {
  const out = []
  const re = /^```(?:sh|bash|shell)\n([\s\S]*?)^```/gm
  for (let m; (m = re.exec(markdown)); ) out.push({ text: m[1], line: markdown.slice(0, m.index).split('\n').length + 1 })
  return out
}

/**
 * Splits shell text into commands of words, as POSIX sh does for the subset examples use: '...' kept
 * as is, "..." with $VAR / ${VAR} expanded and \" \\ \$ escapes, bare words expanded, backslash-newline
 * joining lines, `#` comments, and `;`, `&&`, `|`, newlines ending a command. `$(...)` is kept as text.
 */
export function shellCommands(text, vars = {}) {
  const commands = []
  let words = []
  let word = null
  const expand = (name) => vars[name] ?? ''
  const end = () => {
    if (word !== null) words.push(word)
    word = null
  }
  const endCommand = () => {
    end()
    if (words.length) commands.push(words)
    words = []
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (ch === '\\' && text[i + 1] === '\n') {
      i++
      continue
    }
    if (ch === '\\') {
      word = (word ?? '') + (text[i + 1] ?? '')
      i++
    } else if (ch === "'") {
      const close = text.indexOf("'", i + 1)
      if (close < 0) throw new Error(`unclosed ' in: ${text.slice(i, i + 60)}`)
      word = (word ?? '') + text.slice(i + 1, close)
      i = close
    } else if (ch === '"') {
      let j = i + 1
      let part = ''
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && '"\\$`\n'.includes(text[j + 1])) part += text[++j] === '\n' ? '' : text[j]
        else if (text[j] === '$') {
          const m = /^\$(?:\{(\w+)\}|(\w+))/.exec(text.slice(j))
          if (m) {
            part += expand(m[1] ?? m[2])
            j += m[0].length - 1
          } else part += '$'
        } else part += text[j]
      }
      if (j >= text.length) throw new Error(`unclosed " in: ${text.slice(i, i + 60)}`)
      word = (word ?? '') + part
      i = j
    } else if (ch === '$' && text[i + 1] === '(') {
      let depth = 0
      let j = i + 1
      for (; j < text.length; j++) {
        if (text[j] === '(') depth++
        else if (text[j] === ')' && --depth === 0) break
      }
      word = (word ?? '') + text.slice(i, j + 1)
      i = j
    } else if (ch === '$') {
      const m = /^\$(?:\{(\w+)\}|(\w+))/.exec(text.slice(i))
      if (m) {
        word = (word ?? '') + expand(m[1] ?? m[2])
        i += m[0].length - 1
      } else word = (word ?? '') + '$'
    } else if (ch === '#' && word === null) {
      while (i < text.length && text[i] !== '\n') i++
      endCommand()
    } else if (ch === '\n' || ch === ';') endCommand()
    else if (ch === '&' && text[i + 1] === '&') {
      endCommand()
      i++
    } else if (ch === '|') {
      endCommand()
      if (text[i + 1] === '|') i++
    } else if (ch === ' ' || ch === '\t') end()
    else word = (word ?? '') + ch
  }
  endCommand()
  return commands
}

/** A curl command's request: -X, -H, -d/--data (POST unless -X says otherwise) and the URL. Throws on an option it does not know. */
export function curlRequest(words) {
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${words.join(' ')}`)
  const req = { method: null, url: null, headers: {}, body: undefined }
  for (let i = 1; i < words.length; i++) {
    const w = words[i]
    if (/^-[sSifL]+$/.test(w)) continue
    if (w === '-H' || w === '--header') {
      const h = words[++i]
      const colon = h.indexOf(':')
      req.headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim()
    } else if (w === '-d' || w === '--data' || w === '--data-raw') req.body = words[++i]
    else if (w === '-X' || w === '--request') req.method = words[++i]
    else if (!w.startsWith('-') && req.url === null) req.url = w
    else throw new Error(`curl option not understood: ${w}`)
  }
  if (!req.url) throw new Error(`curl command without a URL: ${words.join(' ')}`)
  req.method ??= req.body === undefined ? 'GET' : 'POST'
  return req
}

/** Every curl example of a Markdown text: { block (its first line), request }, in order. */
export function curlExamples(markdown, vars = {}) {
  const out = []
  for (const block of shellBlocks(markdown)) {
    for (const words of shellCommands(block.text, vars)) if (words[0] === 'curl') out.push({ line: block.line, request: curlRequest(words) })
  }
  return out
}

/** Where the README's examples point: the default `npm run dev` address. */
export const README_BASE = 'http://localhost:8787'

/**
 * Sends examples in order to `base` (in place of README_BASE). A `run_...` placeholder in a URL or body
 * stands for the run id of the latest answer that had one, as a reader would paste it. Returns
 * [{ line, method, path, status, body }].
 */
export async function runExamples(examples, { base, timeoutMs = 60_000 }) {
  const results = []
  let lastRun = null
  for (const { line, request } of examples) {
    const fill = (text) => (lastRun ? text.replaceAll('run_...', lastRun) : text)
    const url = fill(request.url.replace(README_BASE, base))
    const res = await fetch(url, {
      method: request.method,
      headers: request.headers,
      body: request.body === undefined ? undefined : fill(request.body),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await res.text()
    let body = text
    try {
      body = JSON.parse(text)
    } catch {
      // not JSON: keep the text
    }
    // The run an answer names (a queued call's 202, research's start) before the run of the call itself.
    const runId = body?.response?.run_id ?? res.headers.get('x-run-id')
    if (runId) lastRun = runId
    results.push({ line, method: request.method, path: new URL(url).pathname, status: res.status, body })
  }
  return results
}
