/**
 * The `/docs` page: a small self-contained form that sends a resolve and shows the answer, plus a
 * link to `/openapi.json`. No CDN and no build step: it works on an offline network, and its script
 * and style are served from this server so the page can run under a strict Content-Security-Policy
 * (no inline script). Results are written with `textContent` only, never as HTML.
 */

export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export function docsHtml(options: { version: string; defaultChannels: readonly string[] }): string {
  const channels = escapeHtml(options.defaultChannels.join(', '));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>conda-resolve ${escapeHtml(options.version)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs/app.css">
<script src="docs/app.js" defer></script>
</head>
<body>
<header>
  <h1>conda-resolve <small>${escapeHtml(options.version)}</small></h1>
  <p>Solve a conda environment for one or more platforms. The same request works from any HTTP client:
  see the <a href="openapi.json" id="openapi-link">OpenAPI document</a> for every endpoint and field.</p>
</header>
<main>
<form id="resolve-form">
  <label for="specs">Package specs <span class="hint">(one per line, e.g. <code>python=3.12</code>, <code>numpy&gt;=1.26</code>)</span></label>
  <textarea id="specs" name="specs" rows="4" spellcheck="false"></textarea>

  <label for="channels">Channels <span class="hint">(comma-separated, in priority order)</span></label>
  <input id="channels" name="channels" type="text" spellcheck="false" placeholder="${channels}">

  <fieldset id="platforms"><legend>Platforms</legend><span class="hint">loading...</span></fieldset>

  <label for="format">Format</label>
  <select id="format" name="format"><option value="">native JSON</option></select>

  <label for="channel-priority">Channel priority</label>
  <select id="channel-priority" name="channel_priority">
    <option value="">strict (default)</option><option value="flexible">flexible</option><option value="disabled">disabled</option>
  </select>

  <details>
    <summary>Environment file (optional)</summary>
    <label for="filename">File name <span class="hint">(chooses the parser)</span></label>
    <input id="filename" name="filename" type="text" value="environment.yml" spellcheck="false">
    <label for="file">File contents</label>
    <textarea id="file" name="file" rows="8" spellcheck="false" placeholder="channels:&#10;  - conda-forge&#10;dependencies:&#10;  - python=3.12"></textarea>
  </details>

  <button id="submit" type="submit">Resolve</button>
</form>

<section id="output" aria-live="polite">
  <h2>Result</h2>
  <p id="status" class="hint">No request sent yet.</p>
  <ul id="summary"></ul>
  <pre id="result"></pre>
  <h3>The same request with curl</h3>
  <pre id="curl"></pre>
</section>
</main>
</body>
</html>
`;
}

export const DOCS_CSS = `
:root { font-family: system-ui, sans-serif; color: #1d2430; background: #fafbfc; }
body { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 small { font-size: 0.5em; color: #5b6675; font-weight: normal; }
label { display: block; margin-top: 0.9rem; font-weight: 600; }
.hint { font-weight: normal; color: #5b6675; font-size: 0.9em; }
textarea, input[type=text], select { width: 100%; box-sizing: border-box; font: 0.95em ui-monospace, monospace; padding: 0.4rem; border: 1px solid #c5ccd6; border-radius: 4px; background: #fff; }
fieldset { margin-top: 0.9rem; border: 1px solid #c5ccd6; border-radius: 4px; }
fieldset label { display: inline-block; margin: 0.2rem 1rem 0.2rem 0; font-weight: normal; }
details { margin-top: 0.9rem; }
button { margin-top: 1.2rem; padding: 0.5rem 1.4rem; font-size: 1em; border: 0; border-radius: 4px; background: #2b6cb0; color: #fff; cursor: pointer; }
button[disabled] { background: #7f9cc0; cursor: wait; }
pre { background: #fff; border: 1px solid #c5ccd6; border-radius: 4px; padding: 0.6rem; overflow: auto; max-height: 32rem; white-space: pre-wrap; word-break: break-all; }
#status.ok { color: #22643a; } #status.error { color: #a1261b; }
#summary li.failed { color: #a1261b; }
`;

export const DOCS_JS = `'use strict';
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var form = $('resolve-form');

  function lines(text) { return text.split(/\\r?\\n/).map(function (s) { return s.trim(); }).filter(Boolean); }
  function commas(text) { return text.split(',').map(function (s) { return s.trim(); }).filter(Boolean); }
  function shellQuote(text) { return "'" + text.replace(/'/g, "'\\\\''") + "'"; }

  function fillFormats(data) {
    var select = $('format');
    data.exporters.forEach(function (exporter) {
      var option = document.createElement('option');
      option.value = exporter.name;
      option.textContent = exporter.name + (exporter.aliases.length ? ' (' + exporter.aliases.join(', ') + ')' : '');
      select.appendChild(option);
    });
  }

  function fillPlatforms(data) {
    var box = $('platforms');
    box.querySelectorAll('.hint').forEach(function (node) { node.remove(); });
    data.platforms.forEach(function (platform) {
      var label = document.createElement('label');
      var input = document.createElement('input');
      input.type = 'checkbox';
      input.name = 'platform';
      input.value = platform;
      input.checked = platform === data.default;
      label.appendChild(input);
      label.appendChild(document.createTextNode(' ' + platform));
      box.appendChild(label);
    });
  }

  function requestBody() {
    var body = {};
    var specs = lines($('specs').value);
    if (specs.length) body.specs = specs;
    var channels = commas($('channels').value);
    if (channels.length) body.channels = channels;
    var platforms = Array.prototype.map.call(document.querySelectorAll('input[name=platform]:checked'), function (i) { return i.value; });
    if (platforms.length) body.platforms = platforms;
    if ($('channel-priority').value) body.channel_priority = $('channel-priority').value;
    if ($('file').value.trim()) {
      body.file = $('file').value;
      body.filename = $('filename').value.trim() || 'environment.yml';
    }
    return body;
  }

  function showSummary(data) {
    var list = $('summary');
    list.textContent = '';
    if (!Array.isArray(data)) return;
    data.forEach(function (result) {
      var item = document.createElement('li');
      if (result.error === null) item.textContent = result.platform + ': ' + result.packages.length + ' packages';
      else { item.textContent = result.platform + ': failed: ' + result.error; item.className = 'failed'; }
      list.appendChild(item);
    });
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var body = requestBody();
    var format = $('format').value;
    var url = 'resolve' + (format ? '?format=' + encodeURIComponent(format) : '');
    var absolute = new URL(url, document.baseURI).href;
    $('curl').textContent = 'curl -sS -X POST -H ' + shellQuote('content-type: application/json') + ' --data ' + shellQuote(JSON.stringify(body)) + ' ' + shellQuote(absolute);
    $('submit').disabled = true;
    $('status').className = 'hint';
    $('status').textContent = 'Resolving...';
    $('summary').textContent = '';
    $('result').textContent = '';
    var started = performance.now();
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (response) {
        return response.text().then(function (text) {
          var ms = Math.round(performance.now() - started);
          var type = response.headers.get('content-type') || '';
          $('status').className = response.ok ? 'ok' : 'error';
          $('status').textContent = 'HTTP ' + response.status + ' ' + response.statusText + ' \\u00b7 ' + type + ' \\u00b7 ' + ms + ' ms';
          if (/json/.test(type)) {
            try {
              var data = JSON.parse(text);
              if (response.ok) showSummary(data);
              $('result').textContent = JSON.stringify(data, null, 2);
              return;
            } catch (e) { /* not JSON after all: show the text */ }
          }
          $('result').textContent = text;
        });
      })
      .catch(function (error) {
        $('status').className = 'error';
        $('status').textContent = 'The request failed: ' + error.message;
      })
      .finally(function () { $('submit').disabled = false; });
  });

  Promise.all([
    fetch('formats').then(function (r) { return r.json(); }).then(fillFormats),
    fetch('platforms').then(function (r) { return r.json(); }).then(fillPlatforms),
  ]).then(function () { document.body.dataset.ready = 'true'; })
    .catch(function (error) { $('status').textContent = 'Cannot load the server\\'s formats and platforms: ' + error.message; });
})();
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
