// `iptables show`: each Service port's frontends and endpoints (with their share of new connections) as a table,
// or the parsed dump plus the routing analysis as JSON/YAML. Pure: model in, string out; colour only when asked.
import {Chalk, type ChalkInstance} from 'chalk'
import type {PolicyChainRouting, ServiceAnalysis, ServiceFrontend, ServicePortRouting} from '../core/iptables/services.js'
import type {IptablesDump} from '../core/parse/iptables-save.js'
import {layoutColumns} from './layout.js'
import type {ShowFormat} from './options.js'

export type IptablesShowFormat = ShowFormat

export interface IptablesShowOptions {
  color: boolean
  /** Node the dump belongs to, when known. */
  node?: string
  /** Where the dump came from (a file path or <stdin>). */
  source?: string
  /** What the lenient reader of a pasted input assumed or skipped (line = the user's line). */
  warnings?: ReadonlyArray<{line: number; message: string}>
  /** The input was an excerpt of a dump: absent chains and jumps may just be cut off, so no finding is made about them. */
  excerpt?: boolean
}

const API_VERSION = 'node-doctor.io/v1alpha1'

/** The whole output as one string (tests, small dumps). Use renderIptablesShowChunks for large dumps. */
export function renderIptablesShow(dump: IptablesDump, analysis: ServiceAnalysis, format: IptablesShowFormat, options: IptablesShowOptions): string {
  let out = ''
  for (const chunk of renderIptablesShowChunks(dump, analysis, format, options)) out += chunk
  return out
}

/**
 * The output in pieces of about 64 KB. JSON and YAML of a 10,000-Service node run to hundreds of MB, past
 * V8's maximum string length, so they are produced rule by rule and never held whole.
 */
export function* renderIptablesShowChunks(
  dump: IptablesDump,
  analysis: ServiceAnalysis,
  format: IptablesShowFormat,
  options: IptablesShowOptions,
): Generator<string> {
  if (format === 'table') {
    yield renderTable(dump, analysis, options)
    if (options.warnings && options.warnings.length > 0) yield warningLines(options.warnings, options.source)
    return
  }
  const doc = {
    apiVersion: API_VERSION,
    kind: 'IptablesShow',
    ...(options.node ? {node: options.node} : {}),
    ...(options.source ? {source: options.source} : {}),
    dump,
    servicePorts: analysis.servicePorts,
    nodePortsJumps: analysis.nodePortsJumps,
    unreferencedChains: analysis.unreferencedChains,
    problems: analysis.problems,
    ...(options.warnings ? {warnings: options.warnings} : {}),
  }
  let buf = ''
  for (const piece of format === 'json' ? jsonPieces(doc, '') : yamlDocument(doc)) {
    buf += piece
    if (buf.length >= 65536) {
      yield buf
      buf = ''
    }
  }
  yield format === 'json' ? buf + '\n' : buf
}

/** The reader's warnings after the view, one per line, as `warning: FILE:LINE: message`. */
function warningLines(warnings: ReadonlyArray<{line: number; message: string}>, source: string | undefined): string {
  const where = source ?? '<input>'
  return `\n${warnings.map((w) => `warning: ${where}:${w.line}: ${w.message}`).join('\n')}\n`
}

// ---- streaming JSON (same text as JSON.stringify(value, null, 2)) ----

function toPlain(value: unknown): unknown {
  const v = value as {toJSON?: () => unknown} | null
  return v !== null && typeof v === 'object' && typeof v.toJSON === 'function' ? v.toJSON() : value
}

function* jsonPieces(value: unknown, indent: string): Generator<string> {
  const v = toPlain(value)
  if (v === null || typeof v !== 'object') {
    yield JSON.stringify(v) ?? 'null'
    return
  }
  const inner = indent + '  '
  if (Array.isArray(v)) {
    if (v.length === 0) {
      yield '[]'
      return
    }
    yield '['
    for (let i = 0; i < v.length; i++) {
      yield `${i === 0 ? '' : ','}\n${inner}`
      yield* jsonPieces(v[i], inner)
    }
    yield `\n${indent}]`
    return
  }
  const entries = Object.entries(v).filter(([, x]) => x !== undefined && typeof x !== 'function')
  if (entries.length === 0) {
    yield '{}'
    return
  }
  yield '{'
  let first = true
  for (const [k, x] of entries) {
    yield `${first ? '' : ','}\n${inner}${JSON.stringify(k)}: `
    first = false
    yield* jsonPieces(x, inner)
  }
  yield `\n${indent}}`
}

// ---- streaming YAML (block style; strings plain when unambiguous, else JSON-style double quotes) ----

