// @ts-check
/**
 * The /docs page: a form that sends one resolve, shows the answer and the same request as a curl
 * command. Served from this server under a strict Content-Security-Policy (no inline script, no
 * outside request), so it works offline.
 */
import { byId, checkedPlatforms, commas, el, lines, loadChoices } from './common.js';

/** @param {string} text */
function shellQuote(text) {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** The request body the form describes; empty fields are left out (the server's defaults apply). */
function requestBody() {
  /** @type {Record<string, unknown>} */
  const body = {};
  const specs = lines(byId('specs', HTMLTextAreaElement).value);
  if (specs.length) body.specs = specs;
  const channels = commas(byId('channels', HTMLInputElement).value);
  if (channels.length) body.channels = channels;
  const platforms = checkedPlatforms();
  if (platforms.length) body.platforms = platforms;
  const priority = byId('channel-priority', HTMLSelectElement).value;
  if (priority) body.channel_priority = priority;
  const file = byId('file', HTMLTextAreaElement).value;
  if (file.trim()) {
    body.file = file;
    body.filename = byId('filename', HTMLInputElement).value.trim() || 'environment.yml';
  }
  return body;
}

/** @param {unknown} data */
function showSummary(data) {
  const list = byId('summary');
  list.textContent = '';
  if (!Array.isArray(data)) return;
  for (const result of /** @type {{ platform: string, packages: unknown[], error: string | null }[]} */ (data)) {
    if (result.error === null) list.append(el('li', `${result.platform}: ${result.packages.length} packages`));
    else list.append(el('li', `${result.platform}: failed: ${result.error}`, 'failed'));
  }
}

/**
 * @param {string} text
 * @param {string} className
 */
function status(text, className) {
  const line = byId('status');
  line.textContent = text;
  line.className = className;
}

async function send() {
  const body = requestBody();
  const format = byId('format', HTMLSelectElement).value;
  const url = `resolve${format ? `?format=${encodeURIComponent(format)}` : ''}`;
  const absolute = new URL(url, document.baseURI).href;
  byId('curl').textContent =
    `curl -sS -X POST -H ${shellQuote('content-type: application/json')} --data ${shellQuote(JSON.stringify(body))} ${shellQuote(absolute)}`;
  const button = byId('submit', HTMLButtonElement);
  button.disabled = true;
  status('Resolving...', 'hint');
  byId('summary').textContent = '';
  const result = byId('result');
  result.textContent = '';
  const started = performance.now();
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    status(
      `HTTP ${response.status} ${response.statusText} \u00b7 ${type} \u00b7 ${Math.round(performance.now() - started)} ms`,
      response.ok ? 'ok' : 'error',
    );
    result.textContent = text;
    if (/json/.test(type)) {
      try {
        const data = JSON.parse(text);
        if (response.ok) showSummary(data);
        result.textContent = JSON.stringify(data, null, 2);
      } catch {
        // Not JSON after all: the text stays as it came.
      }
    }
  } catch (error) {
    status(`The request failed: ${error instanceof Error ? error.message : String(error)}`, 'error');
  } finally {
    button.disabled = false;
  }
}

byId('resolve-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void send();
});

loadChoices(byId('platforms')).then(
  ({ formats }) => {
    const select = byId('format', HTMLSelectElement);
    for (const exporter of formats.exporters) {
      const option = el('option', exporter.name + (exporter.aliases.length ? ` (${exporter.aliases.join(', ')})` : ''));
      option.value = exporter.name;
      select.append(option);
    }
    document.body.dataset.ready = 'true';
  },
  (error) => status(`Cannot load the server's formats and platforms: ${error.message}`, 'hint'),
);
