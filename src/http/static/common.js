// @ts-check
/**
 * What the /ui and /docs pages share: element helpers, the request form's parsing, and the
 * platform checkboxes and export formats read from this server. Text from answers is only ever
 * set with `textContent`, never parsed as HTML.
 */

/**
 * The element with this id, checked to be a `type` when one is given.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T }} [type]
 * @returns {T}
 */
export function byId(id, type) {
  const node = document.getElementById(id);
  if (!node || (type && !(node instanceof type))) throw new Error(`the page has no suitable #${id}`);
  return /** @type {T} */ (node);
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [text]
 * @param {string} [className]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** @param {string} text */
export function lines(text) {
  return text
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** @param {string} text */
export function commas(text) {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * @typedef {{ name: string, aliases: string[], default_filenames: string[] }} Exporter
 * @typedef {{ exporters: Exporter[] }} Formats
 * @typedef {{ platforms: string[], default: string }} Platforms
 */

/**
 * The server's export formats and platforms; the platforms become checkboxes (named `platform`)
 * in `box`, this server's default one checked.
 * @param {HTMLElement} box
 * @returns {Promise<{ formats: Formats, platforms: Platforms }>}
 */
export async function loadChoices(box) {
  const [formats, platforms] = await Promise.all([getJson('formats'), getJson('platforms')]);
  box.querySelectorAll('.hint').forEach((node) => node.remove());
  for (const platform of /** @type {Platforms} */ (platforms).platforms) {
    const label = el('label');
    const input = el('input');
    input.type = 'checkbox';
    input.name = 'platform';
    input.value = platform;
    input.checked = platform === platforms.default;
    label.append(input, ` ${platform}`);
    box.append(label);
  }
  return { formats, platforms };
}

/** The platforms checked in the form. */
export function checkedPlatforms() {
  return Array.from(document.querySelectorAll('input[name=platform]:checked'), (input) => /** @type {HTMLInputElement} */ (input).value);
}

/** @param {string} path */
async function getJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${path}`);
  return response.json();
}
