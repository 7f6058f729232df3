/**
 * A free GET route that answers a text document (a page, a Markdown or XML document, a script or a
 * stylesheet), built per request or read once, with its content type and cache lifetime.
 */
import { z } from 'zod';
import { defineRoute, type ApiContext, type ContentKind, type RestRoute } from '../define.js';

export interface DocumentSpec {
  path: string;
  summary: string;
  content: Exclude<ContentKind, 'json' | 'eventStream'>;
  /** Absent: not cached (a page with live status). */
  cacheSeconds?: number;
}

export function documentRoute(spec: DocumentSpec, build: (ctx: ApiContext, baseUrl: string) => string): RestRoute {
  return defineRoute({
    family: 'docs',
    method: 'GET',
    price: 'free',
    response: z.string(),
    errors: [],
    example: 'live',
    ...spec,
  }).handle(async function serveDocument(ctx, _input, { baseUrl }) {
    return build(ctx, baseUrl);
  });
}
