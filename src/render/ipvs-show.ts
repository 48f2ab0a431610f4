// `ipvs show`: an IPVS table as a human table (one row per real server) or the parsed model as JSON/YAML.
import {escapeJsonControls} from './terminal-safe.js'
import {Chalk, type ChalkInstance} from 'chalk'
import {stringify} from 'yaml'
import {formatAddrPort, type IpvsFormat, type IpvsRealServer, type IpvsTable, type IpvsVirtualServer} from '../core/parse/ipvsadm.js'
import type {ShowFormat} from './options.js'
import {borderlessTable} from './layout.js'
import {VIEW_API_VERSION} from './table-style.js'


export interface ShowOptions {
  color: boolean
  /** Node the data belongs to, when known. */
  node?: string
  /** Where the data came from (a file path). */
  source?: string
  /**
   * What the lenient reader of a pasted input assumed or skipped (line = the user's line): after the table as
   * `warning: FILE:LINE: message`, and as `warnings` in JSON/YAML when given (also when empty).
   */
  warnings?: ReadonlyArray<{line: number; message: string}>
}

/** The reader's warnings after a view, one per line, as `warning: FILE:LINE: message`; '' when there are none. */
export function pastedWarningLines(warnings: ReadonlyArray<{line: number; message: string}> | undefined, source: string | undefined): string {
  if (!warnings || warnings.length === 0) return ''
  const where = source ?? '<input>'
  return `\n${warnings.map((w) => `warning: ${where}:${w.line}: ${w.message}`).join('\n')}\n`
}

const API_VERSION = VIEW_API_VERSION


const FORMAT_LABEL: Record<IpvsFormat, string> = {
  list: 'ipvsadm -Ln',
  'list-stats': 'ipvsadm -Ln --stats',
  'list-rate': 'ipvsadm -Ln --rate',
  'list-thresholds': 'ipvsadm -Ln --thresholds',
  'list-persistent-conn': 'ipvsadm -Ln --persistent-conn',
  'list-tun-info': 'ipvsadm -Ln --tun-info',
  save: 'ipvsadm -Sn',
}

/** The command that printed the table: `ipvsadm -L` when names show that -n was not given (a lenient read). */
function formatLabel(t: IpvsTable): string {
  const label = FORMAT_LABEL[t.format]
  const named = t.virtualServers.some((v) => v.hostName || v.portName !== undefined || v.realServers.some((r) => r.hostName || r.portName !== undefined))
  return named ? label.replace('ipvsadm -Ln', 'ipvsadm -L') : label
}

const FORWARD_LABEL: Record<string, string> = {masq: 'Masq', local: 'Local', route: 'Route', tunnel: 'Tunnel', gatewaying: 'Route/Local'}

export function renderIpvsShow(table: IpvsTable, format: ShowFormat, options: ShowOptions): string {
  const doc = {apiVersion: API_VERSION, kind: 'IpvsTable', ...(options.node ? {node: options.node} : {}), ...(options.source ? {source: options.source} : {}), ...table, ...(options.warnings ? {warnings: options.warnings} : {})}
  if (format === 'json') return escapeJsonControls(JSON.stringify(doc, null, 2)) + '\n'
  if (format === 'yaml') return stringify(doc, {lineWidth: 0})
  return renderTable(table, options) + pastedWarningLines(options.warnings, options.source)
}

function renderTable(t: IpvsTable, options: ShowOptions): string {
  const c = new Chalk({level: options.color ? 1 : 0})
  const rsCount = t.virtualServers.reduce((n, v) => n + v.realServers.length, 0)
  const where = [options.node ? `node ${options.node}` : undefined, options.source ? `from ${options.source}` : undefined].filter(Boolean).join(', ')
  const header =
    `${c.bold('IPVS')}${where ? ` (${where})` : ''}: ${t.virtualServers.length} virtual server${t.virtualServers.length === 1 ? '' : 's'}, ` +
    `${rsCount} real server${rsCount === 1 ? '' : 's'} [${formatLabel(t)}${t.version ? `, IPVS ${t.version}` : ''}]`
  if (t.virtualServers.length === 0) return `${header}\n\nNo virtual servers.\n`
  const cols = columnsFor(t.format)
  const head = ['VIRTUAL SERVER', 'SCHEDULER', 'PERSISTENCE', 'REAL SERVER', ...cols.map((x) => x.head)]
  const table: string[][] = []
  const notes: string[] = []
  for (const vs of t.virtualServers) {
    const vsCells = [vsLabel(vs), schedulerLabel(vs), persistenceLabel(vs)]
    if (vs.realServers.length === 0) {
      table.push([...vsCells, c.red('(none)'), ...cols.map(() => '')])
      continue
    }
    vs.realServers.forEach((rs, i) => {
      const cells = cols.map((col) => col.cell(rs, c))
      table.push([...(i === 0 ? vsCells : ['', '', '']), formatAddrPort(rs.address, rs.port, rs.family), ...cells])
    })
  }
  const empty = t.virtualServers.filter((v) => v.realServers.length === 0).length
  if (empty > 0) notes.push(`${empty} virtual server${empty === 1 ? ' has' : 's have'} no real servers (traffic to ${empty === 1 ? 'it' : 'them'} is dropped).`)
  const zero = t.virtualServers.flatMap((v) => v.realServers).filter((r) => r.weight === 0).length
  if (zero > 0) notes.push(`${zero} real server${zero === 1 ? ' has' : 's have'} weight 0 (graceful termination; stale if it lasts).`)
  if (t.virtualServers.some((v) => v.realServers.some((r) => r.forward === 'gatewaying')))
    notes.push('The save form prints -g for both direct routing and a local real server (Route/Local); `ipvsadm -Ln` tells them apart.')
  if (t.virtualServers.some((v) => v.stats?.approximate || v.realServers.some((r) => r.stats?.approximate || r.rates?.approximate)))
    notes.push('Counters with K/M/G/T are rounded by ipvsadm (use --exact for exact values).')
  const body = borderlessTable(head, table, options.color).join('\n')
  return `${header}\n\n${body}\n${notes.length > 0 ? '\n' + notes.map((n) => `Note: ${n}`).join('\n') + '\n' : ''}`
}

