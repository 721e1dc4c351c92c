// The CLI as `npm run build` ships it: bundled with the packages it imports into dist/bundle/
// (scripts/bundle.mjs says why and what stays outside), and run from there by bin/gatehouse.js.
// `npm test` builds dist/ from the sources first; run alone, this file needs `npm run build`.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { BUNDLE_EXTERNAL } from '../../scripts/bundle.mjs'
import { untilValue } from '../helpers/until.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..')
const BUNDLE = join(ROOT, 'dist/bundle')
const ENTRY = join(BUNDLE, 'gatehouse.js')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> }

const bundleFiles = () => {
  assert.ok(existsSync(ENTRY), `${relative(ROOT, ENTRY)} is missing: run npm run build`)
  return readdirSync(BUNDLE).filter((f) => f.endsWith('.js')).map((f) => join(BUNDLE, f))
}

test('no module of the bundle waits in a lazy initialiser (dynamic imports are chunks of their own)', () => {
  // esbuild wraps every module reachable from a dynamic import in one when the bundle is not
  // split; that cost a served page 17 % more CPU (scripts/bundle.mjs).
  for (const file of bundleFiles()) assert.equal(readFileSync(file, 'utf8').includes('__esm({'), false, relative(ROOT, file))
})

test('every file a source module reads relative to itself is found from the bundle too', () => {
  const sources = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : []
  })
  const read: string[] = []
  for (const file of sources(join(ROOT, 'src'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/new URL\(\s*[`'"]([^`'"]+)[`'"]\s*,\s*import\.meta\.url\s*\)/g)) {
      // A template (`./packs/${file}`) names a folder: the part before its first placeholder.
      const path = m[1].split('${')[0]
      read.push(path)
      const fromSource = new URL(path, pathToFileURL(file))
      const fromBundle = new URL(path, pathToFileURL(ENTRY))
      assert.equal(existsSync(fromBundle), existsSync(fromSource), `${relative(ROOT, file)} reads ${m[1]}: ${fileURLToPath(fromBundle)} ${existsSync(fromBundle) ? 'exists' : 'is missing'} from the bundle`)
    }
  }
  // The paths this checks: the package's manifest, the configuration doc, the starter packs.
  for (const path of ['../../package.json', '../../docs/configuration.md', './packs/']) assert.ok(read.includes(path), path)
})

// A loader hook (run in its own thread) reports every ES module file as it loads.
const REPORT_LOADS = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register('data:text/javascript,' + encodeURIComponent('export async function load(url, context, next) { if (url.startsWith("file:")) process.stderr.write("loaded " + url + "\\\\n"); return next(url, context) }'))`)}`
const loadedFiles = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('loaded ')).map((l) => relative(ROOT, fileURLToPath(l.slice('loaded '.length))))
/**
 * Files of ours outside the launcher and the bundle, and files of the packages the bundle holds
 * (our dependencies not left outside on purpose). What those outside packages load in turn is
 * theirs.
 */
const bundled = Object.keys(pkg.dependencies).filter((p) => !BUNDLE_EXTERNAL.includes(p))
const outsideTheBundle = (files: readonly string[]) => files.filter((f) => f.startsWith('node_modules/')
  ? bundled.some((p) => f.startsWith(`node_modules/${p}/`))
  : f !== 'bin/gatehouse.js' && !f.startsWith('dist/bundle/'))

test('bin/gatehouse.js runs the bundle: of the repository it loads only the launcher, the bundle and packages left outside', async () => {
  const version = spawnSync(process.execPath, ['--import', REPORT_LOADS, join(ROOT, 'bin/gatehouse.js'), '--version'], { encoding: 'utf8', env: { ...process.env, GATEHOUSE_RUN_SOURCE: '0' } })
  assert.equal(version.status, 0, version.stderr)
  assert.equal(version.stdout.trim(), pkg.version)
  assert.ok(loadedFiles(version.stderr).includes('dist/bundle/gatehouse.js'), version.stderr)
  assert.deepEqual(outsideTheBundle(loadedFiles(version.stderr)), [])

  // Serving loads what start-up imports on demand (the MCP endpoint, the database driver).
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bundle-'))
  const child = spawn(process.execPath, ['--import', REPORT_LOADS, join(ROOT, 'bin/gatehouse.js'), 'serve', '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GATEHOUSE_RUN_SOURCE: '0', PLUGIN_GATEHOUSE_DATABASE_URL: `sqlite:${join(dir, 'g.db')}`, PLUGIN_GATEHOUSE_API_TOKEN: 'bundle-test-token-0123456789abcdef', PLUGIN_GATEHOUSE_LOG_LEVEL: 'warn' },
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => { out += d.toString() })
  child.stderr.on('data', (d: Buffer) => { err += d.toString() })
  const exited = new Promise((resolve) => child.on('exit', resolve))
  try {
    const base = await untilValue(() => /^Gatehouse listening on (http:\/\/\S+)$/m.exec(out)?.[1] ?? (child.exitCode !== null ? 'exited' : undefined), 'gatehouse serve listening', 60_000)
    assert.notEqual(base, 'exited', err)
    const res = await fetch(`${base}/gatehouse/v1/entries?limit=1`, { headers: { authorization: 'Bearer bundle-test-token-0123456789abcdef' } })
    assert.equal(res.status, 200)
  } finally {
    child.kill('SIGTERM')
    await exited
    rmSync(dir, { recursive: true, force: true })
  }
  assert.ok(loadedFiles(err).some((f) => f.startsWith('dist/bundle/chunk-')), err)
  assert.deepEqual(outsideTheBundle(loadedFiles(err)), [])
})
