// Preloaded (`--import`) by scripts/run-tests.mjs through the main test runner, which hands it
// on to every test process it starts (the runner itself does not load it): those processes, and
// the CLI and other children they start (which inherit it), run at a lower priority than the
// waiting lane's, so a waiting file's process gets a core as soon as its timer fires or its answer arrives,
// instead of a share of two cores kept busy by the other groups (a 503 bounded at 2.5 s came
// after 2.6 s that way in a clean-clone CI run).
import { setPriority } from 'node:os'

setPriority(10)
