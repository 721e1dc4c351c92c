// What a `filter` term is once parsed: a test on one document path, which the store turns into
// SQL and the providers evaluate in JavaScript. Both read it from here.

/** A document path test: `arrayAt` splits the path where an array's elements are tested. */
export interface PathTest {
  readonly source: 'doc' | 'sensitive'
  readonly path: readonly string[]
  readonly arrayAt?: number
  /** Free-form values: the path holds when its value matches, or any element of it does. */
  readonly orElements?: boolean
  readonly op: 'exact' | 'like'
  /** exact: the JSON text or plain text of the value; like: a LIKE pattern (case-insensitive). */
  readonly value: string
}

/** Escapes LIKE metacharacters; `*` (when wildcards are on) becomes `%`. */
export function likePattern(text: string, { contains, wildcard }: { contains: boolean; wildcard: boolean }): string {
  let p = text.replace(/[\\%_]/g, (c) => '\\' + c)
  if (wildcard) p = p.replace(/\*/g, '%')
  return contains ? `%${p}%` : p
}
