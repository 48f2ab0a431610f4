// Parser for interface listings: `ip -j [-d] addr` / `ip -j [-d] link` JSON, their text forms (`ip [-d] addr`,
// `ip [-d] link`) and the one-line forms (`ip -o addr`, `ip -o link`). Also the lookups node-doctor needs:
// kube-ipvs0's addresses and Calico's tunl0, vxlan.calico and cali* workload interfaces.
import ipaddr from 'ipaddr.js'
import {ParseError} from '../../errors.js'
import {ordered} from './key-order.js'
import {type InputLine, jsonArrayElementOffsets, lineAt, parseJsonText, splitInputLines, wrongArtifact} from './sniff.js'

export type LinkFormat = 'ip-json' | 'ip-text' | 'ip-oneline'

export interface LinkAddress {
  family: 'inet' | 'inet6'
  /** The address itself (RFC 5952 form for IPv6). */
  local: string
  prefixlen: number
  scope: string
  /** IPv4 label (`eth0`, `eth0:1`). */
  label?: string
  broadcast?: string
  /** Point-to-point peer (`peer X/len`). */
  peer?: string
  /** dynamic, secondary, noprefixroute, nodad, deprecated, tentative, ... */
  flags: string[]
}

export interface NetInterface {
  index: number
  name: string
  /** Parent or peer by name (`vlan10@eth0`, a veth peer in this namespace). */
  link?: string
  /** Parent or peer by index when it has no name here (`cali…@if2`: the peer is in another namespace). */
  linkIndex?: number
  /** Device kind from linkinfo (`-d`): veth, vxlan, ipip, bridge, dummy, wireguard, ... */
  kind?: string
  /** Kind of the master it is enslaved to (bridge_slave, bond_slave), from `-d`. */
  slaveKind?: string
  /** Interface flags as printed: UP, LOWER_UP, BROADCAST, NOARP, ... */
  flags: string[]
  mtu?: number
  qdisc?: string
  /** Operational state: UP, DOWN, UNKNOWN, LOWERLAYERDOWN, ... */
  state?: string
  master?: string
  /** Link layer: ether, loopback, ipip, none, ... */
  linkType?: string
  mac?: string
  /** Name of the peer's network namespace (text form only). */
  linkNetns?: string
  linkNetnsId?: number
  altNames?: string[]
  /** VXLAN parameters when the kind is vxlan and `-d` was used. */
  vxlan?: {id?: number; port?: number; dev?: string; local?: string}
  addresses: LinkAddress[]
  /** Input line of the interface header (text) or where its JSON object starts. */
  line?: number
}

export interface LinkTable {
  format: LinkFormat
  interfaces: NetInterface[]
}

const EXPECTED = 'an interface listing (`ip -j addr`, `ip -j link`, `ip addr`, `ip link` or `ip -o addr`)'

const ADDR_FLAGS = [
  'secondary',
  'temporary',
  'dynamic',
  'noprefixroute',
  'nodad',
  'optimistic',
  'deprecated',
  'tentative',
  'dadfailed',
  'home',
  'mngtmpaddr',
  'stable-privacy',
  'autojoin',
  'permanent',
]
const ADDR_FLAG_SET = new Set(ADDR_FLAGS)

const HEADER_RE = /^(\d+):\s+([^\s:@]+)(?:@([^\s:]+))?:\s+<([^>]*)>(.*)$/
const ONELINE_ADDR_RE = /^(\d+):\s+([^\s:@]+)\s+(inet6?)\s+(.*)$/

