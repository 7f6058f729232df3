/**
 * The Markdown documents of `docs/` that the public documents send readers to, served as
 * `/docs/<name>.md` (free, cached like the other documents). Declared here once: a mention of
 * `docs/<name>.md` in a served text becomes a link only when it is in this list, and the link
 * walker test checks that every link answers.
 */
import { readFileSync } from 'node:fs';
import { documentRoute } from '../shared/documentRoute.js';

export interface ServedDocument {
  name: string;
  summary: string;
}

export const SERVED_DOCUMENTS: readonly ServedDocument[] = [
  { name: 'errors', summary: 'Every error code: its status, what it means and what to do' },
  { name: 'payments', summary: 'How payments work: x402 v2 challenge, networks, settlement modes, retries and receipts' },
  { name: 'stream', summary: 'The live mempool WebSocket stream: ticket, frames, client messages and close codes' },
  { name: 'bump', summary: 'Fee bumps: RBF and CPFP plans, insight verdicts and relay of a caller-signed bump' },
  { name: 'operations', summary: 'Running the service: limits, rate limits, proxies, node outages, several replicas' },
  { name: 'mining', summary: 'For miners: wtxids for Stratum v2 job declaration, the getblocktemplate drop-in, block audits' },
];

const DOC_NAMES = new Set(SERVED_DOCUMENTS.map((d) => d.name));

/** `docs/errors.md` (not already part of a path or link) → a Markdown link to its served copy. */
export function linkDocuments(text: string, baseUrl: string): string {
  return text.replace(/(?<![\w/[(.-])docs\/([a-z-]+)\.md\b/g, (whole, name: string) =>
    DOC_NAMES.has(name) ? `[${whole}](${baseUrl}/docs/${name}.md)` : whole,
  );
}

/** Read once on first use; the same path from `src/api/docs/` and `dist/api/docs/`. */
function file(name: string): () => string {
  let text: string | undefined;
  return () => (text ??= readFileSync(new URL(`../../../docs/${name}.md`, import.meta.url), 'utf8'));
}

export const documentRoutes = (cacheSeconds: number) =>
  SERVED_DOCUMENTS.map((doc) => documentRoute({ path: `/docs/${doc.name}.md`, content: 'markdown', summary: doc.summary, cacheSeconds }, file(doc.name)));
