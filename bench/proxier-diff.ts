// Benchmark: render + diff for 10,000 Services × 10 endpoints against a node dump of the same size (issue target:
// render + diff ≤ 3 s and ≤ 1 GiB on the 2-core machine). The "node dump" is the expected state with one rule
// removed, as iptables-save text. Run: node --import tsx bench/proxier-diff.ts
import {performance} from 'node:perf_hooks'
import {diffIptables} from '../src/core/diff/iptables.js'
import {chainGroups, viewFromDump, viewFromSaved} from '../src/core/diff/iptables-view.js'
import {parseIptablesSave} from '../src/core/parse/iptables-save.js'
import {generateIptablesRestore} from '../src/core/proxier/iptables/generate.js'
import {savedState, serializeSave} from '../src/core/proxier/iptables/save.js'
import {benchProxierOptions, loadBenchObjects, time} from './proxier-objects.js'

const objects = loadBenchObjects()
const options = benchProxierOptions()
// The node's dump, prepared outside the timed part. Joined into one flat string, as a dump read from a file or a
// command's output is (`a + b` would leave a rope that the parser's first indexOf flattens, inside the timing).
const nodeDump = (() => {
  const text = serializeSave(generateIptablesRestore({services: objects.services, endpointSlices: objects.endpointSlices, options}).ruleset)
  const i = text.indexOf('-A KUBE-SERVICES ')
  return [text.slice(0, i), text.slice(text.indexOf('\n', i) + 1)].join('')
})()
console.log(`dump_size: ${(nodeDump.length / 1e6).toFixed(1)} MB`)

const t0 = performance.now()
const out = time('render', () => generateIptablesRestore({services: objects.services, endpointSlices: objects.endpointSlices, options}))
const expected = time('expected_save_form', () => viewFromSaved(savedState(out.ruleset)))
const dump = time('parse_dump', () => parseIptablesSave(nodeDump))
const actual = time('dump_view', () => viewFromDump(dump))
const diffs = time('diff', () => diffIptables(expected.view, actual, {chainGroups: chainGroups(out.ruleset), requiredJumps: expected.requiredJumps}))
console.log(`differences: ${diffs.length}`)
console.log(`render_plus_diff: ${(performance.now() - t0).toFixed(1)} ms (target <= 3000 ms)`)
console.log(`peak_rss: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (target <= 1024 MB)`)
