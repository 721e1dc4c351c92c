// Types of scripts/bundle.mjs for the TypeScript that imports it (the bench).
export declare const BUNDLE_EXTERNAL: readonly string[]
export declare const BUNDLE_BANNER: string
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export declare const BUNDLE_OPTIONS: Record<string, any>
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export declare function loadEsbuild(): Promise<any>
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export declare function bundle(esbuild: any, opts: { entry: string; outdir: string; name: string }): Promise<void>
