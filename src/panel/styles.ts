// The panel's stylesheet, served from /gatehouse/cp/assets/panel.css: no CDN, no web
// fonts, no script, so the panel works offline and under a strict Content-Security-Policy.
export const PANEL_CSS = `
:root { --fg: #1d2330; --muted: #5b6475; --line: #d8dde6; --bg: #f6f7f9; --ok: #19703a; --warn: #8a5a00; --bad: #a4161a; --accent: #2346a0; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { background: #16203a; color: #fff; padding: .6rem 1.2rem; display: flex; gap: 1.2rem; align-items: center; flex-wrap: wrap; }
header .brand { font-weight: 700; letter-spacing: .02em; }
header nav { display: flex; gap: .9rem; flex: 1; }
header a { color: #cfd8ff; text-decoration: none; }
header a[aria-current="page"] { color: #fff; font-weight: 600; border-bottom: 2px solid #fff; }
header form { margin: 0; }
main { max-width: 1100px; margin: 1.2rem auto; padding: 0 1.2rem; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .9rem 1.1rem; margin-bottom: 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.1rem; margin: 0 0 .6rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .8rem; text-transform: uppercase; color: var(--muted); }
code, pre { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: #f0f2f6; padding: .6rem; overflow: auto; max-height: 20rem; white-space: pre-wrap; word-break: break-all; }
.badge { display: inline-block; padding: .05rem .45rem; border-radius: 999px; font-size: .8rem; font-weight: 600; background: #e8ebf1; }
.ok, .ready, .active, .delivered { color: var(--ok); } .warn, .degraded, .paused, .queued { color: var(--warn); } .fail, .not_ready, .revoked, .failed, .error { color: var(--bad); }
.flash { padding: .6rem .9rem; border-radius: 6px; margin-bottom: 1rem; border: 1px solid; }
.flash.ok { background: #e9f6ee; border-color: #9fd2b1; } .flash.error { background: #fbeaea; border-color: #e2a3a5; }
.token { font-size: 1rem; background: #fff8dc; border: 2px dashed var(--warn); padding: .8rem; word-break: break-all; user-select: all; }
.muted { color: var(--muted); }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .4rem 1rem; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; } .kv dt { color: var(--muted); } .kv dd { margin: 0; }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 .8rem; padding: .5rem .8rem; }
legend { font-weight: 600; padding: 0 .3rem; }
label { display: block; margin: .3rem 0; }
label.check { display: flex; gap: .4rem; align-items: baseline; }
input[type=text], input[type=password], textarea { width: 100%; max-width: 32rem; padding: .4rem; border: 1px solid #b9c0cc; border-radius: 4px; font: inherit; }
button { font: inherit; padding: .35rem .8rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); } button.danger { background: var(--bad); border-color: var(--bad); }
button[disabled] { opacity: .5; cursor: not-allowed; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; } .actions form { margin: 0; }
.login { max-width: 24rem; margin: 4rem auto; }
`

export const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#16203a"/><path d="M4 13V6l4-3 4 3v7H9.5V9h-3v4z" fill="#fff"/></svg>'
