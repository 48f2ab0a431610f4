// The save form: `ipvsadm -Sn`.
import {ParseError} from '../../../errors.js'
import type {InputLine} from '../sniff.js'
import {type IpvsFamily, type IpvsForward, type IpvsProtocol, type IpvsRealServer, type IpvsTable, type IpvsVirtualServer, ipvsServiceId} from './model.js'
import {parseAddrPort, parseInt32, parseNetmask, parseUint} from './values.js'

// Maps, not object literals: every token of every line is looked up, and a property lookup would internalise each
// address token (and find `toString` & co. on the prototype).
const SERVICE_OPTS = new Map<string, IpvsProtocol | 'fwmark'>([
  ['-t', 'tcp'],
  ['--tcp-service', 'tcp'],
  ['-u', 'udp'],
  ['--udp-service', 'udp'],
  ['--sctp-service', 'sctp'],
  ['-f', 'fwmark'],
  ['--fwmark-service', 'fwmark'],
])
const SAVE_FORWARDS = new Map<string, IpvsForward>([
  ['-m', 'masq'],
  ['--masquerading', 'masq'],
  ['-g', 'gatewaying'],
  ['--gatewaying', 'gatewaying'],
  ['-i', 'tunnel'],
  ['--ipip', 'tunnel'],
])

export function parseSave(lines: InputLine[], table: IpvsTable): void {
  const byId = new Map<string, IpvsVirtualServer>()
  // ipvsadm -S prints each service's -a lines right after its -A line: those need no id built and looked up.
  let last: IpvsVirtualServer | undefined
  for (const line of lines) {
    const trimmed = line.text.trim()
    if (trimmed === '' || trimmed.startsWith('#')) continue
    const tok = trimmed.split(/\s+/)
    const cmd = tok[0]
    const addService = cmd === '-A' || cmd === '--add-service'
    const addServer = cmd === '-a' || cmd === '--add-server'
    if (!addService && !addServer)
      throw new ParseError(`unexpected "${(cmd ?? '').slice(0, 30)}": every line of \`ipvsadm -Sn\` output starts with -A (service) or -a (real server)`, line.n)
    const svc = readSaveService(tok, line.n)
    if (addService) {
      const vs: IpvsVirtualServer = {
        id: '',
        protocol: svc.protocol,
        family: svc.family,
        schedulerFlags: [],
        onePacket: false,
        realServers: [],
        line: line.n,
      }
      if (svc.address !== undefined) vs.address = svc.address
      if (svc.port !== undefined) vs.port = svc.port
      if (svc.fwmark !== undefined) vs.fwmark = svc.fwmark
      vs.id = ipvsServiceId(vs)
      applyServiceOptions(svc.rest, vs, line.n)
      if (byId.has(vs.id)) throw new ParseError(`virtual service ${vs.id} is defined twice (first on line ${byId.get(vs.id)!.line})`, line.n)
      byId.set(vs.id, vs)
      table.virtualServers.push(vs)
      last = vs
    } else {
      let vs = last !== undefined && sameService(last, svc) ? last : undefined
      if (!vs) {
        const id = ipvsServiceId(svc)
        vs = byId.get(id)
        if (!vs) throw new ParseError(`real server for ${id}, which no earlier -A line defines`, line.n)
        last = vs
      }
      vs.realServers.push(readSaveRealServer(svc.rest, vs, line.n))
    }
  }
}

function sameService(vs: IpvsVirtualServer, svc: SaveService): boolean {
  return vs.protocol === svc.protocol && vs.family === svc.family && vs.address === svc.address && vs.port === svc.port && vs.fwmark === svc.fwmark
}

interface SaveService {
  protocol: IpvsProtocol | 'fwmark'
  family: IpvsFamily
  address?: string
  port?: number
  fwmark?: number
  /** Options other than the service address (and `-6`). */
  rest: string[]
}

function readSaveService(tok: string[], n: number): SaveService {
  let found: SaveService | undefined
  const rest: string[] = []
  let v6 = false
  for (let i = 1; i < tok.length; i++) {
    const t = tok[i]!
    const kind = SERVICE_OPTS.get(t)
    if (kind !== undefined) {
      if (found) throw new ParseError('more than one service address on one line', n)
      const value = tok[++i]
      if (value === undefined) throw new ParseError(`${t} needs a service address (the line is truncated)`, n)
      if (kind === 'fwmark') {
        found = {protocol: 'fwmark', family: 'ipv4', fwmark: parseUint(value, 'fwmark', n, 0xffffffff), rest}
      } else {
        const a = parseAddrPort(value, 'virtual service address', n)
        found = {protocol: kind, family: a.family, address: a.address, port: a.port, rest}
      }
    } else if (t === '-6' || t === '--ipv6') {
      v6 = true
    } else {
      rest.push(t)
    }
  }
  if (!found) throw new ParseError('no service address: expected -t, -u, --sctp-service or -f', n)
  if (v6) {
    if (found.protocol !== 'fwmark') throw new ParseError('-6 is only valid with an -f (fwmark) service', n)
    found.family = 'ipv6'
  }
  return found
}

