// Types of scripts/test-bundle.mjs for the TypeScript that imports it (its own test).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export declare function bundleTests(esbuild: any, opts: { root: string; files: readonly string[]; outdir: string }): Promise<void>
export declare function sourcePath(file: string): string
