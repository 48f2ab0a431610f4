// `routes show`: a route listing grouped by output device, with reject routes and Calico devices called out,
// or the parsed model as JSON/YAML.
import {layoutColumns} from './layout.js'
import {escapeJsonControls} from './terminal-safe.js'
import {Chalk, type ChalkInstance} from 'chalk'
import {stringify} from 'yaml'
import {isRejectRoute, type Route, type RouteFormat, type RouteTable} from '../core/parse/routes.js'
import {isCalicoWorkloadInterface} from '../core/parse/links.js'
import {pastedWarningLines, type ShowOptions} from './ipvs-show.js'
import type {ShowFormat} from './options.js'
import {VIEW_API_VERSION} from './table-style.js'

const API_VERSION = VIEW_API_VERSION


const FORMAT_LABEL: Record<RouteFormat, string> = {
  ip: 'ip route',
  'ip-detailed': 'ip -d route',
  'ip-json': 'ip -j route',
  'ip-json-detailed': 'ip -j -d route',
  'route-n': 'route -n',
  'route-n-ipv6': 'route -n -A inet6',
  'ip-monitor': 'ip monitor route',
}

/** What a device is to Calico, or undefined when it is not one of Calico's. */
export function calicoDeviceRole(dev: string): string | undefined {
  if (dev === 'tunl0') return 'Calico IPIP'
  if (dev === 'vxlan.calico') return 'Calico VXLAN'
  if (dev === 'vxlan-v6.calico') return 'Calico VXLAN v6'
  if (dev === 'wireguard.cali' || dev === 'wg-v6.cali') return 'Calico WireGuard'
  if (isCalicoWorkloadInterface(dev)) return 'Calico workload'
  return undefined
}

const NO_DEVICE = '-'

export function renderRoutesShow(table: RouteTable, format: ShowFormat, options: ShowOptions): string {
  const doc = {apiVersion: API_VERSION, kind: 'RouteTable', ...(options.node ? {node: options.node} : {}), ...(options.source ? {source: options.source} : {}), ...table, ...(options.warnings ? {warnings: options.warnings} : {})}
  if (format === 'json') return escapeJsonControls(JSON.stringify(doc, null, 2)) + '\n'
  if (format === 'yaml') return stringify(doc, {lineWidth: 0})
  return renderTable(table, options) + pastedWarningLines(options.warnings, options.source)
}

interface Row {
  route: Route
  gateway?: string
  extraFlags: string[]
}

function renderTable(t: RouteTable, options: ShowOptions): string {
  const c = new Chalk({level: options.color ? 1 : 0})
  // Group by device in order of first appearance; a multipath route appears under each next hop's device.
  const groups = new Map<string, Row[]>()
  const add = (dev: string, row: Row): void => {
    let g = groups.get(dev)
    if (!g) groups.set(dev, (g = []))
    g.push(row)
  }
  for (const r of t.routes) {
    if (r.nexthops && r.nexthops.length > 0) {
      r.nexthops.forEach((h, i) => {
        const row: Row = {route: r, extraFlags: [...h.flags, `nexthop ${i + 1}/${r.nexthops!.length} weight ${h.weight}`]}
        if (h.gateway !== undefined) row.gateway = h.gateway
        add(h.dev ?? NO_DEVICE, row)
      })
    } else {
      const row: Row = {route: r, extraFlags: []}
      if (r.gateway !== undefined) row.gateway = r.gateway
      add(r.dev ?? NO_DEVICE, row)
    }
  }
  const where = [options.node ? `node ${options.node}` : undefined, options.source ? `from ${options.source}` : undefined].filter(Boolean).join(', ')
  const lines = [`${c.bold('Routes')}${where ? ` (${where})` : ''}: ${t.routes.length} route${t.routes.length === 1 ? '' : 's'} on ${[...groups.keys()].filter((d) => d !== NO_DEVICE).length} device(s) [${FORMAT_LABEL[t.format]}]`]
  lines.push(...summaryLines(t, groups))
  if (t.routes.length === 0) return lines.join('\n') + '\n\nNo routes.\n'
  const head = ['DEVICE', 'DESTINATION', 'TYPE', 'GATEWAY', 'PROTO', 'SCOPE', 'METRIC', 'SRC', 'TABLE', 'FLAGS'].map((h) => (options.color ? c.bold(h) : h))
  const body: string[][] = []
  for (const [dev, rows] of groups) {
    rows.forEach((row, i) => body.push([i === 0 ? deviceLabel(dev, c) : '', ...routeCells(row, c)]))
  }
  lines.push('', ...layoutColumns(head, body).map((l) => l.trimEnd()))
  return lines.join('\n') + '\n'
}

function deviceLabel(dev: string, c: ChalkInstance): string {
  if (dev === NO_DEVICE) return '- (no device)'
  const role = calicoDeviceRole(dev)
  return role === undefined ? dev : `${dev} ${c.cyan(`[${role}]`)}`
}

function routeCells(row: Row, c: ChalkInstance): string[] {
  const r = row.route
  const type = isRejectRoute(r) ? c.red(r.type.toUpperCase()) : r.type
  const flags = [...r.flags, ...row.extraFlags]
  if (r.mtu !== undefined) flags.push(`mtu ${r.mtu}`)
  if (r.error !== undefined) flags.push(`error ${r.error}`)
  if (r.routeFlags !== undefined) flags.push(`[${r.routeFlags}]`)
  const linkdown = r.flags.includes('linkdown')
  return [
    r.dst,
    type,
    row.gateway ?? '',
    r.protocol ?? '',
    r.scope ?? '',
    r.metric === undefined ? '' : String(r.metric),
    r.prefsrc ?? '',
    r.table === 'main' ? '' : r.table,
    linkdown ? c.yellow(flags.join(' ')) : flags.join(' '),
  ]
}

function summaryLines(t: RouteTable, groups: Map<string, Row[]>): string[] {
  const out: string[] = []
  const counts = new Map<string, number>()
  for (const r of t.routes) if (isRejectRoute(r)) counts.set(r.type, (counts.get(r.type) ?? 0) + 1)
  if (counts.size > 0) out.push(`Reject routes: ${[...counts].map(([k, v]) => `${v} ${k}`).join(', ')}`)
  const calico: string[] = []
  let workloads = 0
  let workloadRoutes = 0
  for (const [dev, rows] of groups) {
    const role = calicoDeviceRole(dev)
    if (role === 'Calico workload') {
      workloads++
      workloadRoutes += rows.length
    } else if (role !== undefined) calico.push(`${dev} ${rows.length} route${rows.length === 1 ? '' : 's'}`)
  }
  if (workloads > 0) calico.push(`${workloadRoutes} workload route${workloadRoutes === 1 ? '' : 's'} on ${workloads} cali* device${workloads === 1 ? '' : 's'}`)
  if (calico.length > 0) out.push(`Calico: ${calico.join(', ')}`)
  return out
}
