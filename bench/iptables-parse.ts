// Benchmark: parse a kube-proxy-shaped iptables-save dump of 10,000 Services × 10 endpoints (~430k lines).
// Usage: node --import tsx bench/iptables-parse.ts [--services N] [--endpoints E] [--no-comments] [--counters]
// Prints `name: value unit` lines. Targets on the 2-vCPU project machine: ≥ 60 MB/s, ≤ 600 MB peak RSS.
import {readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseIptablesSave} from '../src/core/parse/iptables-save.js'
import {analyzeServices} from '../src/core/iptables/services.js'
import {writeIptablesSave} from './gen-iptables.js'

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(name)
  return i === -1 ? def : Number(process.argv[i + 1])
}

const services = arg('--services', 10_000)
const endpoints = arg('--endpoints', 10)
const runs = arg('--runs', 3)
const file = join(tmpdir(), `nd-bench-iptables-${process.pid}.txt`)
const mb = (bytes: number): number => bytes / 1e6
const print = (name: string, value: number | string, unit = ''): void => console.log(`${name}: ${value}${unit ? ' ' + unit : ''}`)

try {
  const gen = writeIptablesSave(file, {
    services,
    endpointsPerService: endpoints,
    comments: !process.argv.includes('--no-comments'),
    counters: process.argv.includes('--counters'),
  })
  print('iptables.dump.services', services)
  print('iptables.dump.lines', gen.lines)
  print('iptables.dump.size', mb(gen.bytes).toFixed(1), 'MB')

  const parseTimes: number[] = []
  const readTimes: number[] = []
  let rules = 0
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now()
    const text = readFileSync(file, 'utf8')
    const t1 = performance.now()
    const dump = parseIptablesSave(text)
    const t2 = performance.now()
    readTimes.push(t1 - t0)
    parseTimes.push(t2 - t1)
    rules = dump.tables.reduce((s, t) => s + t.ruleCount, 0)
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number
  const parseMs = median(parseTimes)
  const readMs = median(readTimes)
  print('iptables.parse.rules', rules)
  print('iptables.parse.time', parseMs.toFixed(0), 'ms')
  print('iptables.parse.throughput', (mb(gen.bytes) / (parseMs / 1000)).toFixed(1), 'MB/s')
  print('iptables.parse.lines_per_s', Math.round(gen.lines / (parseMs / 1000)), 'lines/s')
  print('iptables.read+parse.throughput', (mb(gen.bytes) / ((parseMs + readMs) / 1000)).toFixed(1), 'MB/s')

  // The full decode: every rule tokenised and structured once, as `iptables show` and the diff do.
  const text = readFileSync(file, 'utf8')
  const dump = parseIptablesSave(text)
  const t3 = performance.now()
  let matches = 0
  for (const table of dump.tables) for (const rule of table.eachRule()) matches += rule.parsed.matches.length
  const t4 = performance.now()
  print('iptables.decode_all_rules.time', (t4 - t3).toFixed(0), 'ms')
  print('iptables.decode_all_rules.throughput', (mb(gen.bytes) / ((t4 - t3) / 1000)).toFixed(1), 'MB/s')
  const t5 = performance.now()
  const analysis = analyzeServices(dump)
  const t6 = performance.now()
  print('iptables.services.time', (t6 - t5).toFixed(0), 'ms')
  print('iptables.services.ports', analysis.servicePorts.length)
  if (matches === 0) throw new Error('no matches decoded')
  print('iptables.heap_used', mb(process.memoryUsage().heapUsed).toFixed(0), 'MB')
  print('iptables.peak_rss', (process.resourceUsage().maxRSS / 1024).toFixed(0), 'MB')
} finally {
  rmSync(file, {force: true})
}
