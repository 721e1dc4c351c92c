// SQL text and the values it binds, kept together. A fragment is built where it stands in
// the text and carries its own parameters; fragments nest and join, and placeholders are
// written only when the whole statement is rendered (`renderFragment`), in text order. So the
// order fragments are built in cannot bind a value to another's placeholder, whatever the
// engine's placeholders (SQLite's `?` are positional, PostgreSQL's `$n` numbered).
// Kysely's `sql` template composes the same way; this one skips its query compiler, which
// costs more than running a page query on the hot read path. Building keeps the pieces as
// given (a template's strings and values, nothing copied); rendering walks them once.

const NONE: readonly unknown[] = Object.freeze([])
const ONE_VALUE: readonly string[] = Object.freeze(['', ''])

export class Fragment {
  /**
   * Render pass that last wrote this fragment, and the numbers its own values got there: a
   * fragment written twice in one statement binds the same values (PostgreSQL: one `$n`).
   */
  private pass = 0
  private numbers: number[] | undefined

  /**
   * `strings` around `values` (a template's), or the whole text (`raw`); with `separator`,
   * `values` are fragments joined by it.
   */
  constructor(
    private readonly strings: string | readonly string[],
    private readonly values: readonly unknown[],
    private readonly separator?: string,
  ) {}

  /** Appends the text and binds the values to `out`. */
  write(out: Rendering): void {
    const s = this.strings
    if (typeof s === 'string') {
      out.text += s
      return
    }
    const values = this.values
    if (this.separator !== undefined) {
      for (let i = 0; i < values.length; i++) {
        if (i > 0) out.text += this.separator
        ;(values[i] as Fragment).write(out)
      }
      return
    }
    const again = out.numbered && this.pass === out.pass
    if (out.numbered && !again) {
      this.pass = out.pass
      this.numbers = undefined
    }
    out.text += s[0]
    let k = 0
    for (let i = 0; i < values.length; i++) {
      const v = values[i]
      if (v instanceof Fragment) v.write(out)
      else if (!out.numbered) {
        out.bind(v)
        out.text += '?'
      } else if (again) {
        out.text += '$' + (this.numbers as number[])[k++]
      } else {
        const n = out.bind(v)
        ;(this.numbers ??= []).push(n)
        out.text += '$' + n
      }
      out.text += s[i + 1]
    }
  }
}

/**
 * `frag\`t.a = ${value}\``: each interpolated value is a parameter, a `Fragment` is spliced
 * in with its own. Text that is not a value (names, engine fragments) goes in as `raw(text)`.
 */
export const frag = (strings: TemplateStringsArray, ...values: unknown[]): Fragment => new Fragment(strings, values)

/** Text without parameters: identifiers quoted by `sqlName`, literals, engine fragments. */
export const raw = (text: string): Fragment => new Fragment(text, NONE)

export const EMPTY = raw('')

/** One parameter on its own: `param(v)` is `frag\`${v}\``. */
export const param = (value: unknown): Fragment => new Fragment(ONE_VALUE, [value])

/** The fragments with `separator` between them. */
export const join = (fragments: readonly Fragment[], separator: string): Fragment => new Fragment(ONE_VALUE, fragments, separator)

/** How an engine writes placeholders, and how it takes a boolean parameter. */
export interface Placeholders {
  /** `$1`, `$2`… (one number per distinct parameter) rather than a positional `?` per use. */
  readonly numbered: boolean
  bool(v: boolean): boolean | number
}

let passes = 0

/** A statement being written: its text so far and the values bound. */
class Rendering {
  text = ''
  readonly params: unknown[] = []
  readonly pass = ++passes
  constructor(private readonly how: Placeholders, readonly numbered = how.numbered) {}

  /** Binds a value; returns its (1-based) number. */
  bind(v: unknown): number {
    return this.params.push(typeof v === 'boolean' ? this.how.bool(v) : v)
  }
}

/** The statement's text with its placeholders, and the values they bind in order. */
export function renderFragment(f: Fragment, how: Placeholders): { text: string; params: unknown[] } {
  const out = new Rendering(how)
  f.write(out)
  return { text: out.text, params: out.params }
}
