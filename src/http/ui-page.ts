/**
 * The `/ui` page: a person enters specs (conda, and PyPI requirements with their index), channels
 * and platforms and sees, per platform, the solved packages as a table and as a collapsible
 * dependency tree (nested `<details>`, PyPI packages marked `pypi`); a click on a package asks
 * `/why`, a spec asks `/why-not`, and any export format downloads from `/resolve`.
 * Plain HTML and script, no framework and no outside request: everything comes from this server's
 * own API, under the same strict Content-Security-Policy as `/docs`. Text from answers is written
 * with `textContent` only, never as HTML.
 */

export function uiHtml(options: { version: string; defaultChannels: readonly string[] }): string {
  const channels = escapeHtml(options.defaultChannels.join(', '));
  const version = escapeHtml(options.version);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>conda-resolve ${version}: explore an environment</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="ui/app.css">
<script src="ui/app.js" defer></script>
</head>
<body>
<header>
  <h1>conda-resolve <small>${version}</small></h1>
  <p class="hint">Solve an environment, look at it per platform, ask why a package is there or why another is not.
  API: <a href="openapi.json">OpenAPI</a> &middot; <a href="docs">request form</a></p>
</header>
<form id="solve-form">
  <div class="row">
    <div class="col">
      <label for="specs">Package specs <span class="hint">(one per line)</span></label>
      <textarea id="specs" rows="4" spellcheck="false" placeholder="python=3.12&#10;numpy&gt;=1.26"></textarea>
      <label for="pypi">PyPI requirements <span class="hint">(PEP 508, one per line; solved with the conda specs)</span></label>
      <textarea id="pypi" rows="2" spellcheck="false" placeholder="rich&gt;=13"></textarea>
      <label for="index-url">PyPI index <span class="hint">(default https://pypi.org/simple)</span></label>
      <input id="index-url" type="text" spellcheck="false">
    </div>
    <div class="col">
      <label for="channels">Channels <span class="hint">(comma-separated, in priority order)</span></label>
      <input id="channels" type="text" spellcheck="false" placeholder="${channels}">
      <fieldset id="platforms"><legend>Platforms</legend><span class="hint">loading...</span></fieldset>
    </div>
  </div>
  <button id="solve" type="submit">Solve</button>
  <span id="status" class="hint" aria-live="polite"></span>
</form>

<section id="tools" hidden>
  <form id="why-not-form" class="inline">
    <label for="why-not-spec">Why not</label>
    <input id="why-not-spec" type="text" spellcheck="false" placeholder="numpy>=2">
    <button id="why-not" type="submit">Ask</button>
  </form>
  <form id="export-form" class="inline">
    <label for="format">Download as</label>
    <select id="format"></select>
    <button id="download" type="submit">Download</button>
  </form>
</section>

<section id="answer" hidden aria-live="polite">
  <h2 id="answer-title"></h2>
  <pre id="answer-text"></pre>
</section>

<div id="platform-results"></div>
</body>
</html>
`;
}

export const UI_CSS = `
:root { font-family: system-ui, sans-serif; color: #1d2430; background: #fafbfc; }
body { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 small { font-size: 0.5em; color: #5b6675; font-weight: normal; }
.hint { font-weight: normal; color: #5b6675; font-size: 0.9em; }
label { display: block; margin-top: 0.6rem; font-weight: 600; }
.row { display: flex; gap: 1.5rem; flex-wrap: wrap; } .col { flex: 1 1 20rem; }
textarea, input[type=text], select { width: 100%; box-sizing: border-box; font: 0.95em ui-monospace, monospace; padding: 0.4rem; border: 1px solid #c5ccd6; border-radius: 4px; background: #fff; }
fieldset { margin-top: 0.6rem; border: 1px solid #c5ccd6; border-radius: 4px; }
fieldset label { display: inline-block; margin: 0.1rem 0.9rem 0.1rem 0; font-weight: normal; }
button { margin-top: 0.8rem; padding: 0.4rem 1.2rem; font-size: 1em; border: 0; border-radius: 4px; background: #2b6cb0; color: #fff; cursor: pointer; }
button[disabled] { background: #7f9cc0; cursor: wait; }
form.inline { display: inline-flex; align-items: center; gap: 0.5rem; margin: 0.8rem 2rem 0 0; }
form.inline label { margin: 0; } form.inline input, form.inline select { width: 14rem; } form.inline button { margin: 0; }
#status.error, .error { color: #a1261b; } #status.ok { color: #22643a; }
pre { background: #fff; border: 1px solid #c5ccd6; border-radius: 4px; padding: 0.6rem; overflow: auto; max-height: 24rem; white-space: pre-wrap; }
#answer { margin-top: 1rem; } #answer h2 { font-size: 1.05em; margin: 0 0 0.3rem; }
.platform { margin-top: 1.5rem; border-top: 2px solid #c5ccd6; }
.platform h2 { font-size: 1.2em; }
.panes { display: flex; gap: 1.5rem; flex-wrap: wrap; align-items: flex-start; } .panes > div { flex: 1 1 30rem; min-width: 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { text-align: left; padding: 0.2rem 0.5rem; border-bottom: 1px solid #e3e7ec; overflow-wrap: anywhere; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
button.pkg { margin: 0; padding: 0; background: none; color: #2b6cb0; font: inherit; cursor: pointer; text-decoration: underline dotted; }
.tree { font: 0.9em ui-monospace, monospace; }
.tree details > :not(summary), .tree .leaf { margin-left: 1.2rem; }
.tree summary { cursor: pointer; } .tree .leaf { padding-left: 1rem; }
.tree .spec { color: #5b6675; } .tree .mark { color: #a06a00; }
`;

// Plain ES5-style script with no template literals, so the page needs no build step.
export const UI_JS = String.raw`'use strict';
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var current = null; // the body of the last solve, reused by why, why-not and downloads
  var formats = [];

  function lines(text) { return text.split(/\r?\n/).map(function (s) { return s.trim(); }).filter(Boolean); }
  function commas(text) { return text.split(',').map(function (s) { return s.trim(); }).filter(Boolean); }
  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (className) node.className = className;
    return node;
  }
  function status(text, kind) { $('status').textContent = text; $('status').className = kind || 'hint'; }

  function post(path, body) {
    return fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then(function (response) {
        var type = response.headers.get('content-type') || '';
        if (/json/.test(type)) {
          return response.json().then(function (data) {
            if (!response.ok) throw new Error((data && data.detail) || ('HTTP ' + response.status));
            return data;
          });
        }
        return response.text().then(function (text) {
          if (!response.ok) throw new Error('HTTP ' + response.status + ': ' + text);
          return text;
        });
      });
  }
  function withFields(extra) {
    var body = {};
    Object.keys(current).forEach(function (k) { body[k] = current[k]; });
    Object.keys(extra).forEach(function (k) { body[k] = extra[k]; });
    return body;
  }

  function showAnswer(title, text, failed) {
    $('answer').hidden = false;
    $('answer-title').textContent = title;
    $('answer-text').textContent = text;
    $('answer-text').className = failed ? 'error' : '';
  }
  function perPlatform(items) {
    return items.map(function (item) {
      return (items.length > 1 ? item.platform + ':\n' : '') + (item.error || item.text);
    }).join('\n\n');
  }

  function packageButton(name) {
    var button = el('button', name, 'pkg');
    button.type = 'button';
    button.dataset.package = name;
    return button;
  }

  function why(name) {
    showAnswer('Why ' + name + '?', 'Asking...');
    post('why', withFields({ name: name }))
      .then(function (data) { showAnswer('Why ' + name + '?', perPlatform(data)); })
      .catch(function (error) { showAnswer('Why ' + name + '?', error.message, true); });
  }

  function table(result) {
    var t = el('table');
    var head = el('tr');
    ['name', 'version', 'build', 'channel', 'size'].forEach(function (h) { head.appendChild(el('th', h)); });
    t.appendChild(el('thead')).appendChild(head);
    var body = t.appendChild(el('tbody'));
    result.packages.forEach(function (p) {
      var row = el('tr');
      row.appendChild(el('td')).appendChild(packageButton(p.name));
      row.appendChild(el('td', p.version));
      // A PyPI distribution (manager pip) has no build and comes from an index, as the tree shows it.
      row.appendChild(el('td', p.manager === 'pip' ? 'pypi' : p.build));
      row.appendChild(el('td', p.manager === 'pip' ? (p.index || '') : p.channel));
      row.appendChild(el('td', p.size == null ? '' : (p.size / 1048576).toFixed(1) + ' MB', 'num'));
      body.appendChild(row);
    });
    return t;
  }

  function treeNode(node) {
    var label = el('span');
    label.appendChild(packageButton(node.name));
    label.appendChild(document.createTextNode(' ' + node.version + ' ' + node.build + ' '));
    label.appendChild(el('span', '[' + node.spec + ']', 'spec'));
    if (node.repeated) label.appendChild(el('span', ' (*) shown above', 'mark'));
    if (!node.children.length) {
      var leaf = el('div', null, 'leaf');
      leaf.appendChild(label);
      return leaf;
    }
    var details = el('details');
    details.dataset.package = node.name;
    var summary = el('summary');
    summary.appendChild(label);
    details.appendChild(summary);
    node.children.forEach(function (child) { details.appendChild(treeNode(child)); });
    return details;
  }

  function showPlatforms(native, trees) {
    var box = $('platform-results');
    box.textContent = '';
    native.forEach(function (result, i) {
      var section = el('section', null, 'platform');
      section.dataset.platform = result.platform;
      section.appendChild(el('h2', result.platform + (result.error === null ? ': ' + result.packages.length + ' packages' : ': no solution')));
      if (result.error !== null) {
        section.appendChild(el('pre', result.error, 'error'));
      } else {
        var panes = section.appendChild(el('div', null, 'panes'));
        var left = panes.appendChild(el('div'));
        left.appendChild(el('h3', 'Packages'));
        left.appendChild(table(result));
        var right = panes.appendChild(el('div'));
        right.appendChild(el('h3', 'Dependency tree'));
        var tree = right.appendChild(el('div', null, 'tree'));
        (trees[i] ? trees[i].roots : []).forEach(function (root) { tree.appendChild(treeNode(root)); });
      }
      box.appendChild(section);
    });
  }

  $('platform-results').addEventListener('click', function (event) {
    var target = event.target;
    if (target instanceof HTMLElement && target.classList.contains('pkg')) {
      event.preventDefault(); // inside a summary, the click asks why instead of folding
      why(target.dataset.package);
    }
  });

  $('solve-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var body = {};
    var specs = lines($('specs').value);
    if (specs.length) body.specs = specs;
    var channels = commas($('channels').value);
    if (channels.length) body.channels = channels;
    var platforms = Array.prototype.map.call(document.querySelectorAll('input[name=platform]:checked'), function (i) { return i.value; });
    if (platforms.length) body.platforms = platforms;
    var pypi = lines($('pypi').value);
    if (pypi.length) body.pypi = pypi;
    var indexUrl = $('index-url').value.trim();
    if (indexUrl) body.index_url = indexUrl;
    $('solve').disabled = true;
    status('Solving...');
    var started = performance.now();
    Promise.all([post('resolve', body), post('tree', body)])
      .then(function (answers) {
        current = body;
        showPlatforms(answers[0], answers[1]);
        $('tools').hidden = false;
        $('answer').hidden = true;
        var failed = answers[0].filter(function (r) { return r.error !== null; }).length;
        status('Solved in ' + Math.round(performance.now() - started) + ' ms' + (failed ? ' (' + failed + ' platform(s) without a solution)' : ''), failed ? 'error' : 'ok');
      })
      .catch(function (error) { status(error.message, 'error'); })
      .finally(function () { $('solve').disabled = false; });
  });

  $('why-not-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var spec = $('why-not-spec').value.trim();
    if (!spec || !current) return;
    showAnswer('Why not ' + spec + '?', 'Solving with it...');
    post('why-not', withFields({ spec: spec }))
      .then(function (data) { showAnswer('Why not ' + spec + '?', perPlatform(data)); })
      .catch(function (error) { showAnswer('Why not ' + spec + '?', error.message, true); });
  });

  $('export-form').addEventListener('submit', function (event) {
    event.preventDefault();
    if (!current) return;
    var name = $('format').value;
    var exporter = formats.filter(function (f) { return f.name === name; })[0];
    status('Exporting ' + name + '...');
    fetch('resolve?format=' + encodeURIComponent(name), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(current) })
      .then(function (response) {
        return response.blob().then(function (blob) {
          if (!response.ok) return blob.text().then(function (text) { throw new Error(JSON.parse(text).detail || ('HTTP ' + response.status)); });
          var link = el('a');
          link.href = URL.createObjectURL(blob);
          link.download = (exporter && exporter.default_filenames[0]) || (name + '.txt');
          document.body.appendChild(link);
          link.click();
          link.remove();
          setTimeout(function () { URL.revokeObjectURL(link.href); }, 10000);
          status('Downloaded ' + link.download, 'ok');
        });
      })
      .catch(function (error) { status(error.message, 'error'); });
  });

  Promise.all([
    fetch('formats').then(function (r) { return r.json(); }).then(function (data) {
      formats = data.exporters;
      formats.forEach(function (exporter) {
        var option = el('option', exporter.name + (exporter.default_filenames.length ? ' (' + exporter.default_filenames[0] + ')' : ''));
        option.value = exporter.name;
        $('format').appendChild(option);
      });
    }),
    fetch('platforms').then(function (r) { return r.json(); }).then(function (data) {
      var box = $('platforms');
      box.querySelectorAll('.hint').forEach(function (node) { node.remove(); });
      data.platforms.forEach(function (platform) {
        var label = el('label');
        var input = el('input');
        input.type = 'checkbox';
        input.name = 'platform';
        input.value = platform;
        input.checked = platform === data.default;
        label.appendChild(input);
        label.appendChild(document.createTextNode(' ' + platform));
        box.appendChild(label);
      });
    }),
  ]).then(function () { document.body.dataset.ready = 'true'; })
    .catch(function (error) { status('Cannot load the server\'s formats and platforms: ' + error.message, 'error'); });
})();
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
