// Bundles the test files for `npm test` (scripts/run-tests.mjs): each test file becomes an entry
// of one esbuild build, with the sources and packages they import in shared chunks.
//
// Through tsx a test process spent about 2.7 s of CPU loading the app (1,300 files, each
// resolved and transformed in tsx's loader thread); bundled it loads in about 0.4 s. Two things
// keep the bundled tests the tests of the sources:
// - every module's `import.meta.url` is its source file's URL, so paths a module reads relative
//   to itself (`../../package.json`, fixtures beside a test) resolve as they do unbundled;
// - what a test imports at run time by path (a provider written in TypeScript) is loaded from
//   the source, as the served CLI does (through tsx, src/providers/load-provider.ts).
// The dev dependencies (test tools, the MCP client, the browser driver) stay outside the
// bundle and load from node_modules as before, and so do the drivers the sources load with
// `require` (pg, ioredis): a test importing them must get the app's copy (its type parsers).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { BUNDLE_EXTERNAL, BUNDLE_OPTIONS } from './bundle.mjs'

/**
 * Each module's `import.meta.url` as the URL of the file it was bundled from: esbuild's
 * `define` turns the expression (in code, not in strings) into a name each module declares on
 * its first line (line numbers stay as in the file).
 */
const MODULE_URL = '__gatehouseModuleUrl'
const sourceUrls = {
  name: 'source-urls',
  setup(build) {
    build.onLoad({ filter: /\.(?:[cm]?ts|[cm]?js)$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8')
      if (!/import\s*\.\s*meta\s*\.\s*url/.test(text)) return undefined
      const declare = `const ${MODULE_URL} = ${JSON.stringify(pathToFileURL(args.path).href)};`
      const at = text.startsWith('#!') ? text.indexOf('\n') + 1 : 0
      const loader = /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js'
      return { contents: text.slice(0, at) + declare + text.slice(at), loader }
    })
  },
}

/** A test file's path as the repository names it: bundled (GATEHOUSE_TEST_BUNDLE_DIR), its source's. */
export function sourcePath(file) {
  const bundled = process.env.GATEHOUSE_TEST_BUNDLE_DIR
  if (bundled && file.startsWith(`${bundled}/`)) return file.slice(bundled.length + 1).replace(/\.js$/, '.ts')
  return file.replace(`${process.cwd()}/`, '')
}

/**
 * Writes `outdir/<path>.js` for each test file (`test/x/y.test.ts` → `outdir/test/x/y.test.js`)
 * and the chunks they share.
 */
export async function bundleTests(esbuild, { root, files, outdir }) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  await esbuild.build({
    ...BUNDLE_OPTIONS,
    entryPoints: files.map((f) => join(root, f)),
    outbase: root,
    outdir,
    chunkNames: 'chunks/[hash]',
    external: [...BUNDLE_EXTERNAL, 'pg', 'ioredis', ...Object.keys(pkg.devDependencies ?? {})],
    define: { 'import.meta.url': MODULE_URL },
    plugins: [sourceUrls],
  })
  // ES modules by their folder's package.json, not by Node guessing from their syntax.
  mkdirSync(outdir, { recursive: true })
  writeFileSync(join(outdir, 'package.json'), '{ "type": "module" }\n')
}
