// Prometheus text exposition format (version 0.0.4, plus the OpenMetrics `# EOF` marker), and helpers for
// kube-proxy's sync metrics (pkg/proxy/metrics/metrics.go). Since about 1.33 these carry an `ip_family` label;
// the helpers aggregate over it so queries work on every version.
import {ParseError} from '../../errors.js'
import type {HistogramData, KubeProxySyncMetrics} from '../model/kube-proxy-state.js'

export type {HistogramData, KubeProxySyncMetrics} from '../model/kube-proxy-state.js'

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped' | 'gaugehistogram' | 'info' | 'stateset' | 'unknown'

export interface Sample {
  /** Full sample name (`..._bucket`, `..._sum`, `..._count` for histograms). */
  name: string
  labels: Record<string, string>
  value: number
  /** Milliseconds since the epoch, when the line has one. */
  timestamp?: number
  line: number
}

export interface MetricFamily {
  name: string
  type: MetricType
  help?: string
  samples: Sample[]
}

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*/
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*/
const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped', 'gaugehistogram', 'info', 'stateset', 'unknown']

const SUFFIXES: Record<MetricType, readonly string[]> = {
  counter: ['_total', '_created'],
  gauge: [],
  histogram: ['_bucket', '_sum', '_count', '_created'],
  gaugehistogram: ['_bucket', '_gsum', '_gcount'],
  summary: ['_sum', '_count', '_created'],
  untyped: [],
  unknown: [],
  info: ['_info'],
  stateset: [],
}

/** Go strconv.ParseFloat as Prometheus uses it: decimals, exponents, ±Inf, NaN. */
export function parsePromFloat(s: string): number | undefined {
  if (/^[+-]?inf(inity)?$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity
  if (/^nan$/i.test(s)) return NaN
  if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(s) && !/^[+-]?0[xX][0-9a-fA-F]+$/.test(s)) return undefined
  return Number(s)
}

function unescapeHelp(s: string): string {
  return s.replace(/\\(\\|n)/g, (_m, c: string) => (c === 'n' ? '\n' : '\\'))
}

/** Parses the exposition text. Throws ParseError naming the line of the first malformed line. */
export function parsePrometheusText(text: string): MetricFamily[] {
  const families = new Map<string, MetricFamily>()
  const typed = new Set<string>()
  const order: MetricFamily[] = []
  const family = (name: string): MetricFamily => {
    let f = families.get(name)
    if (!f) {
      f = {name, type: 'untyped', samples: []}
      families.set(name, f)
      order.push(f)
    }
    return f
  }
  const owner = (sampleName: string): MetricFamily => {
    const exact = families.get(sampleName)
    if (exact && typed.has(sampleName)) return exact
    for (const f of families.values()) {
      if (!typed.has(f.name)) continue
      for (const suffix of SUFFIXES[f.type]) if (sampleName === f.name + suffix) return f
    }
    return family(sampleName)
  }
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1
    const line = (lines[i] ?? '').trim()
    if (line === '') continue
    if (line.startsWith('#')) {
      if (line === '# EOF') break
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(line)
      if (!m) continue
      const name = m[2] ?? ''
      if (!NAME_RE.test(name) || (NAME_RE.exec(name)?.[0] ?? '') !== name) throw new ParseError(`invalid metric name ${JSON.stringify(name)} in ${m[1]} line`, lineNo)
      if (m[1] === 'HELP') {
        family(name).help = unescapeHelp(m[3] ?? '')
      } else {
        const t = (m[3] ?? '').trim().toLowerCase() as MetricType
        if (!TYPES.includes(t)) throw new ParseError(`unknown metric type ${JSON.stringify(m[3] ?? '')} for ${name}`, lineNo)
        if (typed.has(name)) throw new ParseError(`second TYPE line for metric ${name}`, lineNo)
        const f = family(name)
        if (f.samples.length > 0) throw new ParseError(`TYPE line for ${name} after its samples`, lineNo)
        f.type = t
        typed.add(name)
      }
      continue
    }
    const sample = parseSampleLine(line, lineNo)
    owner(sample.name).samples.push(sample)
  }
  return order
}

