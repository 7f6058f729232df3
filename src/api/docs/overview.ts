/**
 * `/`: the overview page for a person — what the service is, its live status, what it sells at
 * which price (from the registry), and where the documents are.
 */
import { FAMILY_TITLES, priceUsd, routeKey, type Registry } from '../define.js';
import { isDocument, SERVICE_SUMMARY, SERVICE_TITLE } from '../shared/serviceFacts.js';
import { escapeHtml, page } from '../shared/html.js';

export interface OverviewStatus {
  node: string;
  mempoolReady: boolean;
  mempoolTxCount: number;
  height: number | null;
  optimizer: {
    enabled: boolean;
    cycles: number;
    lastStatus: string | null;
    optimizedFeeSat: number | null;
    baselineFeeSat: number | null;
    gapToBoundPct: number | null;
  };
  payments: { enabled: boolean; settlement: string };
}

const fmt = (n: number) => n.toLocaleString('en-US');

function statusCards(s: OverviewStatus): string {
  const gain = s.optimizer.optimizedFeeSat !== null && s.optimizer.baselineFeeSat !== null ? s.optimizer.optimizedFeeSat - s.optimizer.baselineFeeSat : null;
  const card = (title: string, value: string, note: string) =>
    `<div class="card"><h2>${escapeHtml(title)}</h2><div class="big">${escapeHtml(value)}</div><div class="muted">${escapeHtml(note)}</div></div>`;
  return `<div class="grid">
${card('Node', s.height === null ? 'not ready' : `height ${fmt(s.height)}`, s.node === 'simulated' ? 'embedded simulated node (demo data)' : 'Bitcoin Core')}
${card('Mempool', s.mempoolReady ? `${fmt(s.mempoolTxCount)} txs` : 'not ready', 'transactions in the mirrored mempool')}
${card('Optimizer', s.optimizer.enabled ? `${fmt(s.optimizer.cycles)} cycles` : 'disabled', gain === null ? `last cycle: ${s.optimizer.lastStatus ?? 'none yet'}` : `optimized − baseline: ${fmt(gain)} sat; gap to bound ${s.optimizer.gapToBoundPct ?? '?'} %`)}
${card('Payments', s.payments.enabled ? 'x402 v2' : 'off', s.payments.enabled ? `settlement: ${s.payments.settlement}` : 'every route answers without payment')}
</div>`;
}

export function overviewHtml(registry: Registry, status: OverviewStatus): string {
  const documents = registry.routes
    .filter(isDocument)
    .map((r) => `<li><a href="${escapeHtml(r.path)}">${escapeHtml(r.path)}</a>: ${escapeHtml(r.summary)}</li>`);
  const rows: string[] = [];
  for (const route of registry.routes) {
    if (route.family === 'docs') continue;
    const price =
      route.kind === 'jsonrpc' ? 'per method' : route.kind === 'mcp' ? 'per tool' : priceUsd(route.price) === 0 ? 'free' : `${priceUsd(route.price)}`;
    rows.push(
      `<tr><td><code>${escapeHtml(routeKey(route))}</code></td><td>${escapeHtml(FAMILY_TITLES[route.family])}</td><td>${price}</td><td style="text-align:left;white-space:normal">${escapeHtml(route.summary)}</td></tr>`,
    );
  }
  for (const method of registry.methods.values()) {
    const price = priceUsd(method.price) === 0 ? 'free' : `${priceUsd(method.price)}`;
    rows.push(
      `<tr><td><code>${escapeHtml(method.name)}</code></td><td>JSON-RPC</td><td>${price}</td><td style="text-align:left;white-space:normal">${escapeHtml(method.summary)}</td></tr>`,
    );
  }
  const body = `<p>${escapeHtml(SERVICE_SUMMARY)}</p>
${statusCards(status)}
<div class="grid" style="margin-top:16px">
<div class="card"><h2>For agents and developers</h2><ul>${documents.join('\n')}</ul></div>
<div class="card"><h2>For people</h2><p><a href="/dashboard">The live dashboard</a>: mempool size and congestion, fee histogram, projected blocks, optimized vs baseline vs upper bound for the last cycles, cycle timings, replacements and blocks.</p>
<p class="muted">Non-custodial: the service never holds keys or funds and never signs a Bitcoin transaction.</p></div>
</div>
<div class="card wide" style="margin-top:16px"><h2>What it serves (USD per request)</h2><table><thead><tr><th>route or method</th><th>family</th><th>price</th><th style="text-align:left">answer</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></div>`;
  return page({ title: SERVICE_TITLE, body });
}
