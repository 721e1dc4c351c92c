// Types of scripts/test-groups.mjs for the TypeScript that imports it (its own test).
export declare function fileWeights(table: string): (file: string) => number
export declare function shrinkingGroups(files: readonly string[], size: number, slots: number, weight: (file: string) => number): { weight: number; files: string[] }[]
