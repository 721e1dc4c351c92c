// The starter packs' snippet files (./packs), read once each: real files, run against a live
// server by the tests, so what a pack serves is what was tested.
import { readFileSync } from 'node:fs'

const snippetText = new Map<string, string>()

/** The text of one file in ./packs. */
export function snippet(file: string): string {
  let text = snippetText.get(file)
  if (text === undefined) {
    text = readFileSync(new URL(`./packs/${file}`, import.meta.url), 'utf8')
    snippetText.set(file, text)
  }
  return text
}
