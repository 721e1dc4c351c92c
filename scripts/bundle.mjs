// Bundles an entry module and the packages it imports into one ES module (with chunks for what
// it imports dynamically), as `npm run build` does for the CLI (scripts/build.mjs) and the bench
// for its own servers, so both sides of a comparison load their code the same way.
//
// Loaded module by module, a start spends most of its CPU finding, reading and linking files:
// the CLI imports about 1,300 (Kysely and TypeBox ship 250 each). Left outside the bundle and
// loaded from node_modules as before: native addons, packages that start workers or serve files
// from their own folder, and the TypeScript tooling that loads providers written in TypeScript.
// Dynamic imports stay chunks of their own (`splitting`): without them esbuild wraps nearly every
// module in a lazy initialiser, and a served page cost 17 % more CPU.
import { rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

export const BUNDLE_EXTERNAL = [
  'better-sqlite3', 'pg-native', // native addons
  'pino', 'thread-stream', // pino's transports run in worker threads started from their own files
  'swagger-ui-dist', // the API docs page serves this package's folder
  'tsx', 'typescript', 'esbuild', // tooling: providers written in TypeScript are loaded through tsx
]

// CommonJS packages inside the bundle, and the modules that load a driver on demand, call
// require: an ES module has none of its own.
export const BUNDLE_BANNER = "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);"

/** What every bundle of ours shares: one ES module for Node 20 with chunks, source maps beside it. */
export const BUNDLE_OPTIONS = {
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: BUNDLE_EXTERNAL,
  banner: { js: BUNDLE_BANNER },
  sourcemap: 'linked',
  logLevel: 'warning',
}

/** esbuild, or undefined when it is not installed (then callers run the modules unbundled). */
export async function loadEsbuild() {
  try {
    return await import(pathToFileURL(createRequire(import.meta.url).resolve('esbuild')).href)
  } catch {
    return undefined
  }
}

/** Writes `outdir/<name>.js` (and its chunks) from `entry`, into an emptied `outdir`: chunks are named by their content, so an older build's would otherwise stay. */
export async function bundle(esbuild, { entry, outdir, name }) {
  rmSync(outdir, { recursive: true, force: true })
  await esbuild.build({ ...BUNDLE_OPTIONS, entryPoints: { [name]: entry }, outdir })
}
