// Benchmark: parse a kube-proxy-shaped iptables-save dump of 10,000 Services × 10 endpoints (~430k lines).
// Usage: node --import tsx bench/iptables-parse.ts [--services N] [--endpoints E] [--no-comments] [--counters]
// Prints `name: value unit` lines. Targets on the 2-vCPU project machine: ≥ 60 MB/s, ≤ 600 MB peak RSS.
import {rmSync} from 'node:fs'
import os, {tmpdir} from 'node:os'
import {join} from 'node:path'
import {readInputFile} from '../src/transports/connect.js'
import {parseIptablesSave} from '../src/core/parse/iptables-save.js'
import {analyzeServices} from '../src/core/iptables/services.js'
import {writeIptablesSave} from './gen-iptables.js'

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(name)
  return i === -1 ? def : Number(process.argv[i + 1])
}

const services = arg('--services', 10_000)
const endpoints = arg('--endpoints', 10)
const runs = arg('--runs', 5)
const file = join(tmpdir(), `nd-bench-iptables-${process.pid}.txt`)
const mb = (bytes: number): number => bytes / 1e6
const rssMB = (): string => (process.memoryUsage().rss / 1e6).toFixed(0)
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

  print('iptables.rss_after_generate', rssMB(), 'MB')

  // Read once, the way the CLI does, then parse the same text `runs` times and report the median.
  const t0 = performance.now()
  const text = readInputFile(file)
  const readMs = performance.now() - t0
  const parseTimes: number[] = []
  const parseCpu: number[] = []
  let dump = parseIptablesSave(text)
  for (let r = 0; r < runs; r++) {
    const t1 = performance.now()
    const c1 = process.cpuUsage()
    dump = parseIptablesSave(text)
    const c2 = process.cpuUsage(c1)
    parseTimes.push(performance.now() - t1)
    parseCpu.push((c2.user + c2.system) / 1000)
  }
  const rules = dump.tables.reduce((s, t) => s + t.ruleCount, 0)
  const parseMs = [...parseTimes].sort((a, b) => a - b)[Math.floor(parseTimes.length / 2)] as number
  print('iptables.parse.rules', rules)
  print('iptables.read.time', readMs.toFixed(0), 'ms')
  print('iptables.parse.time', parseMs.toFixed(0), 'ms')
  print('iptables.parse.throughput', (mb(gen.bytes) / (parseMs / 1000)).toFixed(1), 'MB/s')
  // CPU time is steadier than wall time when the 2 cores are shared (it includes GC helper threads).
  const cpuMs = [...parseCpu].sort((a, b) => a - b)[Math.floor(parseCpu.length / 2)] as number
  print('iptables.parse.cpu_throughput', (mb(gen.bytes) / (cpuMs / 1000)).toFixed(1), 'MB/s')
  print('iptables.parse.lines_per_s', Math.round(gen.lines / (parseMs / 1000)), 'lines/s')
  print('iptables.read+parse.throughput', (mb(gen.bytes) / ((parseMs + readMs) / 1000)).toFixed(1), 'MB/s')
  print('iptables.rss_after_parse', rssMB(), 'MB')

  // The full decode: every rule tokenised and structured once, as `iptables show` and the diff do.
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
  print('iptables.rss_after_services', rssMB(), 'MB')
  print('iptables.load_average_1m', os.loadavg()[0]?.toFixed(2) ?? '?')
  print('iptables.peak_rss', (process.resourceUsage().maxRSS / 1024).toFixed(0), 'MB')
} finally {
  rmSync(file, {force: true})
}
