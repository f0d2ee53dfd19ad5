// @ts-check
/**
 * The /ui page: a person enters conda specs (and PyPI requirements), channels and platforms and
 * sees, per platform, the solved packages as a table and as a collapsible dependency tree (nested
 * `<details>`). A click on a package asks `/why` and shows the answer under that package; the
 * why-not form asks `/why-not` and answers under itself; any export format downloads from
 * `/resolve`. Everything comes from this server's own API.
 */
import { byId, checkedPlatforms, commas, el, lines, loadChoices } from './common.js';

/**
 * The native result (docs/pypi.md): conda records, then PyPI distributions (`manager: "pip"`).
 * @typedef {{ manager: 'conda', name: string, version: string, build: string, channel: string, size: number | null }} CondaPackage
 * @typedef {{ manager: 'pip', name: string, version: string | null, index: string | null, filename?: string, size?: number | null }} PypiPackage
 * @typedef {{ platform: string, packages: (CondaPackage | PypiPackage)[], error: string | null }} SolveResult
 * @typedef {{ name: string, version: string | null, build: string | null, spec: string, repeated: boolean, children: TreeNode[] }} TreeNode
 * @typedef {{ platform: string, error: string | null, roots: TreeNode[] }} PlatformTree
 * @typedef {{ platform: string, error: string | null, text: string }} PlatformText
 * @typedef {import('./common.js').Exporter} Exporter
 */

/** @type {Record<string, unknown> | null} the body of the last solve, reused by why, why-not and downloads */
let current = null;
/** @type {Exporter[]} */
let formats = [];

/**
 * @param {string} text
 * @param {string} [className]
 */
function status(text, className = 'hint') {
  const line = byId('status');
  line.textContent = text;
  line.className = className;
}

/**
 * POSTs a JSON body; the answer's JSON, or an Error with the problem's detail.
 * @param {string} path
 * @param {Record<string, unknown>} body
 * @returns {Promise<any>}
 */
async function post(path, body) {
  const response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const type = response.headers.get('content-type') ?? '';
  if (!/json/.test(type)) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const data = await response.json();
  if (!response.ok) throw new Error(data?.detail ?? `HTTP ${response.status}`);
  return data;
}

/**
 * A channel by its name, as conda prints it (`conda-forge`, not its URL or a local path).
 * @param {string} url
 */
function channelName(url) {
  const path = url.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return path.slice(path.lastIndexOf('/') + 1) || url;
}

/**
 * Where a PyPI distribution came from: the index's host (`pypi.org`).
 * @param {string | null} index
 */
function indexName(index) {
  if (!index) return 'PyPI';
  try {
    return new URL(index).host;
  } catch {
    return index;
  }
}

/**
 * Bytes in the unit that fits, SI as conda's own sizes (1 kB = 1000 bytes).
 * @param {number | null | undefined} bytes
 */
