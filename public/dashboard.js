// The dashboard's client: follows the free feed (/dashboard/feed, server-sent events) and draws
// each snapshot with uPlot (served by the service itself). No framework, no build step.
'use strict';

(() => {
  const fmt = (n) => (n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US'));
  const field = (name) => document.querySelector(`[data-field="${name}"]`);
  const note = (name) => document.querySelector(`[data-note="${name}"]`);
  const set = (name, text) => {
    const el = field(name);
    if (el) el.textContent = text;
  };
  const css = getComputedStyle(document.documentElement);
  const colors = { accent: '#f7931a', blue: '#3b82f6', green: '#16a34a', grey: '#8b949e', red: '#dc2626', purple: '#8b5cf6' };
  const axisStroke = css.getPropertyValue('--muted').trim() || '#5b6470';
  const gridStroke = css.getPropertyValue('--line').trim() || '#d9dde3';
  const axis = (extra = {}) => ({ stroke: axisStroke, grid: { stroke: gridStroke, width: 1 }, ticks: { stroke: gridStroke }, ...extra });
  const bars = uPlot.paths.bars({ size: [0.8, 60] });

  /** name → uPlot instance; exposed for the browser test, which compares what is drawn with the API. */
  const charts = {};
  window.dashboard = { charts, snapshot: null };

  function chart(id, series, data, opts = {}) {
    const el = document.getElementById(id);
    const width = Math.max(260, el.clientWidth);
    if (charts[id]) {
      charts[id].setData(data);
      return;
    }
    charts[id] = new uPlot(
      {
        width,
        height: 220,
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        series: [{ label: opts.xLabel ?? 'x', value: opts.xValue }, ...series],
        axes: [
          axis({ values: opts.xValues, ...(opts.integerX ? { incrs: [1, 2, 5, 10, 20, 50, 100] } : {}) }),
          axis({ size: 90, values: (u, vals) => vals.map((v) => fmt(v)) }),
        ],
        // Bars stand on zero; lines zoom on their range.
        scales: { x: { time: false }, ...(opts.zeroY ? { y: { range: (u, min, max) => [0, max > 0 ? max * 1.05 : 1] } } : {}) },
      },
      data,
      el,
    );
    new ResizeObserver(() => charts[id].setSize({ width: Math.max(260, el.clientWidth), height: 220 })).observe(el);
  }

  function drawHistogram(snapshot) {
    // Lowest rate first, from the lowest to the highest bucket that holds anything.
    const all = [...snapshot.histogram].sort((a, b) => a.minFeeRateSatVb - b.minFeeRateSatVb);
    const used = all.map((b, i) => (b.vsize > 0 ? i : -1)).filter((i) => i >= 0);
    const buckets = used.length === 0 ? [] : all.slice(used[0], used[used.length - 1] + 1);
    const labels = buckets.map((b) => b.minFeeRateSatVb);
    chart(
      'histogram',
      [{ label: 'vsize (vB)', stroke: colors.accent, fill: colors.accent + '99', paths: bars, points: { show: false } }],
      [buckets.map((_, i) => i), buckets.map((b) => b.vsize)],
      {
        xLabel: 'from sat/vB',
        xValue: (u, i) => (i === null || labels[i] === undefined ? '–' : labels[i]),
        xValues: (u, vals) => vals.map((v) => (Number.isInteger(v) && labels[v] !== undefined ? labels[v] : '')),
        integerX: true,
        zeroY: true,
      },
    );
  }

  function drawProjected(snapshot) {
    const blocks = snapshot.projectedBlocks;
    chart(
      'projected',
      [
        { label: 'median sat/vB', stroke: colors.blue, fill: colors.blue + '99', paths: bars, points: { show: false } },
        { label: 'min', stroke: colors.grey, dash: [4, 4] },
        { label: 'max', stroke: colors.red, dash: [4, 4], show: false },
      ],
      [blocks.map((b) => b.block), blocks.map((b) => b.medianFeeRateSatVb), blocks.map((b) => b.minFeeRateSatVb), blocks.map((b) => b.maxFeeRateSatVb)],
      { xLabel: 'block', integerX: true, zeroY: true },
    );
  }

  function drawCycles(snapshot) {
    const c = snapshot.cycles;
    chart(
      'cycles',
      [
        { label: 'optimized', stroke: colors.accent, width: 2 },
        { label: 'baseline', stroke: colors.blue, width: 2 },
        { label: 'upper bound', stroke: colors.green, dash: [6, 4] },
      ],
      [c.map((x) => x.cycle), c.map((x) => x.optimizedFeeSat), c.map((x) => x.baselineFeeSat), c.map((x) => x.upperBoundFeeSat)],
      { xLabel: 'cycle', integerX: true },
    );
  }

  function drawAudits(snapshot) {
    const a = snapshot.audits;
    chart(
      'audits',
      [
        { label: 'block', stroke: colors.accent, width: 2 },
        { label: 'optimized', stroke: colors.green, width: 2 },
        { label: 'baseline', stroke: colors.blue, width: 2 },
      ],
      [a.map((x) => x.height), a.map((x) => x.blockFeeSat), a.map((x) => x.optimizedFeeSat), a.map((x) => x.baselineFeeSat)],
      { xLabel: 'height', integerX: true },
    );
  }

  function drawPhases(snapshot) {
    const rows = [...snapshot.phases].sort((a, b) => a.cycle - b.cycle);
    const phase = (name) => rows.map((r) => r.phasesMs[name] ?? null);
    chart(
      'phases',
      [
        { label: 'baseline', stroke: colors.blue },
        { label: 'snapshot', stroke: colors.purple },
        { label: 'optimize', stroke: colors.accent, width: 2 },
        { label: 'publish', stroke: colors.green },
      ],
      [rows.map((r) => r.cycle), phase('baseline'), phase('snapshot'), phase('optimize'), phase('publish')],
      { xLabel: 'cycle', integerX: true },
    );
  }

  const short = (hash) => (hash ? `${hash.slice(0, 10)}…` : '–');
  const ago = (at) => `${Math.max(0, Math.round((Date.now() - at) / 1000))} s ago`;

  function table(name, rows) {
    const body = document.querySelector(`[data-table="${name}"]`);
    body.replaceChildren(
      ...rows.map((cells) => {
        const tr = document.createElement('tr');
        for (const cell of cells) {
          const td = document.createElement('td');
          td.textContent = cell;
          tr.append(td);
        }
        return tr;
      }),
    );
    if (rows.length === 0) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = 4;
      td.className = 'muted';
      td.textContent = 'none seen since this service started';
      tr.append(td);
      body.append(tr);
    }
  }

  function render(snapshot) {
    window.dashboard.snapshot = snapshot;
    const m = snapshot.mempool;
    const latest = snapshot.optimizer.latest;
    set('updatedAt', new Date(snapshot.at).toLocaleTimeString());
    set('node', `${snapshot.node.kind}, height ${fmt(snapshot.node.height)}${snapshot.node.lastError ? ` (error: ${snapshot.node.lastError})` : ''}`);
    set('mempoolCount', m.ready ? fmt(m.count) : 'not ready');
    set('mempoolVsize', `${(m.vsize / 1e6).toFixed(2)} vMB`);
    note('mempoolVsize').textContent = `${m.backlogBlocks} blocks of backlog; floor ${m.minFeeRateSatVb ?? '–'} sat/vB`;
    set('optimizedFeeSat', latest ? fmt(latest.optimizedFeeSat) : 'warming up');
    set('baselineFeeSat', latest ? fmt(latest.baselineFeeSat) : '–');
    set('upperBoundFeeSat', latest ? fmt(latest.upperBoundFeeSat) : '–');
    if (latest) {
      note('optimizedFeeSat').textContent = `sat in ${fmt(latest.txCount)} txs, cycle ${latest.cycle}, height ${fmt(latest.height)}`;
      note('baselineFeeSat').textContent = `sat (${latest.baselineSource}); optimized − baseline ${fmt(latest.optimizedFeeSat - latest.baselineFeeSat)} sat`;
      note('upperBoundFeeSat').textContent = `sat; gap to bound ${latest.gapToBoundPct} %`;
      field('optimizedFeeSat').dataset.cycle = String(latest.cycle);
    }
    set('phase', snapshot.optimizer.enabled ? (snapshot.optimizer.phase ?? 'idle') : 'disabled');
    note('phase').textContent =
      `${fmt(snapshot.optimizer.cycleCount)} cycles; last ${snapshot.optimizer.lastStatus ?? '–'}${snapshot.optimizer.lastError ? `: ${snapshot.optimizer.lastError}` : ''}`;
    drawHistogram(snapshot);
    drawProjected(snapshot);
    drawCycles(snapshot);
    drawPhases(snapshot);
    drawAudits(snapshot);
    table(
      'replacements',
      snapshot.replacements.map((r) => [short(r.txid), short(r.replacedBy), ago(r.at)]),
    );
    table(
      'blocks',
      snapshot.blocks.map((b) => [fmt(b.height), fmt(b.txCount), short(b.hash), ago(b.at)]),
    );
  }

  const feed = new EventSource('/dashboard/feed');
  feed.addEventListener('open', () => set('feedStatus', 'live'));
  feed.addEventListener('error', () => set('feedStatus', 'reconnecting…'));
  feed.addEventListener('snapshot', (event) => render(JSON.parse(event.data)));
})();
