// Option parsers shared by the commands; commander reports their errors with the option name.
import { InvalidArgumentError } from 'commander'

export function wholeNumber(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value)
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`)
    return n
  }
}

/** `a,b, c` → ['a', 'b', 'c'] */
export function commaList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter(Boolean)
}