function parseSampleLine(line: string, lineNo: number): Sample {
  const nameMatch = NAME_RE.exec(line)
  if (!nameMatch) throw new ParseError(`expected a metric name at the start of ${JSON.stringify(line.slice(0, 40))}`, lineNo)
  const name = nameMatch[0]
  let pos = name.length
  const labels: Record<string, string> = {}
  const skipSpace = (): void => {
    while (pos < line.length && (line[pos] === ' ' || line[pos] === '\t')) pos++
  }
  skipSpace()
  if (line[pos] === '{') {
    pos++
    for (;;) {
      skipSpace()
      if (line[pos] === '}') {
        pos++
        break
      }
      const ln = LABEL_RE.exec(line.slice(pos))
      if (!ln) throw new ParseError(`invalid label name in ${name}{...}`, lineNo)
      const labelName = ln[0]
      pos += labelName.length
      skipSpace()
      if (line[pos] !== '=') throw new ParseError(`expected "=" after label ${labelName}`, lineNo)
      pos++
      skipSpace()
      if (line[pos] !== '"') throw new ParseError(`expected a quoted value for label ${labelName}`, lineNo)
      pos++
      let value = ''
      let closed = false
      while (pos < line.length) {
        const c = line[pos] ?? ''
        if (c === '\\') {
          const n = line[pos + 1]
          if (n === 'n') value += '\n'
          else if (n === '\\' || n === '"') value += n
          else throw new ParseError(`invalid escape \\${n ?? ''} in label ${labelName}`, lineNo)
          pos += 2
          continue
        }
        if (c === '"') {
          closed = true
          pos++
          break
        }
        value += c
        pos++
      }
      if (!closed) throw new ParseError(`unterminated value for label ${labelName}`, lineNo)
      if (Object.hasOwn(labels, labelName)) throw new ParseError(`label ${labelName} repeated`, lineNo)
      if (labelName === '__proto__') Object.defineProperty(labels, labelName, {value, enumerable: true, writable: true, configurable: true})
      else labels[labelName] = value
      skipSpace()
      if (line[pos] === ',') {
        pos++
        continue
      }
      if (line[pos] === '}') {
        pos++
        break
      }
      throw new ParseError(`expected "," or "}" after label ${labelName}`, lineNo)
    }
  }
  const rest = line.slice(pos).trim().split(/[ \t]+/)
  if (rest.length < 1 || rest[0] === '') throw new ParseError(`missing value for ${name}`, lineNo)
  if (rest.length > 2) throw new ParseError(`unexpected text after the value of ${name}`, lineNo)
  const value = parsePromFloat(rest[0] ?? '')
  if (value === undefined) throw new ParseError(`invalid value ${JSON.stringify(rest[0])} for ${name}`, lineNo)
  const sample: Sample = {name, labels, value, line: lineNo}
  if (rest[1] !== undefined) {
    if (!/^-?\d+$/.test(rest[1])) throw new ParseError(`invalid timestamp ${JSON.stringify(rest[1])} for ${name}`, lineNo)
    sample.timestamp = Number(rest[1])
  }
  return sample
}

// ---------------------------------------------------------------------------------------------------------------
// Queries

function matches(labels: Record<string, string>, filter: Record<string, string> | undefined): boolean {
  if (!filter) return true
  return Object.entries(filter).every(([k, v]) => labels[k] === v)
}

/** All samples with this exact name (across families), filtered by labels. */
export function samplesNamed(families: readonly MetricFamily[], name: string, filter?: Record<string, string>): Sample[] {
  return families.flatMap((f) => f.samples.filter((s) => s.name === name && matches(s.labels, filter)))
}

/** Sum over every label combination (e.g. both ip_family values), or undefined when there is no sample. */
export function sumSamples(families: readonly MetricFamily[], name: string, filter?: Record<string, string>): number | undefined {
  const s = samplesNamed(families, name, filter)
  return s.length === 0 ? undefined : s.reduce((a, b) => a + b.value, 0)
}

/** A histogram family aggregated over all other labels (buckets summed per `le`). */
export function histogram(families: readonly MetricFamily[], name: string, filter?: Record<string, string>): HistogramData | undefined {
  const count = sumSamples(families, `${name}_count`, filter)
  const sum = sumSamples(families, `${name}_sum`, filter)
  if (count === undefined || sum === undefined) return undefined
  const byLe = new Map<number, number>()
  for (const s of samplesNamed(families, `${name}_bucket`, filter)) {
    const le = parsePromFloat(s.labels['le'] ?? '')
    if (le === undefined) continue
    byLe.set(le, (byLe.get(le) ?? 0) + s.value)
  }
  const buckets = [...byLe.entries()].sort((a, b) => a[0] - b[0]).map(([le, c]) => ({le, count: c}))
  return {count, sum, buckets}
}

