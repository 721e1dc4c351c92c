// A node:test reporter for `npm test` that prints nothing until a test process runs past the
// run's file timeout (`--test-timeout`, scripts/run-tests.mjs). node:test then ends that
// process and fails its entry; when the entry is a group, its path names only a generated
// file that the run removes, so this says which test files the group held and which of their
// tests were still running. A process whose tests all ended but which did not exit (something
// they opened is still open) has none.
import { readFileSync } from 'node:fs'
import { sourcePath } from './test-bundle.mjs'

/** The test files a group entry holds (its first line lists them), or the entry itself. */
function membersOf(entry) {
  // A group entry (scripts/run-tests.mjs names them so); other entries are test files, whose
  // own first line may be a comment too.
  if (/\/group-\d+\.test\.mjs$/.test(entry)) {
    try {
      return readFileSync(entry, 'utf8').split('\n', 1)[0].slice('// '.length).split(', ')
    } catch {
      // The entry is gone (a run ending): name it as it is.
    }
  }
  return [sourcePath(entry)]
}

export default async function* timeoutReporter(source) {
  // Tests begun and not ended (node:test passes on the processes' `dequeue` events), and tests
  // a process reported as cancelled when it was told to stop.
  const running = new Map()
  const cancelled = []
  const key = ({ file, nesting, name }) => `${file}\0${nesting}\0${name}`
  for await (const event of source) {
    if (event.type === 'test:dequeue') running.set(key(event.data), event.data)
    if (event.type === 'test:pass') running.delete(key(event.data))
    if (event.type !== 'test:fail') continue
    running.delete(key(event.data))
    const { name, nesting, file, details } = event.data
    const kind = details?.error?.failureType
    if (kind === 'cancelledByParent') cancelled.push(event.data)
    if (kind !== 'testTimeoutFailure' || nesting !== 0 || name !== file) continue
    const members = membersOf(file)
    const stem = (f) => f.replace(/\.[cm]?[jt]s$/, '')
    const inGroup = (t) => t.file !== undefined && members.some((m) => stem(sourcePath(t.file)) === stem(m))
    const cut = [...running.values(), ...cancelled].filter(inGroup)
    const lines = [`npm test: a test process ran past the file timeout (${details.error.message ?? 'timed out'}) and was ended; its files: ${members.join(', ')}`]
    lines.push(cut.length > 0
      ? `npm test: still running there: ${cut.map((t) => `${t.name} (${sourcePath(t.file)})`).join('; ')}`
      : 'npm test: none of its tests was still running: the process did not exit after its tests (something they opened is still open)')
    yield `${lines.join('\n')}\n`
  }
}