/** Which interface-listing format `text` is; ParseError (naming what it looks like) when none. */
export function detectLinkFormat(text: string): LinkFormat {
  const lines = splitInputLines(text, EXPECTED)
  const first = lines.find((l) => l.text.trim() !== '')!
  const t = first.text.trim()
  if (t.startsWith('[') || t.startsWith('{')) {
    const json = parseJsonText(text, '`ip -j addr` JSON')
    if (!Array.isArray(json)) throw new ParseError('`ip -j addr` / `ip -j link` output is a JSON array; this JSON is not an array', 1)
    const e = json[0] as Record<string, unknown> | undefined
    if (e !== undefined && (e === null || typeof e !== 'object' || !('ifname' in e))) {
      if (e !== null && typeof e === 'object' && 'dst' in e) throw new ParseError('this looks like `ip -j route` JSON, not interface JSON: expected `ip -j addr` or `ip -j link` output', 1)
      throw new ParseError('JSON array elements are not interfaces (no "ifname" key): expected `ip -j addr` or `ip -j link` output', 1)
    }
    return 'ip-json'
  }
  if (HEADER_RE.test(first.text)) return first.text.includes('\\ ') || /\\\s+link\//.test(first.text) ? 'ip-oneline' : 'ip-text'
  if (ONELINE_ADDR_RE.test(first.text)) return 'ip-oneline'
  throw wrongArtifact(text, EXPECTED, first.n)
}

/** Parses any supported interface listing. Throws ParseError(detail, line) on anything it cannot read. */
export function parseLinks(text: string): LinkTable {
  const format = detectLinkFormat(text)
  let interfaces: NetInterface[]
  if (format === 'ip-json') interfaces = parseJsonLinks(text)
  else {
    const lines = splitInputLines(text, EXPECTED)
    interfaces = format === 'ip-text' ? parseTextLinks(lines) : parseOnelineLinks(lines)
  }
  return {
    format,
    interfaces: interfaces.map((i) =>
      ordered({...i, ...(i.vxlan ? {vxlan: ordered(i.vxlan, ['id', 'port', 'dev', 'local'])} : {}), addresses: i.addresses.map((a) => ordered(a, ADDR_KEYS))}, IFACE_KEYS),
    ),
  }
}

const IFACE_KEYS: ReadonlyArray<keyof NetInterface> = [
  'index',
  'name',
  'link',
  'linkIndex',
  'kind',
  'slaveKind',
  'flags',
  'mtu',
  'qdisc',
  'state',
  'master',
  'linkType',
  'mac',
  'linkNetns',
  'linkNetnsId',
  'altNames',
  'vxlan',
  'addresses',
  'line',
]
const ADDR_KEYS: ReadonlyArray<keyof LinkAddress> = ['family', 'local', 'prefixlen', 'scope', 'label', 'broadcast', 'peer', 'flags']

// --- text ------------------------------------------------------------------------------------------------------

function parseTextLinks(lines: InputLine[]): NetInterface[] {
  const out: NetInterface[] = []
  let cur: NetInterface | undefined
  for (const line of lines) {
    if (line.text.trim() === '') continue
    if (!/^\s/.test(line.text)) {
      cur = parseHeader(line.text, line.n)
      out.push(cur)
      continue
    }
    if (!cur) throw new ParseError('indented line before any interface header ("N: name: <FLAGS> ...")', line.n)
    parseDetailLine(cur, line.text.trim(), line.n)
  }
  return out
}

function parseOnelineLinks(lines: InputLine[]): NetInterface[] {
  const out: NetInterface[] = []
  const byIndex = new Map<number, NetInterface>()
  for (const line of lines) {
    if (line.text.trim() === '') continue
    const [head = '', ...cont] = line.text.split(/\\\s+/)
    if (HEADER_RE.test(head)) {
      const iface = parseHeader(head, line.n)
      const prev = byIndex.get(iface.index)
      if (prev) Object.assign(prev, {...iface, addresses: prev.addresses})
      else {
        byIndex.set(iface.index, iface)
        out.push(iface)
      }
      for (const c of cont) if (c.trim() !== '') parseDetailLine(byIndex.get(iface.index)!, c.trim(), line.n)
      continue
    }
    const m = ONELINE_ADDR_RE.exec(head)
    if (!m) throw new ParseError(`expected "N: name inet ADDR/LEN ..." or "N: name: <FLAGS> ...", found "${head.trim().slice(0, 60)}"`, line.n)
    const index = Number(m[1])
    let iface = byIndex.get(index)
    if (!iface) {
      iface = {index, name: m[2]!, flags: [], addresses: [], line: line.n}
      byIndex.set(index, iface)
      out.push(iface)
    }
    iface.addresses.push(parseAddressLine(m[3] as 'inet' | 'inet6', m[4]!.trim().split(/\s+/), iface.name, line.n))
  }
  return out
}

