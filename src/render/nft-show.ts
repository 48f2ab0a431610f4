// `nft show`: tables with their chains (rule counts) and sets/maps (element counts), and for kube-proxy's table
// a per-service summary; or the parsed model as JSON/YAML.
import {escapeJsonControls} from './terminal-safe.js'
import {Chalk, type ChalkInstance} from 'chalk'
import {borderlessTable} from './layout.js'
import {stringify} from 'yaml'
import {type KubeProxyNftService, type NftRuleset, type NftTable, kubeProxyTables, summarizeKubeProxyTable} from '../core/parse/nft.js'
import {pastedWarningLines, type ShowOptions} from './ipvs-show.js'
import type {ShowFormat} from './options.js'
import {VIEW_API_VERSION} from './table-style.js'

const API_VERSION = VIEW_API_VERSION


// kube-proxy's per-service chains; in the table view they are counted, the services section details them.
const PER_SERVICE_CHAIN = /^(service|external|local|firewall|cluster|endpoint)-[A-Z0-9]{8}-/

export function renderNftShow(rs: NftRuleset, format: ShowFormat, options: ShowOptions): string {
  const doc = {apiVersion: API_VERSION, kind: 'NftRuleset', ...(options.node ? {node: options.node} : {}), ...(options.source ? {source: options.source} : {}), ...rs, ...(options.warnings ? {warnings: options.warnings} : {})}
  if (format === 'json') return escapeJsonControls(JSON.stringify(doc, null, 2)) + '\n'
  if (format === 'yaml') return stringify(doc, {lineWidth: 0})
  return renderTables(rs, options) + pastedWarningLines(options.warnings, options.source)
}

/** Rows collected for one table, laid out by borderlessTable (linear; cli-table3 was quadratic). */
class Rows {
  readonly rows: string[][] = []
  constructor(
    readonly head: string[],
    readonly color: boolean,
  ) {}

  push(row: string[]): void {
    this.rows.push(row)
  }
}

function newTable(head: string[], color: boolean): Rows {
  return new Rows(head, color)
}

function tableText(t: Rows): string[] {
  return borderlessTable(t.head, t.rows, t.color).map((l) => '  ' + l)
}

function renderTables(rs: NftRuleset, options: ShowOptions): string {
  const c = new Chalk({level: options.color ? 1 : 0})
  const where = [options.node ? `node ${options.node}` : undefined, options.source ? `from ${options.source}` : undefined].filter(Boolean).join(', ')
  const out = [
    `${c.bold('nftables')}${where ? ` (${where})` : ''}: ${rs.tables.length} table${rs.tables.length === 1 ? '' : 's'} [${rs.format === 'json' ? 'nft -j list' : 'nft list'}${rs.nftVersion ? `, nft ${rs.nftVersion}` : ''}]`,
  ]
  if (rs.tables.length === 0) return out.join('\n') + '\n\nNo tables.\n'
  const kp = new Set(kubeProxyTables(rs))
  for (const t of rs.tables) {
    out.push('', ...renderTable(t, kp.has(t), c, options.color))
  }
  return out.join('\n') + '\n'
}

function renderTable(t: NftTable, isKubeProxy: boolean, c: ChalkInstance, color: boolean): string[] {
  const rules = t.chains.reduce((n, ch) => n + ch.rules.length, 0)
  const base = t.chains.filter((ch) => ch.hook !== undefined).length
  const lines = [
    `${c.bold(`table ${t.family} ${t.name}`)}: ${t.chains.length} chain${t.chains.length === 1 ? '' : 's'} (${base} base), ${t.sets.length} set${t.sets.length === 1 ? '' : 's'}/map${t.sets.length === 1 ? '' : 's'}, ${rules} rule${rules === 1 ? '' : 's'}` +
      (t.flags.length > 0 ? ` [flags ${t.flags.join(',')}]` : '') +
      (t.comment ? ` "${t.comment}"` : ''),
  ]
  const shown = isKubeProxy ? t.chains.filter((ch) => !PER_SERVICE_CHAIN.test(ch.name)) : t.chains
  if (shown.length > 0) {
    const ct = newTable(['CHAIN', 'TYPE', 'HOOK', 'PRIORITY', 'POLICY', 'RULES'], color)
    for (const ch of shown) {
      const policy = ch.policy === 'drop' ? c.yellow(ch.policy) : (ch.policy ?? '')
      ct.push([ch.name, ch.type ?? '', ch.hook === undefined ? '' : ch.hook + (ch.device ? ` (${ch.device})` : ''), ch.priority === undefined ? '' : String(ch.priority), policy, String(ch.rules.length)])
    }
    lines.push(...tableText(ct))
  }
  const hidden = t.chains.length - shown.length
  if (hidden > 0) {
    const perKind = new Map<string, number>()
    for (const ch of t.chains) {
      const m = PER_SERVICE_CHAIN.exec(ch.name)
      if (m) perKind.set(m[1]!, (perKind.get(m[1]!) ?? 0) + 1)
    }
    lines.push(`  + ${hidden} per-service chain${hidden === 1 ? '' : 's'} (${[...perKind].map(([k, v]) => `${v} ${k}-*`).join(', ')}), summarised below`)
  }
  if (t.sets.length > 0) {
    const st = newTable(['SET/MAP', 'KIND', 'TYPE', 'FLAGS', 'ELEMENTS'], color)
    for (const s of t.sets) {
      const type = (s.type ?? (s.typeof === undefined ? '' : `typeof ${s.typeof}`)) + (s.valueType ? ` : ${s.valueType}` : '')
      st.push([s.name, s.kind, type, s.flags.join(','), String(s.elements.length)])
    }
    lines.push('', ...tableText(st))
  }
  if (t.objects.length > 0) lines.push('', `  Objects: ${t.objects.map((o) => `${o.kind} ${o.name}`).join(', ')}`)
  if (isKubeProxy) lines.push('', ...renderServices(summarizeKubeProxyTable(t), t, c, color))
  return lines
}

/** `172.30.0.41 . tcp . 80` → `172.30.0.41:80/tcp`; `tcp . 30080` → `30080/tcp`. */
function serviceAddress(key: string): string {
  const parts = key.split(' . ')
  if (parts.length === 3) {
    const [ip, proto, port] = parts as [string, string, string]
    return `${ip.includes(':') ? `[${ip}]` : ip}:${port}/${proto}`
  }
  if (parts.length === 2) return `${parts[1]}/${parts[0]}`
  return key
}

function renderServices(services: KubeProxyNftService[], t: NftTable, c: ChalkInstance, color: boolean): string[] {
  const lines = [`${c.bold(`kube-proxy services`)} (table ${t.family} ${t.name}): ${services.length}`]
  if (services.length === 0) return lines
  const st = newTable(['SERVICE PORT', 'CLUSTER IPS', 'EXTERNAL IPS', 'NODE PORTS', 'ENDPOINTS'], color)
  for (const s of services) {
    const endpoints =
      s.endpoints.length > 0 ? s.endpoints.join(', ') : s.noEndpoints ? c.yellow(`none (${s.noEndpoints})`) : c.red('none')
    st.push([s.name, s.clusterIPs.map(serviceAddress).join(', '), s.externalIPs.map(serviceAddress).join(', '), s.nodePorts.map(serviceAddress).join(', '), endpoints])
  }
  lines.push(...tableText(st))
  return lines
}