function formatSize(bytes) {
  if (bytes === null || bytes === undefined) return '';
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/**
 * A wheel's tags from its file name (`py3-none-any`), for the build column.
 * @param {string | undefined} filename
 */
function wheelTags(filename) {
  return filename?.endsWith('.whl') ? filename.slice(0, -4).split('-').slice(-3).join('-') : '';
}

/**
 * A package name that asks why when clicked.
 * @param {string} name
 * @param {boolean} pypi
 */
function packageName(name, pypi) {
  const box = el('span');
  const button = el('button', name, 'pkg');
  button.type = 'button';
  button.dataset.package = name;
  box.append(button);
  if (pypi) box.append(el('span', 'PyPI', 'tag pypi'));
  return box;
}

/** @param {SolveResult} result */
function table(result) {
  const t = el('table');
  const head = el('tr');
  for (const [label, className] of [
    ['name', ''],
    ['version', ''],
    ['build', ''],
    ['channel or index', ''],
    ['size', 'num'],
  ])
    head.append(el('th', label, className));
  t.append(el('thead'));
  t.tHead?.append(head);
  const body = t.appendChild(el('tbody'));
  for (const p of result.packages) {
    const row = el('tr');
    const name = el('td');
    name.append(packageName(p.name, p.manager === 'pip'));
    const source = p.manager === 'pip' ? el('td', indexName(p.index)) : el('td', channelName(p.channel));
    if (p.manager === 'conda' && /^https?:/.test(p.channel)) source.title = p.channel;
    row.append(
      name,
      el('td', p.version ?? ''),
      el('td', p.manager === 'pip' ? wheelTags(p.filename) : p.build),
      source,
      el('td', formatSize(p.size), 'num'),
    );
    body.append(row);
  }
  const scroll = el('div', null, 'scroll');
  scroll.append(t);
  return scroll;
}

/** @param {TreeNode} node */
function treeNode(node) {
  const label = el('span', null, 'label');
  const pypi = node.build === 'pypi';
  label.append(
    packageName(node.name, pypi),
    ` ${node.version ?? ''}${pypi || node.build === null ? '' : ` ${node.build}`} `,
    el('span', `[${node.spec}]`, 'spec'),
  );
  if (node.repeated) label.append(el('span', ' (*) shown above', 'mark'));
  if (node.children.length === 0) {
    const leaf = el('div', null, 'leaf');
    leaf.append(label);
    return leaf;
  }
  const details = el('details');
  details.dataset.package = node.name;
  const summary = el('summary');
  summary.append(label);
  details.append(summary, ...node.children.map(treeNode));
  return details;
}

/**
 * One section per platform: a heading, then the table and the tree, or the reason it did not solve.
 * @param {SolveResult[]} results
 * @param {PlatformTree[]} trees
 */
function showPlatforms(results, trees) {
  const box = byId('platform-results');
  box.textContent = '';
  results.forEach((result, i) => {
    const section = el('section', null, 'platform');
    section.dataset.platform = result.platform;
    const fromPypi = result.packages.filter((p) => p.manager === 'pip').length;
    const count = `${result.packages.length} packages${fromPypi ? ` (${fromPypi} from PyPI)` : ''}`;
    section.append(el('h2', `${result.platform}: ${result.error === null ? count : 'no solution'}`));
    if (result.error !== null) {
      section.append(el('pre', result.error, 'error'));
    } else {
      const left = el('div', null, 'packages');
      left.append(el('h3', 'Packages'), table(result));
      const right = el('div', null, 'tree-pane');
      const tree = el('div', null, 'tree');
      tree.append(...(trees[i]?.roots ?? []).map(treeNode));
      right.append(el('h3', 'Dependency tree'), tree);
      const panes = el('div', null, 'panes');
      panes.append(left, right);
      section.append(panes);
    }
    box.append(section);
  });
}

/**
 * Fills an answer box: a heading and the text, marked as an error when the question failed.
 * @param {HTMLElement} box
 * @param {string} title
 * @param {string} text
 * @param {boolean} [failed]
 */
function fillAnswer(box, title, text, failed = false) {
  box.textContent = '';
  box.hidden = false;
  box.append(el('h3', title), el('pre', text, failed ? 'error' : ''));
}

/**
 * The answer box under the clicked package: a row under its table row, or a block under its tree
 * line. A second click on the same package closes it.
 * @param {HTMLElement} button
 * @returns {HTMLElement | null} null when the click closed it
 */
function answerBoxFor(button) {
  const row = button.closest('tr');
  const anchor = row ?? button.closest('.leaf, details');
  if (!anchor) return null;
  const next = row ? row.nextElementSibling : anchor.querySelector(':scope > .answer');
  if (next?.classList.contains('answer')) {
    const same = next.getAttribute('data-package') === button.dataset.package;
    next.remove();
    if (same) return null;
  }
  let box;
  if (row) {
    const answerRow = el('tr', null, 'answer');
    const cell = el('td');
    cell.colSpan = row.cells.length;
    box = el('div');
    cell.append(box);
    answerRow.append(cell);
    answerRow.dataset.package = button.dataset.package;
    row.after(answerRow);
  } else {
    box = el('div', null, 'answer');
    box.dataset.package = button.dataset.package;
    const summary = anchor.querySelector(':scope > summary');
    if (summary) summary.after(box);
    else anchor.append(box);
    if (anchor instanceof HTMLDetailsElement) anchor.open = true;
  }
  return box;
}

/**
 * Why this package is on this platform, answered where it was clicked.
 * @param {HTMLElement} button
 */
async function why(button) {
  const name = button.dataset.package ?? '';
  const platform = button.closest('section.platform')?.getAttribute('data-platform');
  const box = answerBoxFor(button);
  if (!box || !current || !platform) return;
  const title = `Why ${name}?`;
  fillAnswer(box, title, 'Asking...');
  try {
    /** @type {PlatformText[]} */
    const answers = await post('why', { ...current, platforms: [platform], name });
    fillAnswer(box, title, answers.map((a) => a.error ?? a.text).join('\n\n'));
  } catch (error) {
    fillAnswer(box, title, error instanceof Error ? error.message : String(error), true);
  }
}

/** @param {PlatformText[]} items */
function perPlatform(items) {
  return items.map((item) => (items.length > 1 ? `${item.platform}:\n` : '') + (item.error ?? item.text)).join('\n\n');
}

async function solve() {
  /** @type {Record<string, unknown>} */
  const body = {};
  const specs = lines(byId('specs', HTMLTextAreaElement).value);
  if (specs.length) body.specs = specs;
  const pypi = lines(byId('pypi', HTMLTextAreaElement).value);
  if (pypi.length) body.pypi = pypi;
  const indexUrl = byId('index-url', HTMLInputElement).value.trim();
  if (pypi.length && indexUrl) body.index_url = indexUrl;
  const channels = commas(byId('channels', HTMLInputElement).value);
  if (channels.length) body.channels = channels;
  const platforms = checkedPlatforms();
  if (platforms.length) body.platforms = platforms;
  const button = byId('solve', HTMLButtonElement);
  button.disabled = true;
  status('Solving...');
  const started = performance.now();
  try {
    /** @type {[SolveResult[], PlatformTree[]]} */
    const [results, trees] = await Promise.all([post('resolve', body), post('tree', body)]);
    current = body;
    showPlatforms(results, trees);
    byId('tools').hidden = false;
    byId('why-not-answer').hidden = true;
    const failed = results.filter((r) => r.error !== null).length;
    status(
      `Solved in ${Math.round(performance.now() - started)} ms${failed ? ` (${failed} platform(s) without a solution)` : ''}`,
      failed ? 'error' : 'ok',
    );
  } catch (error) {
    status(error instanceof Error ? error.message : String(error), 'error');
  } finally {
    button.disabled = false;
  }
}

async function whyNot() {
  const spec = byId('why-not-spec', HTMLInputElement).value.trim();
  if (!spec || !current) return;
  const box = byId('why-not-answer');
  const title = `Why not ${spec}?`;
  fillAnswer(box, title, 'Solving with it...');
  try {
    fillAnswer(box, title, perPlatform(await post('why-not', { ...current, spec })));
  } catch (error) {
    fillAnswer(box, title, error instanceof Error ? error.message : String(error), true);
  }
}

async function download() {
  if (!current) return;
  const name = byId('format', HTMLSelectElement).value;
  const exporter = formats.find((f) => f.name === name);
  status(`Exporting ${name}...`);
  try {
    const response = await fetch(`resolve?format=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(current),
    });
    const blob = await response.blob();
    if (!response.ok) throw new Error(JSON.parse(await blob.text()).detail ?? `HTTP ${response.status}`);
    const link = el('a');
    link.href = URL.createObjectURL(blob);
    link.download = exporter?.default_filenames[0] ?? `${name}.txt`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    status(`Downloaded ${link.download}`, 'ok');
  } catch (error) {
    status(error instanceof Error ? error.message : String(error), 'error');
  }
}

byId('platform-results').addEventListener('click', (event) => {
  const target = event.target;
  if (target instanceof HTMLElement && target.classList.contains('pkg')) {
    event.preventDefault(); // inside a summary, the click asks why instead of folding
    void why(target);
  }
});
/**
 * @param {string} id
 * @param {() => Promise<void>} action
 */
const onSubmit = (id, action) =>
  byId(id).addEventListener('submit', (event) => {
    event.preventDefault();
    void action();
  });
onSubmit('solve-form', solve);
onSubmit('why-not-form', whyNot);
onSubmit('export-form', download);

loadChoices(byId('platforms')).then(
  (choices) => {
    formats = choices.formats.exporters;
    const select = byId('format', HTMLSelectElement);
    for (const exporter of formats) {
      const option = el('option', exporter.name + (exporter.default_filenames.length ? ` (${exporter.default_filenames[0]})` : ''));
      option.value = exporter.name;
      select.append(option);
    }
    document.body.dataset.ready = 'true';
  },
  (error) => status(`Cannot load the server's formats and platforms: ${error.message}`, 'error'),
);
