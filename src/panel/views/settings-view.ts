// The Settings screen: read-only, because settings live in the environment (real values belong
// there, not in a database a panel writes): each one's effective value and its source.
import { html, type Html } from '../html.js'
import { PANEL_BASE } from '../layout.js'
import type { SettingEntry } from '../setting-entries.js'
import { cell } from './format.js'

const SOURCE_TEXT = { 'command line': 'command line (--host, --port)', environment: 'environment', '.env': '.env file', default: 'default' } as const

export function settingsView(entries: readonly SettingEntry[], warnings: readonly string[]): Html {
  return html`<h1>Settings</h1>
    <section id="settings"><p class="muted">What this process runs with. A value comes from the command's option (<code>--host</code>,
    <code>--port</code>), else an environment variable, else <code>.env</code> in the working directory, else the default; change it there and restart. Secrets are never shown.
    Every setting is described in <a href="${PANEL_BASE}/settings/configuration.md">docs/configuration.md</a>.</p>
    ${warnings.length > 0 ? html`<ul class="problems warn">${warnings.map((w) => html`<li>${w}</li>`)}</ul>` : ''}
    <table class="cards"><thead><tr><th>Setting</th><th>Value</th><th>Source</th></tr></thead><tbody>
    ${entries.map((e) => html`<tr id="${e.name}">${cell('Setting', html`<code>${e.name}</code>`)}${cell('Value', e.masked ? html`<span class="masked">${e.value}</span>` : html`<code>${e.value}</code>`)}${cell('Source', SOURCE_TEXT[e.source])}</tr>`)}
    </tbody></table></section>`
}
