// `gatehouse start` (and `npm start`): the first-run path. Migrates, loads demo data into an
// empty store, makes sure there is a demo machine credential with every read scope, an admin
// API token and a control-panel admin, prints their secrets once, then serves. Markers in the
// meta table remember that the secrets were shown, so a restart never prints (or mints) new ones.
import { randomBytes } from 'node:crypto'
import { spawn } from 'node:child_process'
import { Option, type Command } from 'commander'
import type { Settings } from '../kernel/settings.js'
import type { CredentialService } from '../auth/credentials.js'
import type { Db } from '../store/database.js'
import { createAdmin, listAdmins } from '../auth/admin-accounts.js'
import { getMeta, setMeta } from '../store/meta.js'
import { seedDemo } from '../loaders/demo/demo-data.js'
import { BASE_PATH } from '../kernel/machine-route.js'
import { ADMIN_BASE_PATH } from '../api/admin/admin-route.js'
import type { AdminTokenService } from '../auth/admin-tokens.js'
import { operator } from './operator.js'
import { applyListenOptions, ensurePortFree, portOption, printListening, serve } from './serve.js'
import { loadCliSettings, withServices } from './context.js'
import { createProgress } from './progress.js'
import { formatCount } from './output.js'

const CREDENTIAL_MARKER = 'start.demo_credential'
const ADMIN_MARKER = 'start.demo_admin'
const ADMIN_TOKEN_MARKER = 'start.admin_token'
export const DEMO_ADMIN_USERNAME = 'admin'

export function registerStart(program: Command): void {
  program.command('start')
    .description('first run: migrate, load demo data into an empty store, create a demo token and admin login, then serve')
    .option('--no-demo', 'do not load demo data, even into an empty store')
    .option('--host <host>', 'listen address (PLUGIN_GATEHOUSE_HOST, default 127.0.0.1)')
    .option('--port <port>', 'listen port (PLUGIN_GATEHOUSE_PORT, default 8080)', portOption)
    .addOption(new Option('--setup-only', 'run the first-run steps and exit (start runs them in a child process)').hideHelp())
    .action(async (opts: { demo: boolean; host?: string; port?: number; setupOnly?: boolean }) => {
      applyListenOptions(opts)
      const settings = loadCliSettings()
      if (opts.setupOnly) return setUp(settings, opts.demo)
      await ensurePortFree(settings, { portFromOption: opts.port !== undefined })
      // The first-run steps (migrations, demo data, secrets) run in a child process: their
      // garbage (the seeding above all) would otherwise stay resident in the serving process,
      // whose heap and malloc arenas do not give it back (about 15 MB of an idle server).
      const code = await runChild(['start', '--setup-only', ...(opts.demo ? [] : ['--no-demo'])])
      if (code !== 0) return void (process.exitCode = code ?? 1)
      const server = await serve(settings, { portFromOption: opts.port !== undefined, logListening: false })
      printListening(server.url)
      await server.closed
    })
}

/** Migrates, loads demo data into an empty store, makes sure of the demo secrets; prints what it did. */
async function setUp(settings: Settings, demo: boolean): Promise<void> {
  const notes = await withServices(async ({ services, database, migrations, schemaSteps }) => {
    const applied = migrations.filter((m) => m.status === 'applied').length
    const steps = schemaSteps.length > 0 ? `, ${schemaSteps.length} schema step(s) applied` : ''
    process.stdout.write(`Database ${redactUrl(settings.databaseUrl)}: ${applied > 0 ? `${applied} migration(s) applied` : 'up to date'}${steps}\n`)
    if (demo && (await services.store.isEmpty())) {
      const progress = createProgress('Loading demo data', { total: 0, estimated: true })
      const result = await seedDemo(services.store, { scale: 1, onProgress: (d, t) => progress.update(d, t) })
      progress.finish(`${formatCount(result.total)} records`)
    }
    const lines: string[] = []
    await ensureDemoCredential(services.credentials, services.scopes.readScopes, database.db, lines, settings.baseUrl)
    await ensureAdminToken(services.adminTokens, database.db, lines, settings.baseUrl)
    await ensureAdmin(database.db, lines)
    return lines
  }, { settings })
  process.stdout.write('\n' + notes.join('\n') + '\n\n')
}

/** Runs this CLI again (same launcher, flags and environment) with `args`; resolves with its exit code. */
function runChild(args: readonly string[]): Promise<number | null> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...args], { stdio: 'inherit' })
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)))
}

async function ensureDemoCredential(credentials: CredentialService, readScopes: readonly string[], db: Db, lines: string[], baseUrl: string): Promise<void> {
  const existing = await getMeta(db, CREDENTIAL_MARKER)
  if (existing) {
    lines.push(
      `Demo machine credential: ${existing} (its token was shown on the first run and is not stored).`,
      `  New token for it:   npx gatehouse credentials rotate ${existing}`,
      `  Another credential: npx gatehouse credentials create --label NAME --scopes products:read,entries:read`,
    )
    return
  }
  const { credential, token } = await credentials.create({ label: 'Demo token (all read scopes)', scopes: readScopes }, operator())
  await setMeta(db, CREDENTIAL_MARKER, credential.id)
  lines.push(
    `Machine token for ${credential.id}, every read scope (shown once; keep it now):`,
    `  ${token}`,
    `  Try: curl -H "Authorization: Bearer ${token}" ${baseUrl}${BASE_PATH}/auth/whoami`,
  )
}

async function ensureAdminToken(adminTokens: AdminTokenService, db: Db, lines: string[], baseUrl: string): Promise<void> {
  const marker = await getMeta(db, ADMIN_TOKEN_MARKER)
  if (marker) {
    lines.push(
      `Admin API token: ${marker} (shown on the first run; only its digest is stored).`,
      '  Another one: npx gatehouse admin token create --label NAME',
    )
    return
  }
  const existing = (await adminTokens.list()).filter((t) => t.status === 'active')
  if (existing.length > 0) {
    await setMeta(db, ADMIN_TOKEN_MARKER, existing[0].id)
    lines.push(`Admin API tokens already exist (${existing.map((t) => t.id).join(', ')}); none was created.`)
    return
  }
  const { adminToken, token } = await adminTokens.create('First-run admin token', operator())
  await setMeta(db, ADMIN_TOKEN_MARKER, adminToken.id)
  lines.push(
    `Admin API token ${adminToken.id} (shown once; keep it now):`,
    `  ${token}`,
    `  Try: curl -H "Authorization: Bearer ${token}" ${baseUrl}${ADMIN_BASE_PATH}/credentials`,
  )
}

async function ensureAdmin(db: Db, lines: string[]): Promise<void> {
  const marker = await getMeta(db, ADMIN_MARKER)
  if (marker) {
    lines.push(
      `Admin login: ${marker} (its password was shown on the first run).`,
      `  New password: npx gatehouse admin set-password --username ${marker}`,
    )
    return
  }
  const admins = await listAdmins(db)
  if (admins.length > 0) {
    await setMeta(db, ADMIN_MARKER, admins[0].username)
    lines.push(`Admin logins already exist (${admins.map((a) => a.username).join(', ')}); none was created.`)
    return
  }
  const password = randomBytes(12).toString('base64url')
  await createAdmin(db, DEMO_ADMIN_USERNAME, password)
  await setMeta(db, ADMIN_MARKER, DEMO_ADMIN_USERNAME)
  lines.push(
    'Control-panel admin login (shown once; keep it now):',
    `  username: ${DEMO_ADMIN_USERNAME}`,
    `  password: ${password}`,
  )
}

/** The database URL without a password, for printing. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]+):[^@]*@/, '$1:***@')
}
