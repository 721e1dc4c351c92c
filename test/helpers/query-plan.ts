// Reading PostgreSQL's JSON plans (`EXPLAIN (FORMAT JSON)`) in tests.

/** Every node of a JSON plan, the node itself first. */
export function planNodes(node: Record<string, unknown>, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  out.push(node)
  for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) planNodes(child, out)
  return out
}
