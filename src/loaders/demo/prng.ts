// A small seeded pseudo-random generator (mulberry32), so demo data is the same on every
// run for the same seed and scale: benchmarks and screenshots stay comparable.

export interface Random {
  /** A float in [0, 1). */
  next(): number
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number
  pick<T>(items: readonly T[]): T
  /** Picks by weight: `weighted([['live', 8], ['pending', 1]])`. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T
  chance(p: number): boolean
  /** Up to `n` distinct items, in their original order. */
  sample<T>(items: readonly T[], n: number): T[]
  hex(length: number): string
}

export function createRandom(seed: number): Random {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1))
  return {
    next,
    int,
    pick: (items) => items[Math.floor(next() * items.length)],
    weighted(choices) {
      const total = choices.reduce((s, [, w]) => s + w, 0)
      let roll = next() * total
      for (const [value, w] of choices) {
        roll -= w
        if (roll < 0) return value
      }
      return choices[choices.length - 1][0]
    },
    chance: (p) => next() < p,
    sample(items, n) {
      if (n >= items.length) return [...items]
      const picked = new Set<number>()
      while (picked.size < n) picked.add(Math.floor(next() * items.length))
      return [...picked].sort((a, b) => a - b).map((i) => items[i])
    },
    hex(length) {
      let out = ''
      while (out.length < length) out += Math.floor(next() * 0x100000000).toString(16).padStart(8, '0')
      return out.slice(0, length)
    },
  }
}
