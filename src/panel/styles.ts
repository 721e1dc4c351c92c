// The panel's stylesheet, served from /gatehouse/cp/assets/panel.css: no CDN, no web
// fonts, no script, so the panel works offline and under a strict Content-Security-Policy
// (which also forbids inline styles: every colour, the charts' included, is a class here).
// Laid out for 390 px phones up: tables marked `cards` become one card per row on narrow
// screens (labelled from each cell's data-label), so row actions stay on screen; anything else
// wide scrolls inside its section (test/panel/layout-browser.test.ts measures every screen).
export const PANEL_CSS = `
:root { --fg: #1d2330; --muted: #5b6475; --line: #d8dde6; --bg: #f6f7f9; --ok: #19703a; --warn: #8a5a00; --bad: #a4161a; --accent: #2346a0; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
header { background: #16203a; color: #fff; padding: .5rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: .4rem 1.2rem; }
header .brand { font-weight: 700; letter-spacing: .02em; color: #fff; text-decoration: none; }
header .who { order: 1; margin-left: auto; display: flex; gap: .6rem; align-items: center; }
header .who .muted { color: #b6c0dd; }
header .who button { background: transparent; border-color: #8d9bc7; padding: .2rem .6rem; }
header nav { order: 2; flex-basis: 100%; display: flex; flex-wrap: wrap; gap: .15rem .9rem; }
header nav a { color: #cfd8ff; text-decoration: none; padding: .15rem 0; }
header nav a[aria-current="page"] { color: #fff; font-weight: 600; border-bottom: 2px solid #fff; }
header form { margin: 0; }
@media (min-width: 960px) { header nav { order: 1; flex: 1; flex-basis: auto; } header .who { order: 2; margin-left: 0; } }
main { max-width: 1100px; margin: 1rem auto; padding: 0 .7rem; }
@media (min-width: 700px) { main { margin-top: 1.2rem; padding: 0 1.2rem; } }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .8rem .9rem; margin-bottom: 1rem; min-width: 0; }
section > :first-child { margin-top: 0; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin: 0 0 .6rem; }
h3 { font-size: 1rem; margin: .8rem 0 .4rem; }
.section-head { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline; gap: .4rem 1rem; margin-bottom: .4rem; }
.section-head h2 { margin: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .8rem; text-transform: uppercase; color: var(--muted); }
/* An unbreakable id or URL in a cell may break anywhere rather than widen its table past the page. */
td { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; }
/* Whatever else is wide (a table of many columns, a long line) scrolls inside its section, never the page. */
main > section, main > form > section { overflow-x: auto; }
@media (max-width: 700px) {
  table.cards thead { display: none; }
  table.cards, table.cards tbody, table.cards tr, table.cards td { display: block; width: 100%; }
  table.cards tr { border: 1px solid var(--line); border-radius: 6px; padding: .35rem .6rem; margin-bottom: .6rem; }
  table.cards td { border: 0; padding: .15rem 0; display: grid; grid-template-columns: 7.5rem minmax(0, 1fr); gap: .6rem; overflow-wrap: anywhere; }
  table.cards td::before { content: attr(data-label); color: var(--muted); font-size: .8rem; text-transform: uppercase; padding-top: .15rem; }
}
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { overflow-wrap: anywhere; }
pre { background: #f0f2f6; padding: .6rem; overflow: auto; max-height: 20rem; white-space: pre-wrap; word-break: break-all; }
.badge { display: inline-block; padding: .05rem .45rem; border-radius: 999px; font-size: .8rem; font-weight: 600; background: #e8ebf1; white-space: nowrap; }
.ok, .ready, .active, .delivered, .risk-low { color: var(--ok); }
.warn, .degraded, .paused, .queued, .retrying, .risk-medium { color: var(--warn); }
.fail, .not_ready, .revoked, .failed, .error, .critical, .risk-high, .risk-critical { color: var(--bad); }
.flash { padding: .6rem .9rem; border-radius: 6px; margin-bottom: 1rem; border: 1px solid; overflow-wrap: anywhere; }
.flash p { margin: .2rem 0; }
.flash.ok { background: #e9f6ee; border-color: #9fd2b1; color: var(--fg); } .flash.error { background: #fbeaea; border-color: #e2a3a5; color: var(--fg); }
.token { font-size: 1rem; background: #fff8dc; border: 2px dashed var(--warn); padding: .8rem; word-break: break-all; user-select: all; }
.muted, .masked { color: var(--muted); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 14rem), 1fr)); gap: .4rem 1rem; }
.kv { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .25rem 1rem; margin: 0; }
.kv dt { color: var(--muted); } .kv dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 560px) { .kv { grid-template-columns: minmax(0, 1fr); gap: 0; } .kv dt { font-size: .8rem; text-transform: uppercase; margin-top: .45rem; } }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 .8rem; padding: .5rem .8rem; min-width: 0; }
legend { font-weight: 600; padding: 0 .3rem; }
label { display: block; margin: .4rem 0 .2rem; }
label.check { display: flex; gap: .4rem; align-items: baseline; }
input[type=text], input[type=password], textarea, select { display: block; width: 100%; max-width: 32rem; margin-top: .2rem; padding: .4rem; border: 1px solid #b9c0cc; border-radius: 4px; font: inherit; background: #fff; }
label.check input { display: inline; width: auto; }
[aria-invalid="true"] { border-color: var(--bad); outline: 1px solid var(--bad); }
.field-error { color: var(--bad); margin: .1rem 0 .6rem; font-size: .92rem; }
.hint { display: block; color: var(--muted); font-size: .85rem; margin-bottom: .3rem; }
button { font: inherit; padding: .35rem .8rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); } button.danger { background: var(--bad); border-color: var(--bad); }
button[disabled] { opacity: .5; cursor: not-allowed; }
.actions { display: flex; gap: .5rem .9rem; flex-wrap: wrap; align-items: center; } .actions form { margin: 0; }
.login { max-width: 24rem; margin: 4rem auto; }
.quick { display: flex; flex-wrap: wrap; gap: .4rem 1rem; margin-bottom: .6rem; }
.quick a[aria-current] { font-weight: 600; }
.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 12rem), 1fr)); gap: 0 1rem; align-items: end; }
.filters .actions { margin: .4rem 0 .2rem; }
.ranges { display: flex; flex-wrap: wrap; gap: .3rem; }
.ranges a { padding: .1rem .6rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none; font-size: .9rem; }
.ranges a[aria-current] { background: var(--accent); border-color: var(--accent); color: #fff; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 24rem), 1fr)); gap: 1rem 1.4rem; }
.chart { margin: 0; min-width: 0; }
.chart figcaption { margin-bottom: .3rem; }
.chart .plot { display: grid; grid-template-columns: auto minmax(0, 1fr); column-gap: .4rem; }
.chart .y { display: flex; flex-direction: column; justify-content: space-between; font-size: .75rem; color: var(--muted); text-align: right; height: 8.5rem; }
.chart svg { display: block; width: 100%; height: 8.5rem; background: #fbfcfe; border-left: 1px solid #b9c0cc; border-bottom: 1px solid #b9c0cc; }
.chart .x { display: flex; justify-content: space-between; font-size: .75rem; color: var(--muted); }
.chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .line { fill: none; stroke-width: 2; }
.chart rect.s-ok, .swatch.s-ok { fill: #3f9d61; background: #3f9d61; }
.chart rect.s-warn, .swatch.s-warn { fill: #d39b2a; background: #d39b2a; }
.chart rect.s-bad, .swatch.s-bad { fill: #c8383c; background: #c8383c; }
.chart rect.s-accent, .swatch.s-accent { fill: var(--accent); background: var(--accent); }
.chart .line.s-ok { stroke: #3f9d61; } .chart .line.s-warn { stroke: #d39b2a; } .chart .line.s-bad { stroke: #c8383c; } .chart .line.s-accent { stroke: var(--accent); }
.chart .hit { fill: transparent; } .chart .hit:hover { fill: rgba(35, 70, 160, .1); }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: .2rem .9rem; padding: 0; margin: .3rem 0; font-size: .85rem; }
.swatch { display: inline-block; width: .7rem; height: .7rem; border-radius: 2px; margin-right: .3rem; }
.chart details { font-size: .85rem; }
.attempts { list-style: none; padding: 0; margin: 0; }
.attempt { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .7rem; margin-bottom: .6rem; }
.attempt-head { display: flex; flex-wrap: wrap; gap: .2rem .8rem; align-items: baseline; }
.kv.headers { font-size: .9rem; }
.thresholds { margin: 0; padding-left: 1.1rem; }
.incident h2 { display: flex; flex-wrap: wrap; gap: .4rem; align-items: baseline; }
.problems { padding-left: 1.2rem; }
`

export const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#16203a"/><path d="M4 13V6l4-3 4 3v7H9.5V9h-3v4z" fill="#fff"/></svg>'
