/**
 * The dashboard page: the layout and empty slots that `public/dashboard.js` fills from the feed.
 * Numbers carry `data-field` names (the browser test reads them); charts are uPlot canvases.
 */
import { page } from '../shared/html.js';

const stat = (field: string, title: string, note: string) =>
  `<div class="card"><h2>${title}</h2><div class="big" data-field="${field}">…</div><div class="muted" data-note="${field}">${note}</div></div>`;

const chart = (id: string, title: string, note: string, wide = false) =>
  `<div class="card${wide ? ' wide' : ''}"><h2>${title}</h2><div class="chart" id="${id}"></div><div class="muted">${note}</div></div>`;

export function dashboardHtml(): string {
  // Shown while the node is known unreachable: the values below are then the last known ones.
  const body = `<p class="muted">Read-only · feed <span data-field="feedStatus">connecting…</span> · updated <span data-field="updatedAt">never</span> · node <span data-field="node">…</span></p>
<p class="card status-bad" role="alert" data-field="nodeDown" hidden></p>
<div class="grid">
${stat('mempoolCount', 'Mempool', 'transactions')}
${stat('mempoolVsize', 'Pending size', 'vMB · blocks of backlog')}
${stat('optimizedFeeSat', 'Optimized template', 'sat in fees (cycle …)')}
${stat('gainSat', 'Gain over baseline', 'sat more than the baseline template')}
${stat('gapPct', 'Gap to upper bound', '% of the bound left: 0 % = optimal')}
${stat('phase', 'Optimizer', 'current phase')}
</div>
<div class="grid charts" style="margin-top:16px">
${chart('gain', 'Optimized − baseline, and the gap to the bound', 'per cycle (full and incremental): the optimized template’s extra fees over the baseline, and what the upper bound leaves; sat on the left axis, % on the right', true)}
${chart('cycles', 'Fees: optimized, baseline, upper bound', 'fees of each template per cycle (sat); the differences are small next to the totals, see above')}
${chart('phases', 'Cycle timings', 'native optimizer time of every cycle, and the phases of full cycles (ms)')}
${chart('histogram', 'Fee histogram', 'vsize waiting at each effective fee rate')}
${chart('projected', 'Projected blocks', 'fee rates of each projected block, next block first')}
${chart('audits', 'Block audits', 'fees of each mined block next to our last template and the baseline for its parent (sat)', true)}
<div class="card"><h2>Recent replacements</h2><table><thead><tr><th>replaced</th><th>by</th><th>when</th></tr></thead><tbody data-table="replacements"></tbody></table></div>
<div class="card"><h2>Recent blocks</h2><table><thead><tr><th>height</th><th>txs</th><th>hash</th><th>when</th></tr></thead><tbody data-table="blocks"></tbody></table></div>
</div>`;
  return page({ title: 'Dashboard', styles: ['/dashboard/uplot.css'], scripts: ['/dashboard/uplot.js', '/dashboard/app.js'], body });
}
