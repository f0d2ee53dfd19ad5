/**
 * Serving the browser pages' files (`static/`): read once at start, the HTML with the server's
 * version and default channels filled in (escaped), all under a strict Content-Security-Policy
 * (scripts and styles from this server only, no inline script, no outside request).
 */
import type { FastifyInstance } from 'fastify';
import { TOOL_VERSION } from '../version.js';
import { staticFile, type StaticFile } from './static/assets.js';

export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const MEDIA_TYPES = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

/** GET routes for `files` (URL path to file), and a redirect from the page's path with a trailing slash. */
export function servePages(app: FastifyInstance, files: Readonly<Record<string, StaticFile>>, defaultChannels: readonly string[]): void {
  for (const [path, file] of Object.entries(files)) {
    const extension = file.slice(file.lastIndexOf('.') + 1) as keyof typeof MEDIA_TYPES;
    const text =
      extension === 'html' ? fillIn(staticFile(file), { version: TOOL_VERSION, channels: defaultChannels.join(', ') }) : staticFile(file);
    app.get(path, async (_request, reply) =>
      reply.header('content-security-policy', PAGE_CSP).header('cache-control', 'no-cache').type(MEDIA_TYPES[extension]).send(text),
    );
    // The pages' relative links assume their path without a trailing slash.
    if (extension === 'html') app.get(`${path}/`, async (_request, reply) => reply.redirect(path, 302));
  }
}

function fillIn(html: string, values: Readonly<Record<string, string>>): string {
  return html.replace(/\{\{(\w+)\}\}/g, (_match, name: string) => escapeHtml(values[name] ?? ''));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
