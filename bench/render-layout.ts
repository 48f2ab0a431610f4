// Benchmark: the linear table layout (src/render/layout.ts) on the inputs issue #14 found quadratic before: one
// 55 KB iptables rule wrapped at 80 columns, 20,000 route rows laid out, the wrapped rule as one cell. Prints the
// time of each (target: well under 1 s each). Run: node --import tsx bench/render-layout.ts
import {performance} from 'node:perf_hooks'
import {layoutColumns} from '../src/render/layout.js'
import {wrapLines} from '../src/render/table.js'

function time<T>(what: string, fn: () => T): T {
  const t0 = performance.now()
  const out = fn()
  console.log(`${what}: ${(performance.now() - t0).toFixed(1)} ms`)
  return out
}

const rule = Array.from({length: 10_000}, (_, i) => `--opt${i}`).join(' ')
const lines = time(`wrap a ${Math.round(rule.length / 1024)} KB rule at 80 columns`, () => wrapLines(rule, 80))
const rows = Array.from({length: 20_000}, (_, i) => [`eth${i % 4}`, `10.${i >> 8}.${i & 255}.0/24`, 'unicast', '10.0.0.1'])
time('lay out 20,000 route rows', () => layoutColumns(['DEV', 'DST', 'TYPE', 'GW'], rows))
time(`lay out the wrapped rule (${lines.length} lines) as one cell`, () => layoutColumns(['RULE'], [[lines.join('\n')]], {widths: [80]}))