function parseHeader(text: string, n: number): NetInterface {
  const m = HEADER_RE.exec(text)
  if (!m) throw new ParseError(`expected an interface header "N: name: <FLAGS> mtu ...", found "${text.trim().slice(0, 60)}"`, n)
  const iface: NetInterface = {index: Number(m[1]), name: m[2]!, flags: m[4]!.split(',').filter((f) => f !== ''), addresses: [], line: n}
  const parent = m[3]
  if (parent !== undefined && parent !== 'NONE') {
    const idx = /^if(\d+)$/.exec(parent)
    if (idx) iface.linkIndex = Number(idx[1])
    else iface.link = parent
  }
  const tok = m[5]!.trim().split(/\s+/).filter((t) => t !== '')
  for (let i = 0; i + 1 < tok.length; i += 2) {
    const [k, v] = [tok[i]!, tok[i + 1]!]
    if (k === 'mtu') iface.mtu = uint(v, 'mtu', n)
    else if (k === 'qdisc') iface.qdisc = v
    else if (k === 'master') iface.master = v
    else if (k === 'state') iface.state = v
  }
  return iface
}

const DETAIL_SKIP = new Set(['valid_lft', 'numtxqueues', 'prog/xdp', 'vf', 'alias', 'protodown', 'gso_max_size'])

function parseDetailLine(iface: NetInterface, t: string, n: number): void {
  const tok = t.split(/\s+/)
  const head = tok[0]!
  if (head.startsWith('link/')) {
    iface.linkType = head.slice(5)
    let i = 1
    if (tok[1] !== undefined && !['brd', 'link-netns', 'link-netnsid', 'promiscuity', 'permaddr'].includes(tok[1])) {
      iface.mac = tok[1]
      i = 2
    }
    for (; i < tok.length; i++) {
      if (tok[i] === 'link-netns' && tok[i + 1] !== undefined) iface.linkNetns = tok[++i]
      else if (tok[i] === 'link-netnsid' && tok[i + 1] !== undefined) iface.linkNetnsId = uint(tok[++i]!, 'link-netnsid', n)
    }
    return
  }
  if (head === 'inet' || head === 'inet6') {
    iface.addresses.push(parseAddressLine(head, tok.slice(1), iface.name, n))
    return
  }
  if (head === 'altname') {
    if (tok[1] !== undefined) (iface.altNames ??= []).push(tok[1])
    return
  }
  if (DETAIL_SKIP.has(head)) return
  // `ip -d` prints the linkinfo kind first on its own line: `vxlan id 4096 ...`, `veth`, `bridge_slave state ...`.
  if (/^[a-z][a-z0-9_]*$/.test(head)) {
    if (head.endsWith('_slave')) iface.slaveKind ??= head
    else if (iface.kind === undefined) {
      iface.kind = head
      if (head === 'vxlan') iface.vxlan = vxlanFromText(tok.slice(1))
    }
  }
}

function vxlanFromText(tok: string[]): NonNullable<NetInterface['vxlan']> {
  const v: NonNullable<NetInterface['vxlan']> = {}
  for (let i = 0; i + 1 < tok.length; i++) {
    const [k, val] = [tok[i]!, tok[i + 1]!]
    if (k === 'id' && /^\d+$/.test(val)) v.id = Number(val)
    else if (k === 'dstport' && /^\d+$/.test(val)) v.port = Number(val)
    else if (k === 'dev') v.dev = val
    else if (k === 'local' && ipaddr.isValid(val)) v.local = val
  }
  return v
}

// `10.0.0.5/24 brd 10.0.0.255 scope global dynamic noprefixroute eth0`
function parseAddressLine(family: 'inet' | 'inet6', tok: string[], ifname: string, n: number): LinkAddress {
  const cidr = tok[0]
  if (cidr === undefined) throw new ParseError(`"${family}" without an address (the line is truncated)`, n)
  const {address, prefixlen} = parseCidr(cidr, family, n)
  const a: LinkAddress = {family, local: address, prefixlen, scope: 'global', flags: []}
  for (let i = 1; i < tok.length; i++) {
    const t = tok[i]!
    const next = (): string => {
      const v = tok[++i]
      if (v === undefined) throw new ParseError(`"${t}" needs a value (the line is truncated)`, n)
      return v
    }
    if (t === 'peer') a.peer = next()
    else if (t === 'brd') a.broadcast = next()
    else if (t === 'scope') a.scope = next()
    else if (t === 'metric' || t === 'proto') next()
    else if (ADDR_FLAG_SET.has(t)) a.flags.push(t)
    else if (family === 'inet' && (t === ifname || t.startsWith(`${ifname}:`))) a.label = t
    else if (family === 'inet' && i === tok.length - 1) a.label = t
  }
  return a
}

