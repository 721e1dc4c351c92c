// The dependency rule of docs/architecture.md, checked by `npm run lint:deps` (part of `npm test`).
// Layers, lowest first; a file imports only its own layer and the layers below it.
const LAYERS = [
  ['kernel', '^src/kernel/'],
  ['resources', '^src/resources/'],
  ['store', '^src/store/'],
  ['parts', '^src/(auth|control|jobs|webhooks|providers|integration|ops|loaders|oauth)/'],
  ['operations', '^src/operations/'],
  ['surfaces', '^src/(api|panel|mcp|contract)/'],
  ['entry', '^src/(compose|cli)/'],
]

const upward = LAYERS.slice(0, -1).map(([name, path], i) => ({
  name: `no-upward-from-${name}`,
  comment: `${name} imports only itself and the layers below it`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => p) },
}))

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'no import cycle, type-only imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
