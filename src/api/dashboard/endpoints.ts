/**
 * `/dashboard`: a read-only page for people, its same-origin scripts (our client and uPlot, served
 * from node_modules, no CDN) and its free feed of aggregate telemetry (server-sent events).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { defineRoute } from '../define.js';
import { documentRoute } from '../shared/documentRoute.js';
import { dashboardHtml } from './page.js';

const require = createRequire(import.meta.url);

/** Read once on first use; the same path from `src/api/dashboard/` and `dist/api/dashboard/`. */
function asset(resolve: () => string): () => string {
  let text: string | undefined;
  return () => (text ??= readFileSync(resolve(), 'utf8'));
}

const ASSETS = {
  client: asset(() => new URL('../../../public/dashboard.js', import.meta.url).pathname),
  uplot: asset(() => require.resolve('uplot/dist/uPlot.iife.min.js')),
  uplotCss: asset(() => require.resolve('uplot/dist/uPlot.min.css')),
};

const ASSET_CACHE_SECONDS = 3600;

const script = (path: string, summary: string, read: () => string, content: 'javascript' | 'css') =>
  documentRoute({ path, summary, content, cacheSeconds: ASSET_CACHE_SECONDS }, read);

export const dashboardRoutes = [
  documentRoute(
    {
      path: '/dashboard',
      content: 'html',
      summary: 'Live dashboard: mempool, fee histogram, projected blocks, optimized vs baseline vs bound, cycle timings, replacements and blocks',
    },
    dashboardHtml,
  ),

  defineRoute({
    family: 'docs',
    method: 'GET',
    path: '/dashboard/feed',
    price: 'free',
    summary: 'The dashboard’s live feed: server-sent events, one `snapshot` event of aggregate telemetry per change (at most one per second)',
    response: z.custom<Readable>((value) => value instanceof Readable),
    content: 'eventStream',
    errors: [],
    example: 'live',
  }).handle(async function dashboardFeed(ctx) {
    return ctx.dashboard.open();
  }),

  script('/dashboard/app.js', 'The dashboard’s script', ASSETS.client, 'javascript'),
  script('/dashboard/uplot.js', 'uPlot 1.6 (MIT), the chart library of the dashboard', ASSETS.uplot, 'javascript'),
  script('/dashboard/uplot.css', 'uPlot’s stylesheet', ASSETS.uplotCss, 'css'),
];
