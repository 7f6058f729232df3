/**
 * The HTML pages for people (`/` and `/dashboard`): one layout, escaped text, no inline scripts
 * (a page's script is a same-origin file, so a strict Content-Security-Policy holds).
 */

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --bg: #fbfbfd; --card: #ffffff; --line: #d9dde3; --accent: #f7931a; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --muted: #9aa3ad; --bg: #111418; --card: #1a1f25; --line: #2c333b; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 18px 24px; border-bottom: 1px solid var(--line); display: flex; gap: 18px; align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 20px; margin: 0; } header h1 span { color: var(--accent); }
header nav { display: flex; flex-wrap: wrap; gap: 2px 14px; min-width: 0; }
header nav a { color: var(--muted); text-decoration: none; } header nav a:hover { color: var(--fg); }
main { padding: 20px 24px; max-width: 1280px; margin: 0 auto; }
.grid { display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(min(100%, 260px), 1fr)); }
.charts { grid-template-columns: repeat(auto-fit, minmax(min(100%, 460px), 1fr)); }
.chart { width: 100%; min-height: 240px; }
.u-legend { font-size: 12px; } .u-legend .u-series { padding: 0 6px; } .u-legend th { font-weight: 500; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; min-width: 0; }
.card h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 0 0 8px; font-weight: 600; }
.big { font-size: 28px; font-weight: 650; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); } .wide { grid-column: 1 / -1; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 13px; }
td, th { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
td:first-child, th:first-child { text-align: left; } code { font-size: 13px; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; overflow: hidden; text-overflow: ellipsis; }
/* A phone: less padding, and tables wrap instead of widening the page. */
@media (max-width: 640px) {
  header, main { padding: 12px; } .big { font-size: 24px; }
  td, th { white-space: normal; overflow-wrap: anywhere; } code { overflow-wrap: anywhere; }
}
.status-ok { color: #1a7f37; } .status-warn { color: #b7791f; } .status-bad { color: #cf222e; }
`;

export interface PageOptions {
  title: string;
  /** Same-origin stylesheets and scripts (absolute paths). */
  styles?: readonly string[];
  scripts?: readonly string[];
  body: string;
}

export function page({ title, styles = [], scripts = [], body }: PageOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="alternate" type="text/markdown" href="/llms.txt" title="llms.txt">
<style>${STYLE}</style>
${styles.map((s) => `<link rel="stylesheet" href="${escapeHtml(s)}">`).join('\n')}
</head>
<body>
<header><h1><span>●</span> ${escapeHtml(title)}</h1>
<nav><a href="/">Overview</a><a href="/dashboard">Dashboard</a><a href="/llms.txt">llms.txt</a><a href="/AGENTS.md">AGENTS.md</a><a href="/openapi.json">OpenAPI</a><a href="/glossary.md">Glossary</a><a href="/metrics">Metrics</a></nav></header>
<main>
${body}
</main>
${scripts.map((s) => `<script src="${escapeHtml(s)}" defer></script>`).join('\n')}
</body>
</html>
`;
}
