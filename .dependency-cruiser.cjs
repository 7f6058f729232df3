/**
 * Layers import one way (docs/architecture.md). `npm run lint:deps` checks src/ against these rules
 * in CI: no cycles (type-only imports included), no import from a lower layer to a higher one,
 * nobody imports app.ts but main.ts, and the simulated node imports nothing of the product but the
 * bottom layer.
 */
const BOTTOM = '^src/(bitcoin|util|storage)/|^src/(config|errors|version)\\.ts$';
const SERVICES = '^src/(node|mempool|fees|optimizer|payments|bump|stream|pool)/';
const API = '^src/api/';
const TOP = '^src/(deps|app|main)\\.ts$|^src/cli/';
const SIMNET = '^src/simnet/';
/** The API's families: each stands alone; what two of them share lives in src/api/shared/. */
const FAMILIES = '(bitcoin|mempool|template|rpc|system|docs|dashboard|mcp)';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles (type-only ones too) hide which module owns what.', from: {}, to: { circular: true } },
    {
      name: 'bottom-imports-only-bottom',
      severity: 'error',
      comment: 'bitcoin/, util/, storage/, config, errors: facts and tools that know nothing of the service.',
      from: { path: BOTTOM },
      to: { path: `${SERVICES}|${API}|${TOP}|${SIMNET}` },
    },
    {
      name: 'services-import-no-api-or-top',
      severity: 'error',
      comment: 'Services (node, mempool, fees, optimizer, payments, bump, stream, pool) never see HTTP routes or the wiring.',
      from: { path: SERVICES },
      to: { path: `${API}|${TOP}|${SIMNET}` },
    },
    {
      name: 'api-imports-no-top',
      severity: 'error',
      comment: 'The API layer takes its context; it never imports the wiring.',
      from: { path: API },
      to: { path: `${TOP}|${SIMNET}` },
    },
    {
      name: 'api-families-stand-alone',
      severity: 'error',
      comment: 'An API family (bitcoin, mempool, template, rpc, system, docs, dashboard, mcp) imports no other family: what two share goes to src/api/shared/.',
      from: { path: `^src/api/${FAMILIES}/` },
      to: { path: `^src/api/${FAMILIES}/`, pathNot: '^src/api/$1/' },
    },
    {
      name: 'api-shared-imports-no-family',
      severity: 'error',
      comment: 'src/api/shared/ is neutral ground: the families import it, it imports none of them.',
      from: { path: '^src/api/shared/' },
      to: { path: `^src/api/${FAMILIES}/` },
    },
    {
      name: 'nobody-imports-app',
      severity: 'error',
      comment: 'app.ts is wiring only; only main.ts builds the app.',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^src/app\\.ts$' },
    },
    {
      name: 'simnet-is-a-world-of-its-own',
      severity: 'error',
      comment: 'The simulated node speaks Core RPC and imports no product code, only the bottom layer (bitcoin/, util/).',
      from: { path: SIMNET },
      to: { path: '^src/', pathNot: `${SIMNET}|^src/(bitcoin|util)/` },
    },
    {
      name: 'only-main-starts-the-simulated-node',
      severity: 'error',
      comment: 'Product code never reaches into the simulated node; main.ts starts it when no node is configured.',
      from: { path: '^src/', pathNot: `${SIMNET}|^src/main\\.ts$` },
      to: { path: SIMNET },
    },
    {
      name: 'optimizer-shared-pieces-know-no-mode',
      severity: 'error',
      comment: 'The optimizer binding, snapshots and the signed cache serve every cycle mode; they know none of them, nor the service.',
      from: { path: '^src/optimizer/(binding|snapshot|cache)/' },
      to: { path: '^src/optimizer/(full|incremental|leadership)/|^src/optimizer/[^/]+\\.ts$' },
    },
    {
      name: 'optimizer-modes-stand-alone',
      severity: 'error',
      comment: 'The full cycle, the incremental engine and replica leadership each import the shared pieces and cycle.ts, never another mode.',
      from: { path: '^src/optimizer/(full|incremental|leadership)/' },
      to: { path: '^src/optimizer/(full|incremental|leadership)/', pathNot: '^src/optimizer/$1/' },
    },
    {
      name: 'optimizer-cycles-do-not-know-the-scheduler',
      severity: 'error',
      comment: 'Cycle modes are scheduled by optimizerService.ts; they never import it (leadership drives the service, so it may).',
      from: { path: '^src/optimizer/(full|incremental)/' },
      to: { path: '^src/optimizer/(optimizerService|plugin|blockAudit)\\.ts$' },
    },
    {
      name: 'mempool-sources-feed-the-store',
      severity: 'error',
      comment: 'The poll and event sources change the view through mirrorStore.ts; neither imports the other or the mirror that schedules them.',
      from: { path: '^src/mempool/sources/([^/]+)\\.ts$' },
      to: { path: '^src/mempool/(mirror\\.ts$|sources/)', pathNot: '^src/mempool/sources/$1\\.ts$' },
    },
    {
      name: 'mempool-store-knows-no-source',
      severity: 'error',
      comment: 'The mempool view knows neither its sources nor the mirror.',
      from: { path: '^src/mempool/mirrorStore\\.ts$' },
      to: { path: '^src/mempool/(mirror\\.ts$|sources/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
