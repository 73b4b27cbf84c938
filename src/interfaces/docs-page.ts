/**
 * The `/docs` page: self-contained HTML and vanilla JS (no CDN). It reads /v1/openapi.json, lists
 * every action with its fields and an example, and lets a reader send requests with a token.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent Action API reference</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f7f8fa; }
  header { background: #1d232a; color: #fff; padding: 1rem 2rem; }
  header h1 { margin: 0 0 .25rem; font-size: 1.4rem; }
  main { max-width: 60rem; margin: 0 auto; padding: 1rem 2rem 4rem; }
  label { font-weight: 600; }
  input[type=password], input[type=text], textarea { width: 100%; box-sizing: border-box; font: 13px ui-monospace, monospace; padding: .4rem; border: 1px solid #c4c9d0; border-radius: 4px; }
  textarea { min-height: 7rem; }
  section.action { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: .75rem 1rem; margin: .75rem 0; }
  section.action h3 { margin: 0; font-size: 1.05rem; }
  code.path { background: #eef1f4; padding: .1rem .3rem; border-radius: 3px; }
  .hint { display: inline-block; font-size: 12px; background: #e7f0ff; color: #1a4fa0; border-radius: 3px; padding: 0 .35rem; margin-left: .3rem; }
  table { border-collapse: collapse; width: 100%; font-size: 13px; margin: .5rem 0; }
  td, th { border-bottom: 1px solid #eef1f4; text-align: left; padding: .2rem .4rem; vertical-align: top; }
  pre { background: #1d232a; color: #e6edf3; padding: .6rem; border-radius: 4px; overflow: auto; max-height: 24rem; font-size: 12px; }
  button { background: #1a4fa0; color: #fff; border: 0; border-radius: 4px; padding: .35rem .9rem; cursor: pointer; margin-top: .4rem; }
  details > summary { cursor: pointer; }
  #status { color: #8a2020; }
  p.header { margin: .3rem 0; font-size: 13px; }
  .hint-text { color: #5a6470; font-size: 12px; }
  td.default code { white-space: nowrap; }
</style>
</head>
<body>
<header>
  <h1>Agent Action API</h1>
  <div>Every action is <code>POST /v1/action/&lt;name&gt;</code> with a JSON body and <code>Authorization: Bearer &lt;token&gt;</code>.
  Machine-readable: <a style="color:#9cc3ff" href="/v1/openapi.json">/v1/openapi.json</a> &middot; MCP: <code>POST /mcp</code></div>
</header>
<main>
  <p><label for="token">API token</label> (kept in this tab only)<br><input id="token" type="password" autocomplete="off" placeholder="aak_..."></p>
  <p id="status">Loading the API description&hellip;</p>
  <h2>Actions</h2>
  <div id="actions" aria-live="polite"></div>
  <h2>Other endpoints</h2>
  <table id="routes"><thead><tr><th>Method</th><th>Path</th><th>Summary</th></tr></thead><tbody></tbody></table>
</main>
<script>
(function () {
  'use strict'
  var tokenInput = document.getElementById('token')
  tokenInput.value = sessionStorage.getItem('aak-token') || ''
  tokenInput.addEventListener('input', function () { sessionStorage.setItem('aak-token', tokenInput.value) })

  function el(tag, attrs, children) {
    var node = document.createElement(tag)
    Object.keys(attrs || {}).forEach(function (k) { if (k === 'text') node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]) })
    ;(children || []).forEach(function (c) { node.appendChild(c) })
    return node
  }

  function typeOf(s) {
    if (!s) return ''
    if (s.enum) return s.enum.map(function (v) { return JSON.stringify(v) }).join(' | ')
    if (s.anyOf) return s.anyOf.map(typeOf).join(' | ')
    return Array.isArray(s.type) ? s.type.join(' | ') : s.type || 'any'
  }

  // A description's closing "Default ..." sentence, when the table shows the default in its own column.
  var DEFAULT_SENTENCE = /(^|[.;,]\\s+)default:?\\s+(.+?)\\.?$/i

  /** Splits a field into its meaning and its default, so the table says the default once. */
  function meaningAndDefault(p) {
    var text = p.description || ''
    var m = DEFAULT_SENTENCE.exec(text)
    var meaning = m ? text.slice(0, m.index) + (m[1] && m[1].trim() === '.' ? '.' : '') : text
    if (p.default !== undefined) return { meaning: meaning, def: JSON.stringify(p.default) }
    return { meaning: meaning, def: m ? m[2] : '' }
  }

  function fieldsTable(schema) {
    var props = (schema && schema.properties) || {}
    var required = (schema && schema.required) || []
    var body = el('tbody')
    Object.keys(props).forEach(function (name) {
      var p = props[name]
      var md = meaningAndDefault(p)
      body.appendChild(el('tr', { 'data-field': name }, [
        el('td', {}, [el('code', { text: name + (required.indexOf(name) >= 0 ? ' *' : '') })]),
        el('td', { text: typeOf(p) }),
        el('td', { class: 'default' }, md.def ? [el('code', { text: md.def })] : []),
        el('td', { class: 'meaning', text: md.meaning }),
      ]))
    })
    var head = el('tr', {}, ['Field', 'Type', 'Default', 'Meaning'].map(function (h) { return el('th', { text: h }) }))
    return el('table', { class: 'fields' }, [el('thead', {}, [head]), body])
  }

  /** The request headers an operation takes (Workflow-Id, Idempotency-Key, Prefer), from the document. */
  function headerParams(doc, op) {
    return (op.parameters || [])
      .map(function (p) { return p && p.$ref ? p.$ref.split('/').slice(1).reduce(function (o, k) { return o && o[k] }, doc) : p })
      .filter(function (p) { return p && p.in === 'header' })
  }

  function actionSection(doc, path, op) {
    var name = path.slice('/v1/action/'.length)
    var media = (op.requestBody && op.requestBody.content['application/json']) || {}
    var examples = media.examples || {}
    var first = Object.keys(examples)[0]
    var editor = el('textarea', { 'aria-label': 'Request body for ' + name, spellcheck: 'false' })
    editor.value = JSON.stringify(first ? examples[first].value : {}, null, 2)
    var out = el('pre', { hidden: '' })
    var headerInputs = headerParams(doc, op).map(function (p) {
      var examples = (p.schema && p.schema.examples) || []
      var input = el('input', { type: 'text', 'data-header': p.name, 'aria-label': p.name + ' header for ' + name, placeholder: examples.length ? examples.join(' or ') : '', autocomplete: 'off' })
      return el('p', { class: 'header' }, [el('label', { text: p.name }), el('br'), input, el('span', { class: 'hint-text', text: p.description || '' })])
    })
    var send = el('button', { type: 'button', text: 'Send' })
    send.addEventListener('click', function () {
      var body
      try { body = JSON.parse(editor.value) } catch (e) { out.hidden = false; out.textContent = 'Body is not valid JSON: ' + e.message; return }
      out.hidden = false
      out.textContent = 'Sending...'
      var headers = { 'content-type': 'application/json', authorization: 'Bearer ' + tokenInput.value }
      headerInputs.forEach(function (row) {
        var input = row.querySelector('input')
        if (input.value.trim() !== '') headers[input.getAttribute('data-header')] = input.value.trim()
      })
      fetch(path, { method: 'POST', headers: headers, body: JSON.stringify(body) })
        .then(function (res) { return res.text().then(function (t) { return res.status + ' ' + res.statusText + '\\n\\n' + t }) })
        .then(function (t) { try { var i = t.indexOf('\\n\\n'); out.textContent = t.slice(0, i + 2) + JSON.stringify(JSON.parse(t.slice(i + 2)), null, 2) } catch (e) { out.textContent = t } })
        .catch(function (e) { out.textContent = 'Request failed: ' + e.message })
    })
    var hints = []
    if (op['x-read-only']) hints.push('read-only')
    if (op['x-side-effect']) hints.push('side effects')
    if (op['x-destructive']) hints.push('destructive')
    if (op['x-idempotent']) hints.push('idempotent')
    if (op.responses && op.responses['202']) hints.push('may queue (202)')
    var title = el('h3', {}, [el('code', { class: 'path', text: name })])
    hints.forEach(function (h) { title.appendChild(el('span', { class: 'hint', text: h })) })
    return el('section', { class: 'action', 'data-action': name }, [
      title,
      el('p', { text: op.description || op.summary || '' }),
      el('details', {}, [el('summary', { text: 'Fields' }), fieldsTable(media.schema)]),
      el('details', {}, [el('summary', { text: 'Try it' })].concat(headerInputs, [editor, send, out])),
    ])
  }

  fetch('/v1/openapi.json')
    .then(function (res) { if (!res.ok) throw new Error('HTTP ' + res.status); return res.json() })
    .then(function (doc) {
      var list = document.getElementById('actions')
      var rows = document.querySelector('#routes tbody')
      Object.keys(doc.paths).forEach(function (path) {
        var item = doc.paths[path]
        ;['get', 'post', 'put', 'patch', 'delete'].forEach(function (method) {
          var op = item[method]
          if (!op) return
          if (path.indexOf('/v1/action/') === 0 && path.indexOf('{') < 0) list.appendChild(actionSection(doc, path, op))
          else rows.appendChild(el('tr', {}, [el('td', { text: method.toUpperCase() }), el('td', {}, [el('code', { text: path })]), el('td', { text: op.summary || '' })]))
        })
      })
      var status = document.getElementById('status')
      status.textContent = doc.info.title + ' ' + doc.info.version + ': ' + list.children.length + ' actions'
      status.style.color = 'inherit'
      document.body.setAttribute('data-ready', 'true')
    })
    .catch(function (e) { document.getElementById('status').textContent = 'Could not load /v1/openapi.json: ' + e.message })
})()
</script>
</body>
</html>
`