function vsLabel(vs: IpvsVirtualServer): string {
  return vs.id
}

function schedulerLabel(vs: IpvsVirtualServer): string {
  if (vs.scheduler === undefined) return '-'
  const parts = [vs.scheduler]
  if (vs.schedulerFlags.length > 0) parts.push(`(${vs.schedulerFlags.join(',')})`)
  if (vs.onePacket) parts.push('ops')
  return parts.join(' ')
}

function persistenceLabel(vs: IpvsVirtualServer): string {
  const p = vs.persistence
  if (!p) return ''
  const parts = [`${p.timeoutSeconds}s`]
  if (p.netmask !== undefined) parts.push(`mask ${p.netmask}`)
  if (p.engine !== undefined) parts.push(`pe ${p.engine}`)
  return parts.join(' ')
}

interface Column {
  head: string
  cell: (rs: IpvsRealServer, c: ChalkInstance) => string
}

const num = (v: number | undefined): string => (v === undefined ? '' : String(v))

function columnsFor(format: IpvsFormat): Column[] {
  const weight: Column = {head: 'WEIGHT', cell: (rs, c) => (rs.weight === 0 ? c.yellow('0') : num(rs.weight))}
  const active: Column = {head: 'ACTIVE', cell: (rs) => num(rs.activeConnections)}
  const inactive: Column = {head: 'INACTIVE', cell: (rs) => num(rs.inactiveConnections)}
  switch (format) {
    case 'list-stats':
      return [
        {head: 'CONNS', cell: (rs) => num(rs.stats?.connections)},
        {head: 'INPKTS', cell: (rs) => num(rs.stats?.inPackets)},
        {head: 'OUTPKTS', cell: (rs) => num(rs.stats?.outPackets)},
        {head: 'INBYTES', cell: (rs) => num(rs.stats?.inBytes)},
        {head: 'OUTBYTES', cell: (rs) => num(rs.stats?.outBytes)},
      ]
    case 'list-rate':
      return [
        {head: 'CPS', cell: (rs) => num(rs.rates?.connectionsPerSecond)},
        {head: 'INPPS', cell: (rs) => num(rs.rates?.inPacketsPerSecond)},
        {head: 'OUTPPS', cell: (rs) => num(rs.rates?.outPacketsPerSecond)},
        {head: 'INBPS', cell: (rs) => num(rs.rates?.inBytesPerSecond)},
        {head: 'OUTBPS', cell: (rs) => num(rs.rates?.outBytesPerSecond)},
      ]
    case 'list-thresholds':
      return [
        {head: 'UPPER', cell: (rs) => num(rs.upperThreshold)},
        {head: 'LOWER', cell: (rs) => num(rs.lowerThreshold)},
        active,
        inactive,
      ]
    case 'list-persistent-conn':
      return [weight, {head: 'PERSIST', cell: (rs) => num(rs.persistentConnections)}, active, inactive]
    case 'save':
      return [{head: 'FORWARD', cell: (rs) => FORWARD_LABEL[rs.forward ?? ''] ?? ''}, weight]
    default:
      return [
        {head: 'FORWARD', cell: (rs) => FORWARD_LABEL[rs.forward ?? ''] ?? ''},
        ...(format === 'list-tun-info' ? [{head: 'TUNNEL', cell: (rs: IpvsRealServer) => rs.tunnel ?? ''}] : []),
        weight,
        active,
        inactive,
      ]
  }
}
