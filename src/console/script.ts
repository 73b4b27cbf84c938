/**
 * The console's browser script, served as a same-origin file (CSP default-src 'self': no inline
 * script). It keeps the API token in sessionStorage (this tab only), calls the JSON API with it, and
 * builds every piece of caller data into the page with textContent or form values: never as HTML.
 */
export const CONSOLE_JS = String.raw`'use strict';
(function () {
  var KEY = 'agent-action-api.token';
  var body = document.body;
  var REPORT_ACTIONS = (body.getAttribute('data-report-actions') || '').split(',');
  var $ = function (sel) { return document.querySelector(sel); };
  var state = { runsSeq: 0, runsCursor: null, runsTimer: null, runTimer: null, openRun: null };

  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === 'text') node.textContent = String(v);
      else if (k === 'on') Object.keys(v).forEach(function (ev) { node.addEventListener(ev, v[ev]); });
      else node.setAttribute(k, v === true ? '' : String(v));
    });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function json(v) { var t = JSON.stringify(v, null, 2); return t && t.length > 200000 ? t.slice(0, 200000) + '\n… (cut at 200,000 characters)' : t; }
  function when(iso) { return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC') : '—'; }
  function badge(word) { return h('span', { class: 'badge badge-' + String(word).replace(/[^a-z0-9-]/gi, '').toLowerCase(), text: word }); }
  function status(text, isError) { var s = $('#status'); s.textContent = text || ''; s.className = isError ? 'error' : ''; }

  function token() { return sessionStorage.getItem(KEY); }
  function api(method, path, payload) {
    var headers = { authorization: 'Bearer ' + token() };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    return fetch(path, { method: method, headers: headers, body: payload === undefined ? undefined : JSON.stringify(payload) }).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (data) {
        if (res.status === 401) { signOut('Your token was refused: ' + ((data && data.error) || 'unauthorized')); throw new Error('unauthorized'); }
        if (!res.ok && res.status !== 202) throw new Error((data && data.error) || ('HTTP ' + res.status));
        return { status: res.status, data: data };
      });
    });
  }
  function fail(err) { if (err && err.message !== 'unauthorized') status(err.message || String(err), true); }

  // Sign-in
  function signOut(message) {
    sessionStorage.removeItem(KEY);
    stopTimers();
    $('#app').hidden = true;
    $('#signin').hidden = false;
    $('#nav').hidden = true;
    $('#who').textContent = '';
    $('#signout').hidden = true;
    status(message || '', !!message);
  }
  function signedIn(me) {
    $('#signin').hidden = true;
    $('#app').hidden = false;
    $('#nav').hidden = false;
    $('#signout').hidden = false;
    $('#who').textContent = me.account_name + ' (' + me.account_id + ')';
    status('');
    route();
  }
  function checkToken() {
    return api('GET', '/v1/me').then(function (r) { signedIn(r.data.response); });
  }
  $('#signin-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var value = $('#token').value.trim();
    if (!value) { status('Enter an API token', true); return; }
    sessionStorage.setItem(KEY, value);
    $('#token').value = '';
    checkToken().catch(fail);
  });
  $('#signout').addEventListener('click', function () { signOut(''); });

  // Views
  var VIEWS = ['runs', 'agents', 'tokens', 'integrations'];
  function stopTimers() {
    clearTimeout(state.runsTimer); clearTimeout(state.runTimer);
    state.runsTimer = null; state.runTimer = null;
  }
  function route() {
    if (!token()) return;
    var view = (location.hash || '#runs').slice(1);
    if (VIEWS.indexOf(view) < 0) view = 'runs';
    stopTimers();
    VIEWS.forEach(function (v) {
      $('#view-' + v).hidden = v !== view;
      var link = $('#nav a[href="#' + v + '"]');
      if (v === view) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
    });
    if (view === 'runs') loadRuns(true);
    if (view === 'agents') loadAgents();
    if (view === 'tokens') loadTokens();
    if (view === 'integrations') loadIntegrations();
  }
  window.addEventListener('hashchange', route);

  // Runs
  function runsQuery(cursor) {
    var q = new URLSearchParams();
    var action = $('#filter-action').value; var st = $('#filter-state').value;
    if (action) q.set('action', action);
    if (st) q.set('state', st);
    q.set('limit', '20');
    if (cursor) q.set('cursor', cursor);
    return '/v1/runs?' + q.toString();
  }
  function runRow(r) {
    return h('tr', { 'data-run': r.id, class: state.openRun === r.id ? 'selected' : null }, [
      h('td', null, [h('button', { class: 'secondary', type: 'button', 'aria-label': 'Open run ' + r.id, on: { click: function () { openRun(r.id); } } }, [r.id])]),
      h('td', { text: r.action }),
      h('td', null, [badge(r.state), r.progress ? ' ' + progressText(r.progress) : '']),
      h('td', { text: when(r.created_at) }),
      h('td', { text: r.duration_ms === null || r.duration_ms === undefined ? '—' : r.duration_ms + ' ms' }),
      h('td', { text: String(r.attempts) })
    ]);
  }
  function progressText(p) {
    if (!p || typeof p !== 'object') return '';
    if (typeof p.sections_done === 'number') return '(' + p.sections_done + '/' + p.sections_total + ' sections)';
    if (typeof p.pages_fetched === 'number') return '(' + p.pages_fetched + ' pages fetched, ' + (p.pages_queued || 0) + ' queued)';
    if (p.phase) return '(' + p.phase + ')';
    return '';
  }
  function loadRuns(reset) {
    var tbody = $('#runs-body');
    var cursor = reset ? null : state.runsCursor;
    // Only the latest request fills the table: a refresh started before a filter change answers late.
    var seq = ++state.runsSeq;
    return api('GET', runsQuery(cursor)).then(function (r) {
      if (seq !== state.runsSeq) return;
      if (reset) clear(tbody);
      var runs = r.data.response || [];
      runs.forEach(function (run) { tbody.appendChild(runRow(run)); });
      state.runsCursor = r.data.next_cursor;
      $('#runs-more').hidden = !state.runsCursor;
      $('#runs-empty').hidden = tbody.children.length > 0;
      // Queued and running runs move: refresh the first page while any is on screen.
      clearTimeout(state.runsTimer);
      if (reset && runs.some(function (x) { return x.state === 'queued' || x.state === 'running'; })) {
        state.runsTimer = setTimeout(function () { if (!$('#view-runs').hidden) loadRuns(true).catch(fail); }, 3000);
      }
    }).catch(fail);
  }
  $('#runs-filter').addEventListener('submit', function (e) { e.preventDefault(); loadRuns(true); });
  $('#runs-more').addEventListener('click', function () { loadRuns(false); });

  function field(label, value) {
    return h('div', null, [h('dt', { text: label }), h('dd', null, [value])]);
  }
  function openRun(id) {
    state.openRun = id;
    clearTimeout(state.runTimer);
    Array.prototype.forEach.call(document.querySelectorAll('#runs-body tr'), function (tr) { tr.className = tr.getAttribute('data-run') === id ? 'selected' : ''; });
    return api('GET', '/v1/runs/' + encodeURIComponent(id)).then(function (r) { showRun(r.data.response); }).catch(fail);
  }
  function showRun(run) {
    var panel = clear($('#run-detail'));
    panel.hidden = false;
    var live = run.state === 'queued' || run.state === 'running';
    panel.appendChild(h('h2', { id: 'run-title', tabindex: '-1' }, ['Run ', h('code', { text: run.id }), ' ', badge(run.state)]));
    panel.appendChild(h('dl', { class: 'values' }, [
      field('Action', run.action),
      field('Progress', run.progress ? progressText(run.progress) + ' ' + JSON.stringify(run.progress) : '—'),
      field('Attempts', String(run.attempts)),
      field('Created', when(run.created_at)),
      field('Started', when(run.started_at)),
      field('Finished', when(run.finished_at)),
      field('Duration', run.duration_ms === null ? '—' : run.duration_ms + ' ms'),
      field('Workflow', run.workflow_id || '—'),
      field('Usage', run.usage ? JSON.stringify(run.usage) : '—')
    ]));
    if (REPORT_ACTIONS.indexOf(run.action) >= 0 && run.state === 'succeeded') {
      panel.appendChild(h('p', null, [h('button', { type: 'button', id: 'open-report', on: { click: function () { openReport(run.id); } } }, ['Open the report page'])]));
    }
    panel.appendChild(h('h3', { text: 'Input (secrets redacted by the server)' }));
    panel.appendChild(h('pre', { tabindex: '0',  text: json(run.input) }));
    if (run.error) {
      panel.appendChild(h('h3', { text: 'Error' }));
      panel.appendChild(h('p', { class: 'why', text: (run.error.status || '') + ' ' + (run.error.code || '') + ': ' + run.error.message }));
    }
    if (run.output !== undefined) {
      panel.appendChild(h('h3', { text: 'Output' }));
      panel.appendChild(h('pre', { tabindex: '0',  id: 'run-output', text: json(run.output) }));
    }
    if (live) {
      panel.appendChild(h('p', { class: 'muted', 'aria-live': 'polite', text: 'Still ' + run.state + ': refreshing every 2 seconds.' }));
      state.runTimer = setTimeout(function () {
        if (state.openRun === run.id && !$('#view-runs').hidden) openRun(run.id);
      }, 2000);
    }
  }
  function openReport(id) {
    api('POST', '/v1/runs/' + encodeURIComponent(id) + '/report-link').then(function (r) {
      location.assign(r.data.response.url);
    }).catch(fail);
  }

  // Agents
  function agentIdOf(hit) {
    var fn = hit && hit['function'] ? hit['function'] : hit;
    var name = fn && fn.name ? String(fn.name) : '';
    return name.indexOf('invoke_agent_') === 0 ? name.slice('invoke_agent_'.length) : null;
  }
  function agentItem(id, name, extra, descriptor) {
    return h('li', null, [
      h('button', { type: 'button', class: 'secondary', 'aria-label': 'Open agent ' + name, on: { click: function () { openAgent(id, descriptor); } } }, [name]),
      ' ', h('span', { class: 'muted', text: extra })
    ]);
  }
  function loadAgents() {
    var own = clear($('#agents-own'));
    api('GET', '/v1/agents?limit=100').then(function (r) {
      var list = r.data.response || [];
      if (!list.length) own.appendChild(h('li', { class: 'muted', text: 'This account owns no agents.' }));
      list.forEach(function (a) { own.appendChild(agentItem(a.id, a.name, a.visibility + ' · ' + a.id + ' · ' + a.executions + ' runs', null)); });
    }).catch(fail);
    searchAgents();
  }
  function searchAgents() {
    var visible = clear($('#agents-visible'));
    api('POST', '/v1/action/search', { query: $('#agent-query').value, status: 'all', limit: 20 }).then(function (r) {
      var hits = r.data.response || [];
      if (!hits.length) visible.appendChild(h('li', { class: 'muted', text: 'No agent matches.' }));
      hits.forEach(function (hit) {
        var id = agentIdOf(hit);
        if (!id) return;
        var fn = hit['function'] || {};
        var meta = fn.metadata || {};
        visible.appendChild(agentItem(id, meta.name || fn.name, (meta.visibility || '') + ' · ' + id, hit));
      });
    }).catch(fail);
  }
  $('#agent-search').addEventListener('submit', function (e) { e.preventDefault(); searchAgents(); });

  function paramInput(name, schema, required, index) {
    var id = 'param-' + index;
    var type = schema.type;
    var hint = [schema.description || '', required ? '(required)' : '(optional)', schema['default'] !== undefined ? 'default: ' + String(schema['default']) : ''].join(' ').trim();
    var input;
    if (Array.isArray(schema['enum'])) {
      input = h('select', { id: id, name: name }, [required ? null : h('option', { value: '', text: '(none)' })].concat(schema['enum'].map(function (v) { return h('option', { value: String(v), text: String(v) }); })));
    } else if (type === 'boolean') {
      input = h('input', { id: id, name: name, type: 'checkbox', 'data-type': 'boolean' });
      if (schema['default'] === true || schema['default'] === 'true') input.checked = true;
    } else {
      var secret = schema.writeOnly === true || schema.format === 'password';
      input = h('input', { id: id, name: name, type: secret ? 'password' : (type === 'number' || type === 'integer') ? 'number' : 'text', autocomplete: secret ? 'off' : null, step: type === 'number' ? 'any' : null, required: required || null, 'data-type': type || 'string', 'aria-describedby': id + '-hint' });
    }
    if (schema['default'] !== undefined && type !== 'boolean') input.value = String(schema['default']);
    return h('div', { class: 'field' }, [h('label', { for: id, text: name }), input, h('span', { class: 'hint', id: id + '-hint', text: hint })]);
  }
  function openAgent(id, descriptor) {
    var panel = clear($('#agent-detail'));
    panel.hidden = false;
    api('GET', '/v1/agents/' + encodeURIComponent(id)).then(function (r) {
      var a = r.data.response;
      panel.appendChild(h('h2', { text: a.name }));
      panel.appendChild(h('p', { text: a.description || '' }));
      panel.appendChild(h('p', { class: 'muted', text: a.visibility + ' · ' + a.id + (a.slug ? ' · ' + a.slug : '') + ' · ' + a.executions + ' runs' }));
      panel.appendChild(h('details', null, [h('summary', { text: descriptor ? 'Descriptor (as search returns it)' : 'Agent record' }), h('pre', { tabindex: '0',  text: json(descriptor || a) })]));
      var params = a.parameters && a.parameters.properties ? a.parameters.properties : {};
      var required = a.parameters && Array.isArray(a.parameters.required) ? a.parameters.required : [];
      var form = h('form', { id: 'agent-form', 'aria-labelledby': 'agent-form-title' });
      form.appendChild(h('h3', { id: 'agent-form-title', text: 'Run this agent' }));
      Object.keys(params).forEach(function (name, i) { form.appendChild(paramInput(name, params[name] || {}, required.indexOf(name) >= 0, i)); });
      if (!Object.keys(params).length) form.appendChild(h('p', { class: 'muted', text: 'This agent takes no parameters.' }));
      form.appendChild(h('button', { type: 'submit', text: 'Run' }));
      var out = h('pre', { tabindex: '0',  id: 'agent-result', hidden: true });
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var input = {};
        Array.prototype.forEach.call(form.querySelectorAll('input, select'), function (el) {
          var t = el.getAttribute('data-type');
          if (t === 'boolean') { input[el.name] = el.checked; return; }
          if (el.value === '') return;
          // Numbers go as typed: the API reads JSON-number text and names the parameter when it is not one.
          input[el.name] = el.value;
        });
        status('Running ' + a.name + '…');
        api('POST', '/v1/action/invoke_agent', { id: a.id, input: input }).then(function (res) {
          out.hidden = false;
          out.textContent = json(res.data);
          status(res.status === 202 ? 'Queued: see the run in Runs' : 'Done');
        }).catch(function (err) { out.hidden = false; out.textContent = err.message; fail(err); });
      });
      panel.appendChild(form);
      panel.appendChild(out);
    }).catch(fail);
  }

  // Tokens
  function loadTokens() {
    var tbody = clear($('#tokens-body'));
    api('GET', '/v1/tokens').then(function (r) {
      (r.data.response || []).forEach(function (t) {
        var revoked = t.revoked_at !== null && t.revoked_at !== undefined;
        tbody.appendChild(h('tr', null, [
          h('td', { text: t.name }),
          h('td', null, [h('code', { text: t.start + '…' })]),
          h('td', { text: when(t.created_at) }),
          h('td', { text: when(t.expires_at) }),
          h('td', { text: when(t.last_used_at) }),
          h('td', null, [revoked ? badge('revoked') : h('button', { type: 'button', class: 'danger', 'aria-label': 'Revoke token ' + t.name, on: { click: function () { revokeToken(t); } } }, ['Revoke'])])
        ]));
      });
    }).catch(fail);
  }
  function revokeToken(t) {
    if (!window.confirm('Revoke the token "' + t.name + '"? Programs using it stop working at once.')) return;
    api('DELETE', '/v1/tokens/' + encodeURIComponent(t.id)).then(function () { status('Revoked ' + t.name); loadTokens(); }).catch(fail);
  }
  $('#token-create').addEventListener('submit', function (e) {
    e.preventDefault();
    var payload = { name: $('#new-token-name').value.trim() };
    var days = $('#new-token-days').value;
    if (days) payload.expires_in_days = Number(days);
    api('POST', '/v1/tokens', payload).then(function (r) {
      var shown = $('#new-token');
      shown.hidden = false;
      $('#new-token-value').value = r.data.response.token;
      $('#new-token-value').focus();
      $('#new-token-name').value = '';
      loadTokens();
    }).catch(fail);
  });

  // Integrations: whether each is connected, never a key.
  function loadIntegrations() {
    var list = clear($('#integrations-list'));
    Promise.all([api('GET', '/v1/integrations/llm'), api('GET', '/v1/integrations/crm')]).then(function (rs) {
      var keys = rs[0].data.response || [];
      ['openai', 'anthropic', 'openai_compatible'].forEach(function (p) {
        var k = keys.filter(function (x) { return x.provider === p; })[0];
        list.appendChild(h('li', null, [h('strong', { text: 'Model key: ' + p }), ' ', badge(k ? 'connected' : 'not connected'), k ? ' since ' + when(k.connected_at) + (k.model ? ' · model ' + k.model : '') : '']));
      });
      var crm = rs[1].data.response || {};
      list.appendChild(h('li', null, [h('strong', { text: 'CRM: ' + (crm.provider || 'none') }), ' ', badge(crm.connected ? 'connected' : 'not connected'), crm.note ? ' · ' + crm.note : (crm.connected_at ? ' since ' + when(crm.connected_at) : '')]));
    }).catch(fail);
  }

  if (token()) checkToken().catch(fail); else signOut('');
})();
`

/** The report pages' script: filters the page inventory (all rows show without it). */
export const REPORT_JS = String.raw`'use strict';
(function () {
  var form = document.getElementById('inventory-filters');
  var table = document.getElementById('inventory');
  if (!form || !table) return;
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var count = document.getElementById('inventory-count');
  function apply() {
    var q = form.elements.q.value.trim().toLowerCase();
    var kind = form.elements.kind.value;
    var maxSeo = form.elements.max_seo.value === '' ? null : Number(form.elements.max_seo.value);
    var issuesOnly = form.elements.issues.checked;
    var shown = 0;
    rows.forEach(function (tr) {
      var seo = tr.getAttribute('data-seo');
      var ok = (!q || tr.getAttribute('data-text').indexOf(q) >= 0) &&
        (!kind || tr.getAttribute('data-kind') === kind) &&
        (maxSeo === null || (seo !== '' && Number(seo) < maxSeo)) &&
        (!issuesOnly || Number(tr.getAttribute('data-issues')) > 0);
      tr.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + ' of ' + rows.length + ' URLs';
  }
  form.addEventListener('input', apply);
  form.addEventListener('change', apply);
  form.addEventListener('submit', function (e) { e.preventDefault(); apply(); });
})();
`
