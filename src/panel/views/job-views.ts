// The Jobs screens: every workflow with its schedule, next due time, latest run and status
// (overdue ones flagged), a workflow's detail with its run history and its pause, resume and
// delete actions, and the create form that shows each problem beside the values given.
import { html, prettyJson, when, type Html } from '../html.js'
import { csrfField, PANEL_BASE, postButton } from '../layout.js'
import type { PanelSession } from '../panel-sessions.js'
import { errorSummary, fieldError, invalidAttrs, type FieldErrors } from '../field-errors.js'
import { jobFields, JOB_TEMPLATES } from '../job-form.js'
import { cell } from './format.js'
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
  return w.status === 'active' ? postButton(s, `${base}/pause`, 'Pause', { ariaLabel: `Pause ${w.name}` }) : postButton(s, `${base}/resume`, 'Resume', { ariaLabel: `Resume ${w.name}` })
}

/** The credential a workflow runs as, by its label (its id stays visible on the workflow's page). */
export type CredentialLabels = ReadonlyMap<string, string>

const runsAs = (w: WorkflowView, labels: CredentialLabels) => html`<a href="${PANEL_BASE}/accounts/${w.credentialId}">${labels.get(w.credentialId) ?? w.credentialId}</a>`

export function jobsListView(s: PanelSession, workflows: readonly WorkflowView[], graceSeconds: number, labels: CredentialLabels): Html {
  const overdue = workflows.filter((w) => w.overdue)
  return html`<h1>Jobs</h1>
    ${overdue.length > 0 ? html`<div class="flash error" role="alert" id="overdue">${overdue.length} workflow${overdue.length === 1 ? ' is' : 's are'} overdue (due for more than ${graceSeconds} s with no run started): ${overdue.map((w) => w.name).join(', ')}</div>` : ''}
    <section><div class="actions"><a href="${PANEL_BASE}/jobs/new">Create workflow</a></div>
    <table id="workflows" class="cards"><thead><tr><th>Workflow</th><th>Schedule</th><th>Next due</th><th>Latest run</th><th>Status</th><th>Actions</th></tr></thead><tbody>
    ${workflows.map((w) => html`<tr data-workflow="${w.id}">${cell('Workflow', html`<a href="${PANEL_BASE}/jobs/${w.id}">${w.name}</a><br><span class="muted">${w.templateKey} · runs as ${runsAs(w, labels)}</span>`)}
      ${cell('Schedule', html`<code>${w.schedule.cron}</code><br><span class="muted">${w.schedule.timezone}</span>`)}${cell('Next due', when(w.nextDueAt))}${cell('Latest run', runText(w.latestRun))}
      ${cell('Status', stateBadges(w))}${cell('Actions', statusAction(s, w))}</tr>`)}
    </tbody></table>${workflows.length === 0 ? html`<p class="muted">No workflows yet.</p>` : ''}</section>`
}

export function jobDetailView(s: PanelSession, w: WorkflowView, runs: readonly Run[], axes: readonly BoundaryAxis[], labels: CredentialLabels): Html {
  return html`<h1>${w.name}</h1><section><dl class="kv">
    <dt>Id</dt><dd><code>${w.id}</code></dd><dt>Status</dt><dd>${stateBadges(w)}</dd><dt>Template</dt><dd>${w.templateKey}</dd>
    <dt>Runs as</dt><dd>${runsAs(w, labels)} <code>${w.credentialId}</code></dd>
    <dt>Schedule</dt><dd><code>${w.schedule.cron}</code> in ${w.schedule.timezone}</dd><dt>Next due</dt><dd>${when(w.nextDueAt)}</dd>
    <dt>Read boundary</dt><dd>${boundaryText(w, axes)}</dd><dt>Config</dt><dd><pre>${prettyJson(w.config)}</pre></dd>
    <dt>Created</dt><dd>${when(w.createdAt)}</dd><dt>Updated</dt><dd>${when(w.updatedAt)}</dd></dl>
    <div class="actions">${statusAction(s, w)}<a href="${PANEL_BASE}/jobs/${w.id}/confirm/delete">Delete…</a></div></section>
    <section id="runs"><h2>Run history</h2>${runs.length === 0 ? html`<p class="muted">No runs yet.</p>` : html`<table class="cards">
      <thead><tr><th>Occurrence</th><th>Status</th><th>Worker</th><th>Started</th><th>Finished</th><th>Lease until</th><th>Summary</th></tr></thead><tbody>
      ${runs.map((r) => html`<tr>${cell('Occurrence', html`${when(r.occurrence)}<br><code>${r.id}</code>`)}${cell('Status', runText(r))}${cell('Worker', r.workerId ?? '—')}${cell('Started', when(r.startedAt))}
        ${cell('Finished', when(r.finishedAt))}${cell('Lease until', when(r.leaseExpiresAt))}${cell('Summary', html`${r.summary ?? ''}${r.outcomeRefs.length > 0 ? html`<br><span class="muted">${r.outcomeRefs.map((o) => `${o.type} ${o.id}`).join(', ')}</span>` : ''}`)}</tr>`)}
    </tbody></table>`}</section><p><a href="${PANEL_BASE}/jobs">All jobs</a></p>`
}

