/**
 * The stylesheet of the console and the report pages, served as a same-origin file: the pages' CSP
 * (default-src 'self') forbids inline styles. Text colours keep at least 4.5:1 contrast on their
 * backgrounds (WCAG AA).
 */
export const APP_CSS = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2937; background: #f3f4f6; }
a { color: #1d4ed8; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: .5rem; background: #fff; padding: .4rem .8rem; z-index: 10; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.top { display: flex; align-items: center; gap: 1.5rem; background: #111827; color: #f9fafb; padding: .6rem 1.5rem; flex-wrap: wrap; }
header.top a.brand { color: #f9fafb; font-weight: 700; text-decoration: none; }
header.top nav a { color: #e5e7eb; margin-right: 1rem; text-decoration: none; padding: .2rem 0; }
header.top nav a[aria-current="page"] { color: #fff; border-bottom: 2px solid #fbbf24; }
header.top .who { margin-left: auto; color: #e5e7eb; }
main { max-width: 78rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
h1 { font-size: 1.5rem; margin: .6rem 0; }
h2 { font-size: 1.2rem; margin: 1.4rem 0 .5rem; }
h3 { font-size: 1.05rem; margin: .6rem 0 .3rem; }
section.card, article.card, .panel { background: #fff; border: 1px solid #d1d5db; border-radius: 8px; padding: .8rem 1rem; margin: .8rem 0; }
.muted { color: #4b5563; }
.why { color: #7c2d12; background: #fff7ed; border-left: 4px solid #c2410c; padding: .3rem .6rem; }
.note { color: #374151; font-style: italic; }
.formula { font-size: 13px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
pre { background: #111827; color: #f3f4f6; padding: .6rem; border-radius: 6px; overflow: auto; max-height: 28rem; white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; width: 100%; font-size: 14px; background: #fff; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid #e5e7eb; }
th { background: #f9fafb; font-weight: 600; }
.scroll { overflow-x: auto; }
.url { word-break: break-all; }
label { font-weight: 600; margin-right: .8rem; }
input, select, textarea { font: inherit; padding: .3rem .45rem; border: 1px solid #6b7280; border-radius: 4px; background: #fff; color: #111827; }
textarea { width: 100%; min-height: 6rem; }
button { font: inherit; background: #1d4ed8; color: #fff; border: 0; border-radius: 4px; padding: .35rem .9rem; cursor: pointer; }
button.secondary { background: #e5e7eb; color: #111827; border: 1px solid #9ca3af; }
button.danger { background: #b91c1c; }
button[disabled] { background: #9ca3af; color: #111827; cursor: default; }
.filters { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: center; margin: .5rem 0; }
.filters label { font-weight: 600; }
.field { margin: .5rem 0; }
.field label { display: block; }
.field .hint { display: block; color: #4b5563; font-size: 13px; }
.badge { display: inline-block; font-size: 12px; font-weight: 700; border-radius: 999px; padding: 0 .55rem; background: #e5e7eb; color: #111827; text-transform: lowercase; }
.badge-ok, .badge-succeeded, .badge-low, .badge-notice { background: #dcfce7; color: #14532d; }
.badge-error, .badge-failed, .badge-high { background: #fee2e2; color: #7f1d1d; }
.badge-warning, .badge-unavailable, .badge-medium, .badge-queued, .badge-running { background: #fef3c7; color: #713f12; }
.gauges { display: flex; gap: 1.5rem; flex-wrap: wrap; }
figure { margin: 0; }
figure.gauge { text-align: center; }
figure.gauge figcaption { font-weight: 700; }
figure.chart { background: #fff; border: 1px solid #d1d5db; border-radius: 8px; padding: .5rem; max-width: 48rem; }
figure.chart figcaption { font-size: 14px; }
.legend { margin-left: 1rem; }
dl.stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .5rem; margin: .8rem 0; }
dl.stats div { background: #fff; border: 1px solid #d1d5db; border-radius: 6px; padding: .4rem .6rem; }
dl.stats dt { font-size: 13px; color: #4b5563; }
dl.stats dd { margin: 0; font-weight: 700; font-size: 1.1rem; }
dl.values { margin: .2rem 0; }
dl.values > div { display: grid; grid-template-columns: minmax(8rem, 14rem) 1fr; gap: .5rem; border-bottom: 1px dotted #e5e7eb; }
dl.values dt { color: #4b5563; }
dl.values dd { margin: 0; }
ul.values, ul.checks { margin: .2rem 0; padding-left: 1.2rem; }
img.artifact { max-width: 100%; height: auto; border: 1px solid #d1d5db; border-radius: 6px; background: #fff; }
.grid2 { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; }
@media (max-width: 60rem) { .grid2 { grid-template-columns: 1fr; } }
[hidden] { display: none !important; }
#status { min-height: 1.5rem; }
#status.error { color: #991b1b; }
.token-once { font-family: ui-monospace, monospace; width: 100%; }
tr.selected td { background: #eff6ff; }
`
