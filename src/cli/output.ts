// Printing for the CLI: aligned tables for people, JSON for scripts (`--json`).

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n')
}

/** Prints rows under a header, each column as wide as its widest cell. */
export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd()
  process.stdout.write([line(headers), ...rows.map(line)].join('\n') + '\n')
}

/** A token just issued: printed once, since only its digest is kept. */
export function printNewToken(token: string): void {
  process.stdout.write(`token:     ${token}\n(shown once: store it now; only its digest is kept)\n`)
}

export const formatCount = (n: number) => n.toLocaleString('en-US')

export const formatSeconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`
