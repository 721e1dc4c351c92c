// Names a declaration hands to the store and the URLs must be plain. The table and its
// columns are written into DDL and reads (quoted, src/store/sql-quote.ts), the type into
// paths and the change feed's type into SQL literals: quoting would make any text safe, but a
// name with quotes, spaces or punctuation would also turn up in index names, docs and URLs.
// So such a name is refused when the family is declared, naming it, not found later by a
// failing migration.
/** Letters, digits and `_`, not starting with a digit: `global_sets`, `percentOff`. */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/i
/** A path segment: letters, digits, `-` and `_`, starting with a letter: `global-sets`. */
const TYPE_NAME = /^[a-z][a-z0-9_-]*$/i

const IDENTIFIER_RULE = 'letters, digits and _, not starting with a digit'

/** The names of a declaration (`ResourceDeclaration`, declare.ts) this file checks. */
export interface DeclaredNames {
  readonly type: string
  readonly changeType: string
  readonly table: string
  readonly columns: Readonly<Record<string, unknown>>
}

export function checkDeclaredNames(d: DeclaredNames): void {
  if (typeof d.type !== 'string' || !TYPE_NAME.test(d.type)) {
    throw new Error(`resource type ${JSON.stringify(d.type)} is not a plain name (letters, digits, - and _, starting with a letter)`)
  }
  const plain = (what: string, name: string) => {
    if (typeof name !== 'string' || !IDENTIFIER.test(name)) throw new Error(`${d.type}: ${what} ${JSON.stringify(name)} is not a plain identifier (${IDENTIFIER_RULE})`)
  }
  plain('changeType', d.changeType)
  plain('table', d.table)
  for (const name of Object.keys(d.columns)) plain('column', name)
}
