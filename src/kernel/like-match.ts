// LIKE patterns (`%` any run, `_` one character, `\` escapes the next; see likePattern) tested
// in JavaScript, for items that are not rows (provider items, documents in memory). A regular
// expression built from the pattern backtracked exponentially on runs of wildcards: a provider
// filter of nine `*` held the event loop for seconds, every other request waiting. This walks
// the text once per wildcard restart: at most text × pattern steps, whatever the pattern.

type Token = { readonly kind: 'char'; readonly char: string } | { readonly kind: 'one' } | { readonly kind: 'any' }

const compiled = new Map<string, readonly Token[]>()

/** Whether `text` matches the LIKE `pattern`, ignoring case (both sides lowercased, as ILIKE does). */
export function likeMatches(pattern: string, text: string): boolean {
  const tokens = tokensOf(pattern)
  const chars = [...text.toLowerCase()]
  let p = 0
  let t = 0
  // The last `%` seen, and where in the text its run would end next if what follows fails.
  let star = -1
  let resume = 0
  while (t < chars.length) {
    const token = tokens[p]
    if (token !== undefined && (token.kind === 'one' || (token.kind === 'char' && token.char === chars[t]))) {
      p++
      t++
    } else if (token !== undefined && token.kind === 'any') {
      star = p++
      resume = t
    } else if (star >= 0) {
      p = star + 1
      t = ++resume
    } else {
      return false
    }
  }
  while (tokens[p]?.kind === 'any') p++
  return p === tokens.length
}

function tokensOf(pattern: string): readonly Token[] {
  let tokens = compiled.get(pattern)
  if (tokens) return tokens
  const out: Token[] = []
  // Lowercased whole, as the text is (a letter's lowercase may depend on its neighbours).
  const chars = [...pattern.toLowerCase()]
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string
    if (c === '%') {
      // A run of `%` is one.
      if (out[out.length - 1]?.kind !== 'any') out.push({ kind: 'any' })
    } else if (c === '_') {
      out.push({ kind: 'one' })
    } else {
      out.push({ kind: 'char', char: c === '\\' && i + 1 < chars.length ? (chars[++i] as string) : c })
    }
  }
  tokens = out
  // Patterns come from requests: keep the cache bounded.
  if (compiled.size >= 1000) compiled.clear()
  compiled.set(pattern, tokens)
  return tokens
}