/** histogram_quantile(): linear interpolation inside the bucket, as Prometheus computes it. */
export function histogramQuantile(h: HistogramData, q: number): number | undefined {
  if (h.buckets.length === 0 || h.count === 0) return undefined
  const total = h.buckets.at(-1)?.count ?? 0
  if (total === 0) return undefined
  const rank = q * total
  let prevLe = 0
  let prevCount = 0
  for (const b of h.buckets) {
    if (b.count >= rank) {
      if (b.le === Infinity) return prevLe
      if (b.count === prevCount) return b.le
      return prevLe + ((b.le - prevLe) * (rank - prevCount)) / (b.count - prevCount)
    }
    prevLe = b.le
    prevCount = b.count
  }
  return prevLe
}

const P = 'kubeproxy_sync_proxy_rules_'

function setFamily(out: KubeProxySyncMetrics, fam: string, v: KubeProxySyncMetrics['byIpFamily'][string]): void {
  const merged = {...(Object.hasOwn(out.byIpFamily, fam) ? out.byIpFamily[fam] : {}), ...v}
  Object.defineProperty(out.byIpFamily, fam, {value: merged, enumerable: true, writable: true, configurable: true})
}

/** The kube-proxy sync health numbers from its /metrics. */
export function kubeProxySyncMetrics(families: readonly MetricFamily[]): KubeProxySyncMetrics {
  const out: KubeProxySyncMetrics = {byIpFamily: {}}
  for (const s of samplesNamed(families, `${P}last_timestamp_seconds`)) {
    const fam = s.labels['ip_family'] ?? ''
    setFamily(out, fam, {lastSyncTimestampSeconds: s.value})
  }
  for (const s of samplesNamed(families, `${P}last_queued_timestamp_seconds`)) {
    const fam = s.labels['ip_family'] ?? ''
    setFamily(out, fam, {lastQueuedTimestampSeconds: s.value})
  }
  const syncs = Object.values(out.byIpFamily).flatMap((x) => (x.lastSyncTimestampSeconds === undefined ? [] : [x.lastSyncTimestampSeconds]))
  const queued = Object.values(out.byIpFamily).flatMap((x) => (x.lastQueuedTimestampSeconds === undefined ? [] : [x.lastQueuedTimestampSeconds]))
  if (syncs.length > 0) out.lastSyncTimestampSeconds = Math.min(...syncs)
  if (queued.length > 0) out.lastQueuedTimestampSeconds = Math.max(...queued)
  const pend = Object.values(out.byIpFamily).flatMap((x) =>
    x.lastQueuedTimestampSeconds !== undefined && x.lastSyncTimestampSeconds !== undefined ? [x.lastQueuedTimestampSeconds - x.lastSyncTimestampSeconds] : [],
  )
  if (pend.length > 0 && Math.max(...pend) > 0) out.pendingSeconds = Math.max(...pend)
  const set = <K extends keyof KubeProxySyncMetrics>(k: K, v: KubeProxySyncMetrics[K] | undefined): void => {
    if (v !== undefined) out[k] = v
  }
  set('iptablesRestoreFailuresTotal', sumSamples(families, `${P}iptables_restore_failures_total`))
  set('iptablesPartialRestoreFailuresTotal', sumSamples(families, `${P}iptables_partial_restore_failures_total`))
  set('nftablesSyncFailuresTotal', sumSamples(families, `${P}nftables_sync_failures_total`))
  set('endpointChangesPending', sumSamples(families, `${P}endpoint_changes_pending`))
  set('serviceChangesPending', sumSamples(families, `${P}service_changes_pending`))
  const h = histogram(families, `${P}duration_seconds`)
  if (h) {
    const d: NonNullable<KubeProxySyncMetrics['syncDuration']> = {...h}
    const p50 = histogramQuantile(h, 0.5)
    const p99 = histogramQuantile(h, 0.99)
    if (p50 !== undefined) d.p50 = p50
    if (p99 !== undefined) d.p99 = p99
    if (h.count > 0) d.averageSeconds = h.sum / h.count
    out.syncDuration = d
  }
  return out
}
