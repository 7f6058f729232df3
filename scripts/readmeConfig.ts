/**
 * Rewrites the README's configuration table from `CONFIG_DOCS` (src/config.ts), between the
 * `<!-- config:start -->` and `<!-- config:end -->` markers. `npm run docs:config`; a test fails
 * when the README and the code disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { CONFIG_DOCS } from '../src/config.js';

const file = new URL('../README.md', import.meta.url);
const readme = readFileSync(file, 'utf8');
const rows = CONFIG_DOCS.map((r) => `| \`${r.name}\` | ${r.default === undefined ? '(unset)' : `\`${r.default}\``} | ${r.doc.replace(/\|/g, '\\|')} |`);
const table = ['<!-- config:start -->', '| variable | default | meaning |', '|---|---|---|', ...rows, '<!-- config:end -->'].join('\n');
const next = readme.replace(/<!-- config:start -->[\s\S]*?<!-- config:end -->/, table);
if (next === readme && !readme.includes('<!-- config:start -->')) throw new Error('README has no config markers');
writeFileSync(file, next);
console.log(`README configuration table: ${rows.length} variables`);
