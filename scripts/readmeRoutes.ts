/**
 * Rewrites the README's route and JSON-RPC method tables from the registry (src/api/registry.ts),
 * between the `<!-- routes:start/end -->` and `<!-- rpc-methods:start/end -->` markers.
 * `npm run docs:routes`; a test fails when the README and the registry disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { replaceBetweenMarkers, restRouteTable, rpcMethodTable } from '../src/api/docs/markdownTables.js';
import { serviceRegistry } from '../src/api/registry.js';

const file = new URL('../README.md', import.meta.url);
const registry = serviceRegistry();
let readme = readFileSync(file, 'utf8');
readme = replaceBetweenMarkers(readme, 'routes', restRouteTable(registry));
readme = replaceBetweenMarkers(readme, 'rpc-methods', rpcMethodTable(registry));
writeFileSync(file, readme);
console.log(`README tables: ${registry.routes.length} routes, ${registry.methods.size} JSON-RPC methods`);