function parseCidr(cidr: string, family: 'inet' | 'inet6', n: number): {address: string; prefixlen: number} {
  const [addr, len] = cidr.split('/')
  const max = family === 'inet6' ? 128 : 32
  const ok = addr !== undefined && (family === 'inet6' ? ipaddr.IPv6.isValid(addr) : ipaddr.IPv4.isValidFourPartDecimal(addr))
  if (!ok) throw new ParseError(`invalid ${family} address "${cidr.slice(0, 60)}"`, n)
  if (len !== undefined && (!/^\d{1,3}$/.test(len) || Number(len) > max)) throw new ParseError(`invalid prefix length in "${cidr.slice(0, 60)}"`, n)
  return {address: ipaddr.parse(addr).toString(), prefixlen: len === undefined ? max : Number(len)}
}

function uint(v: string, what: string, n: number): number {
  if (!/^\d{1,10}$/.test(v)) throw new ParseError(`${what} "${v.slice(0, 20)}" is not a non-negative integer`, n)
  return Number(v)
}

// --- JSON ------------------------------------------------------------------------------------------------------

function parseJsonLinks(text: string): NetInterface[] {
  const json = parseJsonText(text, '`ip -j addr` JSON') as unknown[]
  const offsets = jsonArrayElementOffsets(text)
  return json.map((o, k) => jsonInterface(o, lineAt(text, offsets[k] ?? 0), k))
}

