// Quoting of names and literals written into SQL text, the same for reads and DDL (both
// engines use standard quoting). Declarations only allow plain names (src/resources/
// declare.ts), so quoting never changes one; it is there so no name can end the quotes.

/** A quoted identifier: `"name"`, a `"` inside doubled. */
export const sqlName = (name: string) => `"${name.replace(/"/g, '""')}"`

/** A string as an SQL literal: `'text'`, a `'` inside doubled. */
export const sqlLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`
