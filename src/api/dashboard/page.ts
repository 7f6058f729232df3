/**
 * The dashboard page: the layout and empty slots that `public/dashboard.js` fills from the feed.
 * Numbers carry `data-field` names (the browser test reads them); charts are uPlot canvases.
 */
import { page } from '../docs/html.js';

const stat = (field: string, title: string, note: string) =>
  `<div class="card"><h2>${title}</h2><div class="big" data-field="${field}">…</div><div class="muted" data-note="${field}">${note}</div></div>`;

const chart = (id: string, title: string, note: string, wide = false) =>
  `<div class="card${wide ? ' wide' : ''}"><h2>${title}</h2><div class="chart" id="${id}"></div><div class="muted">${note}</div></div>`;

export function dashboardHtml(): string {
  const body = `<p class="muted">Live, read-only. <span data-field="feedStatus">connecting…</span> · updated <span data-field="updatedAt">never</span> · node <span data-field="node">…</span></p>
<div class="grid">
${stat('mempoolCount', 'Mempool', 'transactions')}
${stat('mempoolVsize', 'Pending size', 'vMB · blocks of backlog')}
${stat('optimizedFeeSat', 'Optimized template', 'sat in fees (cycle …)')}
${stat('baselineFeeSat', 'Baseline', 'sat in fees')}
${stat('upperBoundFeeSat', 'Upper bound', 'sat: no template can earn more')}
${stat('phase', 'Optimizer', 'current phase')}
</div>
<div class="grid charts" style="margin-top:16px">
${chart('histogram', 'Fee histogram', 'vsize waiting at each effective fee rate (sat/vB)')}
${chart('projected', 'Projected blocks', 'median fee rate of each projected block (sat/vB), next block first')}
${chart('cycles', 'Optimized vs baseline vs upper bound', 'fees of the last cycles (sat)', true)}
${chart('phases', 'Cycle phase timings', 'ms per phase of the last cycles')}
${chart('audits', 'Block audits', 'fees of each block next to our template and the baseline for its parent (sat)', true)}
<div class="card"><h2>Recent replacements</h2><table><thead><tr><th>replaced</th><th>by</th><th>when</th></tr></thead><tbody data-table="replacements"></tbody></table></div>
<div class="card"><h2>Recent blocks</h2><table><thead><tr><th>height</th><th>txs</th><th>hash</th><th>when</th></tr></thead><tbody data-table="blocks"></tbody></table></div>
</div>`;
  return page({ title: 'Dashboard', styles: ['/dashboard/uplot.css'], scripts: ['/dashboard/uplot.js', '/dashboard/app.js'], body });
}