const PLAIN = /^[A-Za-z_][A-Za-z0-9_./-]*$/
const RESERVED = /^(true|false|null|yes|no|on|off|y|n|~)$/i

function yamlScalar(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? '.inf' : v < 0 ? '-.inf' : '.nan'
  if (typeof v === 'boolean') return String(v)
  const s = String(v)
  if (PLAIN.test(s) && !RESERVED.test(s)) return s
  // A JSON string is a YAML double-quoted scalar; YAML also wants C1 controls and U+FEFF escaped.
  return JSON.stringify(s).replace(/[\u0080-\u009f\ufeff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function isEmptyCollection(v: unknown): string | null {
  if (Array.isArray(v)) return v.length === 0 ? '[]' : null
  if (v !== null && typeof v === 'object') return Object.keys(v).length === 0 ? '{}' : null
  return null
}

function* yamlDocument(doc: object): Generator<string> {
  yield* yamlMapping(doc, '')
}

/** Lines of a mapping at `indent`; the first key is not indented when `inline` (it follows "- "). */
function* yamlMapping(obj: object, indent: string, inline = false): Generator<string> {
  let first = true
  for (const [k, raw] of Object.entries(obj)) {
    const v = toPlain(raw)
    if (v === undefined || typeof v === 'function') continue
    const lead = first && inline ? '' : indent
    first = false
    const key = yamlScalar(k)
    const empty = isEmptyCollection(v)
    if (v !== null && typeof v === 'object' && empty === null) {
      if (Array.isArray(v)) {
        yield `${lead}${key}:\n`
        yield* yamlSequence(v, indent)
      } else {
        yield `${lead}${key}:\n`
        yield* yamlMapping(v, indent + '  ')
      }
    } else yield `${lead}${key}: ${empty ?? yamlScalar(v)}\n`
  }
  if (first) yield `${inline ? '' : indent}{}\n`
}

function* yamlSequence(arr: readonly unknown[], indent: string): Generator<string> {
  for (const raw of arr) {
    const v = toPlain(raw)
    const empty = isEmptyCollection(v)
    if (v !== null && typeof v === 'object' && empty === null) {
      if (Array.isArray(v)) {
        yield `${indent}-\n`
        yield* yamlSequence(v, indent + '  ')
      } else {
        yield `${indent}- `
        yield* yamlMapping(v, indent + '  ', true)
      }
    } else yield `${indent}- ${empty ?? yamlScalar(v)}\n`
  }
}

function percent(p: number): string {
  return `${(p * 100).toFixed(1)}%`
}

function frontendLine(f: ServiceFrontend, c: ChalkInstance): string {
  const addr = f.address ?? '?'
  const ap = f.port === null ? addr : addr.includes(':') ? `[${addr}]:${f.port}` : `${addr}:${f.port}`
  let where: string
  switch (f.kind) {
    case 'clusterIP':
      where = ap
      break
    case 'externalIP':
      where = `external ${ap}`
      break
    case 'loadBalancerIP':
      where = `lb ${ap}`
      break
    case 'external':
      where = `external/lb ${ap}`
      break
    case 'nodePort':
      where = `node port ${f.port ?? '?'}`
      break
    case 'nodePortLocalhost':
      where = `node port ${f.port ?? '?'} (127.0.0.0/8)`
      break
  }
  if (f.table === 'filter') return `${where} ${c.yellow(`→ ${f.target}`)}${f.reason ? ` (${shortReason(f.reason)})` : ''}`
  return where
}

function shortReason(reason: string): string {
  return reason.startsWith('traffic not accepted by KUBE-FW-') ? 'source not in loadBalancerSourceRanges' : reason
}

function endpointLines(chain: PolicyChainRouting, counters: boolean, c: ChalkInstance): string[] {
  if (chain.endpoints.length === 0) return [c.yellow('(no endpoints)')]
  const width = chain.endpoints.reduce((m, e) => Math.max(m, (e.destination ?? e.chain).length), 0)
  return chain.endpoints.map((e) => {
    let line = `${(e.destination ?? e.chain).padEnd(width)}  ${percent(e.probability).padStart(6)}`
    if (counters && e.packets !== null) line += `  ${e.packets} pkts`
    if (!e.exists) line += ' ' + c.red(`(${e.chain} missing)`)
    return line
  })
}

function notes(sp: ServicePortRouting, c: ChalkInstance): string[] {
  const out: string[] = []
  const viaSvl = sp.frontends.some((f) => f.table === 'nat' && f.kind === 'clusterIP' && f.target.startsWith('KUBE-SVL-'))
  if (viaSvl) out.push('internalTrafficPolicy: Local')
  if (sp.external) {
    if (sp.external.finalTarget?.startsWith('KUBE-SVL-') || (sp.external.shortCircuit && sp.external.finalTarget === null)) {
      out.push('externalTrafficPolicy: Local')
    }
    if (sp.external.finalTarget === null) out.push(c.yellow('external traffic: no local endpoint, dropped'))
  }
  const affinity = sp.cluster?.affinitySeconds ?? sp.local?.affinitySeconds
  if (affinity !== null && affinity !== undefined) out.push(`ClientIP affinity ${affinity}s`)
  if (sp.firewall) out.push(`source ranges: ${sp.firewall.allowedSources.join(', ') || 'none'}`)
  if (sp.healthCheckNodePort !== null) out.push(`health check node port ${sp.healthCheckNodePort}`)
  for (const p of sp.problems) out.push(c.red(p))
  return out
}

function renderTable(dump: IptablesDump, analysis: ServiceAnalysis, options: IptablesShowOptions): string {
  const c = new Chalk({level: options.color ? 1 : 0})
  const tool = dump.family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'
  const origin = dump.version ? `${tool} v${dump.version}${dump.backend ? ` (${dump.backend})` : ''}` : tool
  const where = [options.node ? `node ${options.node}` : undefined, options.source ? `from ${options.source}` : undefined].filter(Boolean).join(', ')
  const tables = dump.tables.map((t) => `${t.name} ${t.ruleCount}`).join(', ')
  const lines: string[] = [
    `${c.bold(origin)}${where ? `, ${where}` : ''}: ${dump.family === 'ipv6' ? 'IPv6' : 'IPv4'}${dump.counters ? ', with counters' : ''}; rules per table: ${tables}`,
  ]
  for (const w of dump.warnings) lines.push(c.yellow(w))
  const ports = analysis.servicePorts
  if (ports.length === 0) {
    lines.push('', 'No kube-proxy Service rules found (no KUBE-SERVICES jumps to KUBE-SVC/SVL/EXT/FW chains).')
  } else {
    const rows: string[][] = []
    for (const sp of ports) {
      const name = sp.name ?? (sp.hash ? `(hash ${sp.hash})` : '(unnamed)')
      const fronts = sp.frontends.map((f) => frontendLine(f, c))
      let eps: string[]
      if (sp.cluster && sp.local) {
        eps = ['cluster:', ...endpointLines(sp.cluster, dump.counters, c).map((l) => `  ${l}`), 'local:', ...endpointLines(sp.local, dump.counters, c).map((l) => `  ${l}`)]
      } else if (sp.local) eps = ['local:', ...endpointLines(sp.local, dump.counters, c).map((l) => `  ${l}`)]
      else if (sp.cluster) eps = endpointLines(sp.cluster, dump.counters, c)
      else eps = [c.yellow('none')]
      rows.push([name, sp.protocol ?? '?', fronts.join('\n'), eps.join('\n'), notes(sp, c).join('\n')])
    }
    // Linear in the rows (cli-table3 needs minutes for the 10,000 rows of a large node); the head is bold when coloured,
    // its padding outside the bold.
    const head = ['SERVICE PORT', 'PROTO', 'FRONTENDS', 'ENDPOINTS (share of new connections)', 'NOTES'].map((h) => c.bold(h))
    lines.push('', ...layoutColumns(head, rows).map((l) => l.trimEnd()))
    const endpoints = ports.reduce((n, p) => n + (p.cluster?.endpoints.length ?? p.local?.endpoints.length ?? 0), 0)
    lines.push('', `${ports.length} service port${ports.length === 1 ? '' : 's'}, ${endpoints} endpoint${endpoints === 1 ? '' : 's'}.`)
  }
  if (analysis.nodePortsJumps.length === 0 && ports.length > 0 && !options.excerpt) lines.push(c.yellow('nat KUBE-SERVICES has no final jump to KUBE-NODEPORTS: node ports are not reachable.'))
  if (analysis.unreferencedChains.length > 0 && !options.excerpt) {
    const shown = analysis.unreferencedChains.slice(0, 5).join(', ')
    const more = analysis.unreferencedChains.length > 5 ? ` and ${analysis.unreferencedChains.length - 5} more` : ''
    lines.push(c.yellow(`${analysis.unreferencedChains.length} kube-proxy chain(s) that nothing jumps to: ${shown}${more}`))
  }
  for (const p of analysis.problems) lines.push(c.red(p))
  return lines.join('\n') + '\n'
}
