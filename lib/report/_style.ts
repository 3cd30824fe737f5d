// The one stylesheet every report shares, inlined into each file. Colours are CSS custom
// properties: the light set by default, the dark set under prefers-color-scheme, and a print set
// (black on white, no shading) so a printed report keeps its meaning. The SVG charts use the same
// properties through classes, so they follow the scheme too. System fonts only: no font fetches.
export const REPORT_CSS = `
:root{--bg:#fff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--panel:#f6f8fa;--accent:#0969da;
--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--infra:#8c959f;--ci:#0969da;--zero:#57606a;--bar:#54aeff}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#30363d;
--panel:#161b22;--accent:#4493f8;--pass:#3fb950;--fail:#f85149;--warn:#d29922;--infra:#6e7681;
--ci:#4493f8;--zero:#9198a1;--bar:#1f6feb}}
@media print{:root{--bg:#fff;--fg:#000;--muted:#333;--line:#999;--panel:#fff;--accent:#000;--pass:#000;
--fail:#000;--warn:#000;--infra:#777;--ci:#000;--zero:#000;--bar:#bbb}
section{break-inside:avoid}details{display:block}details>summary{list-style:none}a{color:inherit;text-decoration:none}
.dot.fail{fill:#fff!important}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{padding:16px 24px;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0}h2{font-size:16px;margin:0 0 8px}
.sub,.note{color:var(--muted);margin:4px 0 8px}
main{padding:8px 24px 24px;max-width:1280px}
section{margin:16px 0 24px}
table{border-collapse:collapse;width:100%}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
th{font-weight:600;color:var(--muted);font-size:12px}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.chart{padding:0 2px}
.num{font-variant-numeric:tabular-nums}
.ci{color:var(--muted);font-size:12px;white-space:nowrap}
.why{color:var(--muted);font-size:12px;display:inline-block;min-width:16ch;white-space:normal;overflow-wrap:anywhere}
.badge{display:inline-block;white-space:nowrap;padding:1px 8px;border-radius:10px;font-weight:600;font-size:12px;border:1px solid currentColor}
.good{color:var(--pass)}.bad{color:var(--fail)}.warn{color:var(--warn)}.neutral{color:var(--muted)}
.verdict{font-size:28px;font-weight:700;letter-spacing:.02em}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}.kv dt{color:var(--muted)}.kv dd{margin:0}
.cards{display:flex;flex-wrap:wrap;gap:12px}.card{border:1px solid var(--line);border-radius:6px;padding:8px 12px;background:var(--panel);min-width:160px}
.card .big{font-size:22px;font-weight:700}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--panel);border:1px solid var(--line);padding:8px;overflow:auto;max-height:320px;white-space:pre-wrap}
a{color:var(--accent)}
svg text{fill:var(--muted);font-size:10px;font-family:inherit}
.axis{stroke:var(--line)}.zero{stroke:var(--zero);stroke-dasharray:3 3}
.ci-line{stroke:var(--ci);stroke-width:2}.est{fill:var(--ci)}
.est.good,.ci-line.good{fill:var(--pass);stroke:var(--pass)}.est.bad,.ci-line.bad{fill:var(--fail);stroke:var(--fail)}
.bar{fill:var(--bar)}.bar-ci{stroke:var(--fg);stroke-width:1}
.dot.pass{fill:var(--pass)}.dot.fail{fill:var(--bg);stroke:var(--fail);stroke-width:1.5}.dot.infra{fill:var(--infra)}
details table{table-layout:fixed}
.wide{overflow-x:auto}.forest th[scope=row]{white-space:nowrap}
.chunk{content-visibility:auto;contain-intrinsic-size:auto 2400px}.counts{table-layout:fixed}
@media print{.chunk{content-visibility:visible}}
.counts td[style]{background:linear-gradient(90deg,var(--pass) var(--p),var(--line) var(--p)) no-repeat left bottom/100% 3px}
.counts summary{cursor:pointer;color:var(--muted);font-size:12px}.counts details{font-size:12px}
.counts details a{color:var(--fail)}.counts details .infra{color:var(--infra)}
.legend{display:flex;gap:16px;color:var(--muted);font-size:12px;align-items:center}
`;
