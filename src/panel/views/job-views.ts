// The Jobs screens: every workflow with its schedule, next due time, latest run and status
// (overdue ones flagged), a workflow's detail with its run history and its pause, resume and
// delete actions, and the create form that shows each problem beside the values given.
import { html, prettyJson, when, type Html } from '../html.js'
import { csrfField, PANEL_BASE, postButton } from '../layout.js'
import type { PanelSession } from '../panel-sessions.js'
import type { ErrorDetail } from '../../kernel/errors.js'
import type { CredentialRecord } from '../../auth/credentials.js'
import type { Run, WorkflowView } from '../../jobs/workflow.js'
import { describeBoundary, type BoundaryAxis } from '../../resources/boundary-axes.js'

export interface JobFormValues {
  readonly name: string
  readonly templateKey: string
  readonly credentialId: string
  readonly cron: string
  readonly timezone: string
  /** Text of each boundary axis's field, by axis name (`sections`, `entryIds`). */
  readonly boundary: Readonly<Record<string, string>>
  readonly config: string
}

export const emptyJobForm: JobFormValues = { name: '', templateKey: 'scheduled-catalog-sync', credentialId: '', cron: '', timezone: 'UTC', boundary: {}, config: '' }

const badge = (text: string, kind = text) => html`<span class="badge ${kind}">${text}</span>`

function stateBadges(w: WorkflowView): Html {
  return html`${badge(w.status)}${w.overdue ? html` ${badge('overdue', 'fail')}` : w.isDue ? html` ${badge('due', 'warn')}` : ''}`
}

const runText = (r: Run | null) => (r ? html`${badge(r.status, r.status === 'succeeded' ? 'ok' : r.status === 'started' || r.status === 'approval_requested' ? 'queued' : 'failed')} <span class="muted">${when(r.occurrence)}</span>` : html`<span class="muted">none yet</span>`)

function boundaryText(w: WorkflowView, axes: readonly BoundaryAxis[]): string {
  return w.boundary ? describeBoundary(axes, w.boundary) : 'none'
}

function statusAction(s: PanelSession, w: WorkflowView): Html {
  const base = `${PANEL_BASE}/jobs/${w.id}`
  return w.status === 'active' ? postButton(s, `${base}/pause`, 'Pause') : postButton(s, `${base}/resume`, 'Resume')
}

export function jobsListView(s: PanelSession, workflows: readonly WorkflowView[], graceSeconds: number): Html {
  const overdue = workflows.filter((w) => w.overdue)
  return html`<h1>Jobs</h1>
    ${overdue.length > 0 ? html`<div class="flash error" role="alert" id="overdue">${overdue.length} workflow${overdue.length === 1 ? ' is' : 's are'} overdue (due for more than ${graceSeconds} s with no run started): ${overdue.map((w) => w.name).join(', ')}</div>` : ''}
    <section><div class="actions"><a href="${PANEL_BASE}/jobs/new">Create workflow</a></div>
    <table id="workflows"><thead><tr><th>Workflow</th><th>Schedule</th><th>Next due</th><th>Latest run</th><th>Status</th><th></th></tr></thead><tbody>
    ${workflows.map((w) => html`<tr data-workflow="${w.id}"><td><a href="${PANEL_BASE}/jobs/${w.id}">${w.name}</a><br><span class="muted">${w.templateKey} · runs as <code>${w.credentialId}</code></span></td>
      <td><code>${w.schedule.cron}</code><br><span class="muted">${w.schedule.timezone}</span></td><td>${when(w.nextDueAt)}</td><td>${runText(w.latestRun)}</td>
      <td>${stateBadges(w)}</td><td>${statusAction(s, w)}</td></tr>`)}
    </tbody></table>${workflows.length === 0 ? html`<p class="muted">No workflows yet.</p>` : ''}</section>`
}

