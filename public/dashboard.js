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

  /** The chart's width: its card's, whatever the screen (no minimum that would overflow a phone). */
  const widthOf = (el) => Math.max(120, Math.floor(el.clientWidth));
  const HEIGHT = 240;

  /** Show the values of the latest point in the legend whenever the cursor is not on the chart (never `--`). */
  const showLatest = (u) => {
    const n = u.data[0]?.length ?? 0;
    if (n > 0 && u.cursor.idx == null) u.setLegend({ idx: n - 1 }, false);
  };

  /**
   * One uPlot chart in the element `id`, created on first use, then given new data. `opts`:
   * xLabel / yLabel (axis titles with units), x / y value formatters, a second y scale (`y2`).
   */
  function chart(id, series, data, opts = {}) {
    const el = document.getElementById(id);
    if (charts[id]) {
      charts[id].setData(data);
      showLatest(charts[id]);
      return;
    }
    const axes = [
      axis({ label: opts.xLabel, labelSize: 20, values: opts.xValues, ...(opts.integerX ? { incrs: [1, 2, 5, 10, 20, 50, 100] } : {}) }),
      axis({ label: opts.yLabel, labelSize: 20, size: 70, values: (u, vals) => vals.map((v) => compact(v)) }),
    ];
    const scales = { x: { time: false }, ...(opts.zeroY ? { y: { range: (u, min, max) => [0, max > 0 ? max * 1.05 : 1] } } : {}) };
    if (opts.y2) {
      axes.push(
        axis({
          scale: opts.y2.scale,
          side: 1,
          label: opts.y2.label,
          labelSize: 20,
          size: 60,
          grid: { show: false },
          values: (u, vals) => vals.map((v) => compact(v)),
        }),
      );
      scales[opts.y2.scale] = { range: (u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] };
    }
    charts[id] = new uPlot(
      {
        width: widthOf(el),
        height: HEIGHT,
        legend: { show: true, live: true },
        cursor: { drag: { x: false, y: false } },
        series: [{ label: opts.xName ?? 'x', value: opts.xValue }, ...series],
        axes,
        scales,
        hooks: { setCursor: [showLatest], ready: [showLatest] },
      },
      data,
      el,
    );
    new ResizeObserver(() => charts[id].setSize({ width: widthOf(el), height: HEIGHT })).observe(el);
  }

  /** 12345678 → 12.3M, 0.25 → 0.25: short tick labels that fit a phone. */
  function compact(v) {
    if (v === null || v === undefined) return '';
    const a = Math.abs(v);
    if (a >= 1e6) return `${+(v / 1e6).toFixed(2)}M`;
    if (a >= 1e4) return `${+(v / 1e3).toFixed(1)}k`;
    return fmt(+v.toFixed(4));
  }
  const unit = (suffix) => (u, v) => (v === null || v === undefined ? '–' : `${fmt(v)} ${suffix}`);

  function drawHistogram(snapshot) {
    // Lowest rate first, from the lowest to the highest bucket that holds anything.
    const all = [...snapshot.histogram].sort((a, b) => a.minFeeRateSatVb - b.minFeeRateSatVb);
    const used = all.map((b, i) => (b.vsize > 0 ? i : -1)).filter((i) => i >= 0);
    const buckets = used.length === 0 ? [] : all.slice(used[0], used[used.length - 1] + 1);
    const labels = buckets.map((b) => b.minFeeRateSatVb);
    chart(
      'histogram',
      [{ label: 'waiting', value: unit('vB'), stroke: colors.accent, fill: colors.accent + '99', paths: bars, points: { show: false } }],
      [buckets.map((_, i) => i), buckets.map((b) => b.vsize)],
      {
        xName: 'from',
        xLabel: 'effective fee rate, from (sat/vB)',
        yLabel: 'vsize waiting (vB)',
        xValue: (u, i) => (i === null || labels[i] === undefined ? '–' : `${labels[i]} sat/vB`),
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
        { label: 'median', value: unit('sat/vB'), stroke: colors.blue, fill: colors.blue + '99', paths: bars, points: { show: false } },
        { label: 'min', value: unit('sat/vB'), stroke: colors.grey, dash: [4, 4] },
        { label: 'max', value: unit('sat/vB'), stroke: colors.red, dash: [4, 4], show: false },
      ],
      [blocks.map((b) => b.block), blocks.map((b) => b.medianFeeRateSatVb), blocks.map((b) => b.minFeeRateSatVb), blocks.map((b) => b.maxFeeRateSatVb)],
      { xName: 'block', xLabel: 'projected block (1 = next)', yLabel: 'fee rate (sat/vB)', integerX: true, zeroY: true },
    );
  }

  /** The comparison the optimizer exists for, as its own series: gain over the baseline and gap to the bound, sat and %. */
  function drawGain(snapshot) {
    const c = snapshot.cycles;
    const pct = (part, whole) => (whole > 0 ? Math.round((part / whole) * 1e6) / 1e4 : 0);
    chart(
      'gain',
      [
        { label: 'gain', value: unit('sat'), stroke: colors.accent, width: 2, fill: colors.accent + '22' },
        { label: 'gap to bound', value: unit('sat'), stroke: colors.green, width: 2, dash: [6, 4] },
        { label: 'gain', scale: '%', value: unit('%'), stroke: colors.accent, width: 1, dash: [2, 3], points: { show: false } },
        { label: 'gap', scale: '%', value: unit('%'), stroke: colors.green, width: 1, dash: [2, 3], points: { show: false } },
      ],
      [
        c.map((x) => x.cycle),
        c.map((x) => x.optimizedFeeSat - x.baselineFeeSat),
        c.map((x) => Math.round((x.upperBoundFeeSat - x.optimizedFeeSat) * 10) / 10),
        c.map((x) => pct(x.optimizedFeeSat - x.baselineFeeSat, x.baselineFeeSat)),
        c.map((x) => pct(x.upperBoundFeeSat - x.optimizedFeeSat, x.upperBoundFeeSat)),
      ],
      { xName: 'cycle', xLabel: 'optimizer cycle', yLabel: 'sat', y2: { scale: '%', label: '% of baseline / bound' }, integerX: true },
    );
  }

  function drawCycles(snapshot) {
    const c = snapshot.cycles;
    chart(
      'cycles',
      [
        { label: 'optimized', value: unit('sat'), stroke: colors.accent, width: 2 },
        { label: 'baseline', value: unit('sat'), stroke: colors.blue, width: 2 },
        { label: 'upper bound', value: unit('sat'), stroke: colors.green, dash: [6, 4] },
      ],
      [c.map((x) => x.cycle), c.map((x) => x.optimizedFeeSat), c.map((x) => x.baselineFeeSat), c.map((x) => x.upperBoundFeeSat)],
      { xName: 'cycle', xLabel: 'optimizer cycle', yLabel: 'fees (sat)', integerX: true },
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
      { xName: 'height', xLabel: 'block height', yLabel: 'fees (sat)', integerX: true },
    );
  }

  /** Every cycle's native time (incremental ones included), and the wall-clock phases of the full cycles at their cycle numbers. */
  function drawPhases(snapshot) {
    const full = new Map(snapshot.phases.map((r) => [r.cycle, r]));
    const cycles = [...new Set([...snapshot.cycles.map((c) => c.cycle), ...full.keys()])].sort((a, b) => a - b);
    const native = new Map(snapshot.cycles.map((c) => [c.cycle, c.nativeMs]));
    const phase = (name) => cycles.map((k) => full.get(k)?.phasesMs[name] ?? null);
    const ms = unit('ms');
    chart(
      'phases',
      [
        { label: 'native (every cycle)', value: ms, stroke: colors.purple, width: 2 },
        { label: 'baseline', value: ms, stroke: colors.blue, spanGaps: true },
        { label: 'snapshot', value: ms, stroke: colors.grey, spanGaps: true },
        { label: 'optimize', value: ms, stroke: colors.accent, width: 2, spanGaps: true },
        { label: 'publish', value: ms, stroke: colors.green, spanGaps: true },
      ],
      [cycles, cycles.map((k) => native.get(k) ?? null), phase('baseline'), phase('snapshot'), phase('optimize'), phase('publish')],
      { xName: 'cycle', xLabel: 'optimizer cycle (full and incremental)', yLabel: 'duration (ms)', integerX: true },
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
    // The node is known down: the numbers stay, labelled as the last known ones.
    const down = field('nodeDown');
    down.hidden = !snapshot.node.down;
    down.textContent = snapshot.node.down
      ? `Last known at ${snapshot.node.lastKnownAt === null ? 'never' : new Date(snapshot.node.lastKnownAt).toLocaleTimeString()} — node unreachable (${snapshot.node.downReason}). The values below are the last known ones.`
      : '';
    set('mempoolCount', m.ready ? fmt(m.count) : 'not ready');
    set('mempoolVsize', `${(m.vsize / 1e6).toFixed(2)} vMB`);
    note('mempoolVsize').textContent = `${m.backlogBlocks} blocks of backlog; floor ${m.minFeeRateSatVb ?? '–'} sat/vB`;
    set('optimizedFeeSat', latest ? fmt(latest.optimizedFeeSat) : 'warming up');
    set('gainSat', latest ? `${latest.optimizedFeeSat >= latest.baselineFeeSat ? '+' : ''}${fmt(latest.optimizedFeeSat - latest.baselineFeeSat)} sat` : '–');
    set('gapPct', latest ? `${latest.gapToBoundPct} %` : '–');
    if (latest) {
      note('optimizedFeeSat').textContent = `sat in ${fmt(latest.txCount)} txs, ${latest.kind} cycle ${latest.cycle}, height ${fmt(latest.height)}`;
      note('gainSat').textContent = `baseline (${latest.baselineSource}) ${fmt(latest.baselineFeeSat)} sat`;
      note('gapPct').textContent = `upper bound ${fmt(latest.upperBoundFeeSat)} sat: no template can earn more`;
      field('optimizedFeeSat').dataset.cycle = String(latest.cycle);
    }
    set('phase', snapshot.optimizer.enabled ? (snapshot.optimizer.phase ?? 'idle') : 'disabled');
    note('phase').textContent =
      `${fmt(snapshot.optimizer.cycleCount)} cycles; last ${snapshot.optimizer.lastStatus ?? '–'}${snapshot.optimizer.lastError ? `: ${snapshot.optimizer.lastError}` : ''}`;
    drawGain(snapshot);
    drawCycles(snapshot);
    drawHistogram(snapshot);
    drawProjected(snapshot);
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