function applyServiceOptions(opts: string[], vs: IpvsVirtualServer, n: number): void {
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i]!
    const value = (): string => {
      const v = opts[++i]
      if (v === undefined) throw new ParseError(`${o} needs a value (the line is truncated)`, n)
      return v
    }
    if (o === '-s' || o === '--scheduler') {
      const s = value()
      if (!/^[a-z][a-z0-9_-]*$/.test(s)) throw new ParseError(`invalid scheduler name "${s.slice(0, 30)}"`, n)
      vs.scheduler = s
    } else if (o === '-p' || o === '--persistent') {
      // `-p` takes an optional timeout; ipvsadm -S always prints one, but accept the bare form (default 300 s).
      const next = opts[i + 1]
      const timeout = next !== undefined && /^\d+$/.test(next) ? parseUint(opts[++i], 'persistence timeout', n) : 300
      vs.persistence = {...vs.persistence, timeoutSeconds: timeout}
    } else if (o === '-M' || o === '--netmask') {
      const m = parseNetmask(value(), vs.family, n)
      if (m !== undefined) vs.persistence = {timeoutSeconds: vs.persistence?.timeoutSeconds ?? 300, ...vs.persistence, netmask: m}
    } else if (o === '--pe') {
      const pe = value()
      vs.persistence = {timeoutSeconds: vs.persistence?.timeoutSeconds ?? 300, ...vs.persistence, engine: pe}
    } else if (o === '-o' || o === '--ops' || o === 'ops') {
      vs.onePacket = true
    } else if (o === '-b' || o === '--sched-flags') {
      vs.schedulerFlags = value().split(',').filter((x) => x !== '')
    } else {
      throw new ParseError(`unknown option "${o.slice(0, 30)}" for a virtual service`, n)
    }
  }
  if (vs.scheduler === undefined) vs.scheduler = 'wlc' // ipvsadm's default when -s is omitted
}

function readSaveRealServer(opts: string[], vs: IpvsVirtualServer, n: number): IpvsRealServer {
  let addr: ReturnType<typeof parseAddrPort> | undefined
  let forward: IpvsForward | undefined
  let weight: number | undefined
  let tunnel: string[] | undefined
  let upper: number | undefined
  let lower: number | undefined
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i]!
    const fwd = SAVE_FORWARDS.get(o)
    if (fwd !== undefined) {
      forward = fwd
      continue
    }
    if (o === '--tun-nocsum' || o === '--tun-csum' || o === '--tun-remcsum') {
      ;(tunnel ??= []).push(o)
      continue
    }
    const v = opts[++i]
    if (o === '-r' || o === '--real-server') addr = parseAddrPort(optionValue(o, v, n), 'real server address', n)
    else if (o === '-w' || o === '--weight') weight = parseInt32(optionValue(o, v, n), 'weight', n)
    else if (o === '-x' || o === '--u-threshold') upper = parseUint(optionValue(o, v, n), 'upper threshold', n)
    else if (o === '-y' || o === '--l-threshold') lower = parseUint(optionValue(o, v, n), 'lower threshold', n)
    else if (o === '--tun-type' || o === '--tun-port') (tunnel ??= []).push(`${o} ${optionValue(o, v, n)}`)
    else throw new ParseError(`unknown option "${o.slice(0, 30)}" for a real server`, n)
  }
  if (!addr) throw new ParseError(`real server line for ${vs.id} has no -r address`, n)
  // In RS_KEYS order, so that parseIpvsadm need not copy it (unless a threshold or tunnel option follows).
  const rs: IpvsRealServer = {address: addr.address, port: addr.port, family: addr.family, forward: forward ?? 'gatewaying', weight: weight ?? 1, line: n}
  if (upper !== undefined) rs.upperThreshold = upper
  if (lower !== undefined) rs.lowerThreshold = lower
  if (tunnel !== undefined) rs.tunnel = tunnel.join(' ')
  return rs
}

function optionValue(option: string, value: string | undefined, n: number): string {
  if (value === undefined) throw new ParseError(`${option} needs a value (the line is truncated)`, n)
  return value
}