export function jobDetailView(s: PanelSession, w: WorkflowView, runs: readonly Run[], axes: readonly BoundaryAxis[]): Html {
  return html`<h1>${w.name}</h1><section><dl class="kv">
    <dt>Id</dt><dd><code>${w.id}</code></dd><dt>Status</dt><dd>${stateBadges(w)}</dd><dt>Template</dt><dd>${w.templateKey}</dd>
    <dt>Runs as</dt><dd><a href="${PANEL_BASE}/accounts/${w.credentialId}"><code>${w.credentialId}</code></a></dd>
    <dt>Schedule</dt><dd><code>${w.schedule.cron}</code> in ${w.schedule.timezone}</dd><dt>Next due</dt><dd>${when(w.nextDueAt)}</dd>
    <dt>Read boundary</dt><dd>${boundaryText(w, axes)}</dd><dt>Config</dt><dd><pre>${prettyJson(w.config)}</pre></dd>
    <dt>Created</dt><dd>${when(w.createdAt)}</dd><dt>Updated</dt><dd>${when(w.updatedAt)}</dd></dl>
    <div class="actions">${statusAction(s, w)}${postButton(s, `${PANEL_BASE}/jobs/${w.id}/delete`, 'Delete', { danger: true })}</div></section>
    <section id="runs"><h2>Run history</h2>${runs.length === 0 ? html`<p class="muted">No runs yet.</p>` : html`<table>
      <thead><tr><th>Occurrence</th><th>Status</th><th>Worker</th><th>Started</th><th>Finished</th><th>Lease until</th><th>Summary</th></tr></thead><tbody>
      ${runs.map((r) => html`<tr><td>${when(r.occurrence)}<br><code>${r.id}</code></td><td>${runText(r)}</td><td>${r.workerId ?? '—'}</td><td>${when(r.startedAt)}</td>
        <td>${when(r.finishedAt)}</td><td>${when(r.leaseExpiresAt)}</td><td>${r.summary ?? ''}${r.outcomeRefs.length > 0 ? html`<br><span class="muted">${r.outcomeRefs.map((o) => `${o.type} ${o.id}`).join(', ')}</span>` : ''}</td></tr>`)}
    </tbody></table>`}</section><p><a href="${PANEL_BASE}/jobs">All jobs</a></p>`
}

export function jobFormView(s: PanelSession, credentials: readonly CredentialRecord[], axes: readonly BoundaryAxis[], v: JobFormValues, problems: readonly ErrorDetail[] = []): Html {
  const problemOf = (...params: string[]) => problems.filter((p) => params.some((x) => p.param === x || p.param.startsWith(`${x}.`)))
  const field = (label: string, name: string, params: string[], input: Html) => {
    const mine = problemOf(...params)
    return html`<label>${label} ${input}${mine.map((p) => html`<span class="fail field-error" data-field="${name}">${p.problem}</span>`)}</label>`
  }
  const input = (name: string, value: string, placeholder = '') => html`<input type="text" name="${name}" value="${value}" placeholder="${placeholder}">`
  const text = (name: 'name' | 'templateKey' | 'cron' | 'timezone', placeholder = '') => input(name, v[name], placeholder)
  return html`<h1>Create workflow</h1>
    ${problems.length > 0 ? html`<div class="flash error" role="alert"><ul>${problems.map((p) => html`<li><strong>${p.param}</strong>: ${p.problem}</li>`)}</ul></div>` : ''}
    <form method="post" action="${PANEL_BASE}/jobs">${csrfField(s)}
    <section>${field('Name', 'name', ['name'], text('name'))}
      ${field('Template key', 'templateKey', ['templateKey'], text('templateKey', 'scheduled-catalog-sync'))}
      ${field('Runs as', 'credentialId', ['credentialId'], html`<select name="credentialId"><option value="">Choose a credential…</option>${credentials.map((c) => html`<option value="${c.id}"${c.id === v.credentialId ? html` selected` : ''}>${c.label} (${c.id})</option>`)}</select>`)}</section>
    <section><h2>Schedule</h2>
      ${field('Cron expression (minute hour day-of-month month day-of-week)', 'cron', ['schedule.cron', 'schedule'], text('cron', '30 2 * * *'))}
      ${field('Time zone (IANA)', 'timezone', ['schedule.timezone'], text('timezone', 'Europe/Berlin'))}</section>
    <section><h2>Read boundary</h2><p class="muted">While a run is open, the credential reads only these records; leave all empty for no boundary.</p>
      ${axes.map((a, i) => field(a.values === 'id' ? a.label : `${a.label} (${a.key}s)`, a.name, [`boundary.${a.name}`, ...(i === 0 ? ['boundary'] : [])], input(a.name, v.boundary[a.name] ?? '', a.example)))}</section>
    <section>${field('Config (a JSON object)', 'config', ['config'], html`<textarea name="config" rows="3" placeholder="{&quot;destination&quot;: &quot;warehouse&quot;}">${v.config}</textarea>`)}</section>
    <p><button type="submit">Create workflow</button> <a href="${PANEL_BASE}/jobs">Cancel</a></p></form>`
}