export function jobFormView(s: PanelSession, credentials: readonly CredentialRecord[], axes: readonly BoundaryAxis[], v: JobFormValues, errors: FieldErrors = new Map()): Html {
  const fields = jobFields(axes)
  const label = (name: string, hint: string, input: Html) =>
    html`<label id="field-${name}">${fields[name]}${hint ? html` <span class="hint">${hint}</span>` : ''} ${input}</label>${fieldError(errors, name)}`
  const input = (name: string, value: string, placeholder = '', hint = '') =>
    label(name, hint, html`<input type="text" name="${name}" value="${value}" placeholder="${placeholder}"${invalidAttrs(errors, name)}>`)
  const text = (name: 'name' | 'cron' | 'timezone', placeholder = '', hint = '') => input(name, v[name], placeholder, hint)
  const selected = (on: boolean) => (on ? html` selected` : '')
  return html`<h1>Create workflow</h1>${errorSummary(errors, fields)}
    <form method="post" action="${PANEL_BASE}/jobs" novalidate>${csrfField(s)}
    <section>${text('name', 'Nightly catalog sync')}
      ${label('templateKey', 'what the workers do', html`<select name="templateKey"${invalidAttrs(errors, 'templateKey')}>${JOB_TEMPLATES.map((t) => html`<option value="${t.id}"${selected(t.id === v.templateKey)}>${t.name} (${t.id})</option>`)}</select>`)}
      ${label('credentialId', '', html`<select name="credentialId"${invalidAttrs(errors, 'credentialId')}><option value="">Choose a credential…</option>${credentials.map((c) => html`<option value="${c.id}"${selected(c.id === v.credentialId)}>${c.label} (${c.id})</option>`)}</select>`)}</section>
    <section><h2>Schedule</h2>
      ${text('cron', '30 2 * * *', 'minute hour day-of-month month day-of-week')}
      ${text('timezone', 'Europe/Berlin', 'IANA name')}</section>
    <section><h2>Read boundary</h2><p class="muted">While a run is open, the credential reads only these records; leave all empty for no boundary.</p>
      ${axes.map((a) => input(a.name, v.boundary[a.name] ?? '', a.example, a.values === 'id' ? '' : `${a.key}s`))}</section>
    <section>${label('config', 'a JSON object', html`<textarea name="config" rows="3" placeholder="{&quot;destination&quot;: &quot;warehouse&quot;}"${invalidAttrs(errors, 'config')}>${v.config}</textarea>`)}</section>
    <p class="actions"><button type="submit">Create workflow</button> <a href="${PANEL_BASE}/jobs">Cancel</a></p></form>`
}

/** Deleting takes the run history with it: asked once more, as deleting a credential is. */
export function confirmDeleteView(s: PanelSession, w: WorkflowView): Html {
  return html`<h1>Delete workflow: ${w.name}</h1><section><p>The workflow and its run history are deleted; runs in
    progress can no longer report. This cannot be undone.</p>
    <div class="actions">${postButton(s, `${PANEL_BASE}/jobs/${w.id}/delete`, 'Delete workflow', { danger: true })}<a href="${PANEL_BASE}/jobs/${w.id}">Cancel</a></div></section>`
}