function jsonInterface(obj: unknown, n: number, k: number): NetInterface {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new ParseError(`interface #${k + 1} is not a JSON object`, n)
  const o = obj as Record<string, unknown>
  const where = `interface #${k + 1}`
  const str = (key: string): string | undefined => {
    const v = o[key]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'string') throw new ParseError(`${where}: "${key}" must be a string`, n)
    return v
  }
  const num = (key: string): number | undefined => {
    const v = o[key]
    if (v === undefined || v === null) return undefined
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new ParseError(`${where}: "${key}" must be an integer`, n)
    return v
  }
  const name = str('ifname')
  const index = num('ifindex')
  if (name === undefined) throw new ParseError(`${where} has no "ifname"`, n)
  if (index === undefined) throw new ParseError(`${where} (${name}) has no "ifindex"`, n)
  const flags = o.flags
  if (flags !== undefined && (!Array.isArray(flags) || flags.some((f) => typeof f !== 'string')))
    throw new ParseError(`${where} (${name}): "flags" must be an array of strings`, n)
  const iface: NetInterface = {index, name, flags: [...((flags as string[] | undefined) ?? [])], addresses: [], line: n}
  const link = str('link')
  if (link !== undefined) iface.link = link
  const linkIndex = num('link_index')
  if (linkIndex !== undefined && link === undefined) iface.linkIndex = linkIndex
  const mtu = num('mtu')
  if (mtu !== undefined) iface.mtu = mtu
  const qdisc = str('qdisc')
  if (qdisc !== undefined) iface.qdisc = qdisc
  const state = str('operstate')
  if (state !== undefined) iface.state = state
  const master = str('master')
  if (master !== undefined) iface.master = master
  const linkType = str('link_type')
  if (linkType !== undefined) iface.linkType = linkType
  const mac = str('address')
  if (mac !== undefined) iface.mac = mac
  const netnsId = num('link_netnsid')
  if (netnsId !== undefined) iface.linkNetnsId = netnsId
  const alt = o.altnames
  if (Array.isArray(alt)) iface.altNames = alt.filter((a): a is string => typeof a === 'string')
  const info = o.linkinfo
  if (info !== undefined && info !== null) {
    if (typeof info !== 'object') throw new ParseError(`${where} (${name}): "linkinfo" must be an object`, n)
    const li = info as Record<string, unknown>
    if (typeof li.info_kind === 'string') iface.kind = li.info_kind
    if (typeof li.info_slave_kind === 'string') iface.slaveKind = `${li.info_slave_kind}_slave`
    if (iface.kind === 'vxlan' && li.info_data !== null && typeof li.info_data === 'object') {
      const d = li.info_data as Record<string, unknown>
      const v: NonNullable<NetInterface['vxlan']> = {}
      if (typeof d.id === 'number') v.id = d.id
      if (typeof d.port === 'number') v.port = d.port
      if (typeof d.link === 'string') v.dev = d.link
      if (typeof d.local === 'string') v.local = d.local
      iface.vxlan = v
    }
  }
  const addrs = o.addr_info
  if (addrs !== undefined) {
    if (!Array.isArray(addrs)) throw new ParseError(`${where} (${name}): "addr_info" must be an array`, n)
    for (const a of addrs) {
      if (a === null || typeof a !== 'object') throw new ParseError(`${where} (${name}): "addr_info" entries must be objects`, n)
      const ai = a as Record<string, unknown>
      // `ip -j addr show dev X` leaves {} placeholders for filtered-out addresses.
      if (ai.local === undefined) continue
      if (ai.family !== 'inet' && ai.family !== 'inet6') continue
      if (typeof ai.local !== 'string') throw new ParseError(`${where} (${name}): address "local" must be a string`, n)
      const plen = typeof ai.prefixlen === 'number' ? ai.prefixlen : ai.family === 'inet6' ? 128 : 32
      const {address, prefixlen} = parseCidr(`${ai.local}/${plen}`, ai.family, n)
      const la: LinkAddress = {family: ai.family, local: address, prefixlen, scope: typeof ai.scope === 'string' ? ai.scope : 'global', flags: []}
      if (typeof ai.label === 'string') la.label = ai.label
      if (typeof ai.broadcast === 'string') la.broadcast = ai.broadcast
      if (typeof ai.address === 'string' && ai.address !== ai.local) la.peer = ai.address
      for (const f of ADDR_FLAGS) if (ai[f] === true) la.flags.push(f)
      iface.addresses.push(la)
    }
  }
  return iface
}

// --- lookups -------------------------------------------------------------------------------------------------

export function findInterface(table: LinkTable, name: string): NetInterface | undefined {
  return table.interfaces.find((i) => i.name === name)
}

/** The dummy interface kube-proxy's IPVS mode binds Service VIPs to. */
export const KUBE_IPVS_DEVICE = 'kube-ipvs0'

/**
 * Service VIPs bound to kube-ipvs0, without prefix length; [] when the interface is absent. The IPv6 link-local
 * address the kernel may give the device is not a VIP and is left out.
 */
export function kubeIpvsAddresses(table: LinkTable): string[] {
  return findInterface(table, KUBE_IPVS_DEVICE)?.addresses.filter((a) => a.scope !== 'link').map((a) => a.local) ?? []
}

/** Calico's workload (pod veth) interface names: `cali` plus 11 hex characters of a hash. */
export function isCalicoWorkloadInterface(name: string): boolean {
  return /^cali[0-9a-f]{11}$/.test(name)
}

/** Calico's well-known devices on a node; each absent one is undefined. */
export function calicoInterfaces(table: LinkTable): {
  ipip?: NetInterface
  vxlan?: NetInterface
  vxlanV6?: NetInterface
  wireguard?: NetInterface
  workloads: NetInterface[]
} {
  const out: ReturnType<typeof calicoInterfaces> = {workloads: table.interfaces.filter((i) => isCalicoWorkloadInterface(i.name))}
  const ipip = findInterface(table, 'tunl0')
  if (ipip) out.ipip = ipip
  const vxlan = findInterface(table, 'vxlan.calico')
  if (vxlan) out.vxlan = vxlan
  const vxlanV6 = findInterface(table, 'vxlan-v6.calico')
  if (vxlanV6) out.vxlanV6 = vxlanV6
  const wg = findInterface(table, 'wireguard.cali')
  if (wg) out.wireguard = wg
  return out
}
