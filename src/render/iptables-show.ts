// `iptables show`: each Service port's frontends and endpoints (with their share of new connections) as a table,
// or the parsed dump plus the routing analysis as JSON/YAML. Pure: model in, string out; colour only when asked.
import {Chalk, type ChalkInstance} from 'chalk'
import {stringify} from 'yaml'
import type {PolicyChainRouting, ServiceAnalysis, ServiceFrontend, ServicePortRouting} from '../core/iptables/services.js'
import type {IptablesDump} from '../core/parse/iptables-save.js'

export type IptablesShowFormat = 'table' | 'json' | 'yaml'

export interface IptablesShowOptions {
  color: boolean
  /** Node the dump belongs to, when known. */
  node?: string
  /** Where the dump came from (a file path or <stdin>). */
  source?: string
}

const API_VERSION = 'node-doctor.io/v1alpha1'

/** Visible width: ANSI colour codes take no room. */
function width(s: string): number {
  // eslint-disable-next-line no-control-regex
  return s.includes('\u001b') ? s.replace(/\u001b\[[0-9;]*m/g, '').length : s.length
}

/**
 * A borderless table with multi-line cells, two spaces between columns. Linear in the number of rows (cli-table3
 * needs minutes for the 10,000 rows of a large node).
 */
function layoutTable(head: string[], rows: string[][], c: ChalkInstance): string[] {
  const cells = rows.map((r) => r.map((cell) => cell.split('\n')))
  const widths = head.map((h, k) => cells.reduce((w, r) => (r[k] ?? []).reduce((m, line) => Math.max(m, width(line)), w), width(h)))
  const pad = (text: string, k: number): string => text + ' '.repeat(Math.max(0, (widths[k] as number) - width(text)))
  const out = [head.map((h, k) => pad(c.bold(h), k)).join('  ').trimEnd()]
  for (const r of cells) {
    const height = r.reduce((m, lines) => Math.max(m, lines.length), 1)
    for (let l = 0; l < height; l++) out.push(r.map((lines, k) => pad(lines[l] ?? '', k)).join('  ').trimEnd())
  }
  return out
}

export function renderIptablesShow(dump: IptablesDump, analysis: ServiceAnalysis, format: IptablesShowFormat, options: IptablesShowOptions): string {
  if (format === 'json' || format === 'yaml') {
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
    }
    // JSON first so the rules' toJSON views are applied for YAML too.
    const json = JSON.stringify(doc, null, 2) + '\n'
    return format === 'json' ? json : stringify(JSON.parse(json), {lineWidth: 0})
  }
  return renderTable(dump, analysis, options)
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
    lines.push('', ...layoutTable(['SERVICE PORT', 'PROTO', 'FRONTENDS', 'ENDPOINTS (share of new connections)', 'NOTES'], rows, c))
    const endpoints = ports.reduce((n, p) => n + (p.cluster?.endpoints.length ?? p.local?.endpoints.length ?? 0), 0)
    lines.push('', `${ports.length} service port${ports.length === 1 ? '' : 's'}, ${endpoints} endpoint${endpoints === 1 ? '' : 's'}.`)
  }
  if (analysis.nodePortsJumps.length === 0 && ports.length > 0) lines.push(c.yellow('nat KUBE-SERVICES has no final jump to KUBE-NODEPORTS: node ports are not reachable.'))
  if (analysis.unreferencedChains.length > 0) {
    const shown = analysis.unreferencedChains.slice(0, 5).join(', ')
    const more = analysis.unreferencedChains.length > 5 ? ` and ${analysis.unreferencedChains.length - 5} more` : ''
    lines.push(c.yellow(`${analysis.unreferencedChains.length} kube-proxy chain(s) that nothing jumps to: ${shown}${more}`))
  }
  for (const p of analysis.problems) lines.push(c.red(p))
  return lines.join('\n') + '\n'
}
