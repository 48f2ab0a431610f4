// iptables-save's printing of the targets kube-proxy uses (libxt_MARK, REJECT, DNAT/SNAT, MASQUERADE, LOG); other
// targets keep their options verbatim.
import {canonicalHost} from '../net/inet.js'
import type {IpFamily} from '../net/ip.js'
import {type Opt, hex, last, parseMarkMask, parseUint32, splitOptions} from './canonical-options.js'
import {TARGET_OPTIONS, type RuleTarget} from './rule.js'

export function canonicalTargetOptions(t: RuleTarget, family: IpFamily): string[] {
  const opts = splitOptions(t.options, TARGET_OPTIONS[t.name])
  switch (t.name) {
    case 'MARK':
      return markTarget(opts)
    case 'REJECT':
      return rejectTarget(opts, family)
    case 'DNAT':
      return natTarget(opts, '--to-destination', family)
    case 'SNAT':
      return natTarget(opts, '--to-source', family)
    case 'MASQUERADE':
      return masqueradeTarget(opts)
    case 'LOG':
      return logTarget(opts)
    default:
      return [...t.options]
  }
}

function markTarget(opts: readonly Opt[]): string[] {
  const o = last(opts, '--set-xmark', '--set-mark', '--and-mark', '--or-mark', '--xor-mark')
  if (!o) return opts.flatMap((x) => [x.name, ...x.values])
  const v = o.values[0] ?? ''
  let mark: number
  let mask: number
  if (o.name === '--set-xmark' || o.name === '--set-mark') {
    const mm = parseMarkMask(v)
    if (!mm) return [o.name, v]
    mark = mm[0]
    mask = o.name === '--set-mark' ? (mm[0] | mm[1]) >>> 0 : mm[1]
  } else {
    const x = parseUint32(v)
    if (x === null) return [o.name, v]
    if (o.name === '--and-mark') [mark, mask] = [0, ~x >>> 0]
    else if (o.name === '--or-mark') [mark, mask] = [x, x]
    else [mark, mask] = [x, 0]
  }
  return ['--set-xmark', `${hex(mark)}/${hex(mask)}`]
}

// ---- targets ----

const REJECT4: Readonly<Record<string, string>> = {
  'icmp-net-unreachable': 'icmp-net-unreachable',
  'net-unreach': 'icmp-net-unreachable',
  'icmp-host-unreachable': 'icmp-host-unreachable',
  'host-unreach': 'icmp-host-unreachable',
  'icmp-proto-unreachable': 'icmp-proto-unreachable',
  'proto-unreach': 'icmp-proto-unreachable',
  'icmp-port-unreachable': 'icmp-port-unreachable',
  'port-unreach': 'icmp-port-unreachable',
  'icmp-net-prohibited': 'icmp-net-prohibited',
  'net-prohib': 'icmp-net-prohibited',
  'icmp-host-prohibited': 'icmp-host-prohibited',
  'host-prohib': 'icmp-host-prohibited',
  'tcp-reset': 'tcp-reset',
  'tcp-rst': 'tcp-reset',
  'icmp-admin-prohibited': 'icmp-admin-prohibited',
  'admin-prohib': 'icmp-admin-prohibited',
}
const REJECT6: Readonly<Record<string, string>> = {
  'icmp6-no-route': 'icmp6-no-route',
  'no-route': 'icmp6-no-route',
  'icmp6-adm-prohibited': 'icmp6-adm-prohibited',
  'adm-prohibited': 'icmp6-adm-prohibited',
  'icmp6-addr-unreachable': 'icmp6-addr-unreachable',
  'addr-unreach': 'icmp6-addr-unreachable',
  'icmp6-port-unreachable': 'icmp6-port-unreachable',
  'port-unreach': 'icmp6-port-unreachable',
  'tcp-reset': 'tcp-reset',
  'icmp6-policy-fail': 'icmp6-policy-fail',
  'policy-fail': 'icmp6-policy-fail',
  'icmp6-reject-route': 'icmp6-reject-route',
  'reject-route': 'icmp6-reject-route',
}

function rejectTarget(opts: readonly Opt[], family: IpFamily): string[] {
  const o = last(opts, '--reject-with')
  const table = family === 'ipv4' ? REJECT4 : REJECT6
  const v = o?.values[0]
  if (v === undefined) return ['--reject-with', family === 'ipv4' ? 'icmp-port-unreachable' : 'icmp6-port-unreachable']
  return ['--reject-with', table[v] ?? v]
}

/** `ip[-ip][:port[-port]]`, IPv6 addresses in brackets when ports follow; addresses printed canonically. */
function natRange(v: string, family: IpFamily): string {
  let addrPart = v
  let portPart: string | null = null
  if (family === 'ipv6') {
    const m = /^\[([^\]]*)\](?::(.*))?$/.exec(v)
    if (m) {
      addrPart = m[1] ?? ''
      portPart = m[2] ?? null
    }
  } else {
    const c = v.indexOf(':')
    if (c !== -1) {
      addrPart = v.slice(0, c)
      portPart = v.slice(c + 1)
    }
  }
  const addrs = addrPart === '' ? [] : addrPart.split('-').map((a) => canonicalHost(a, family) ?? a)
  let addrText = addrs.length === 2 && addrs[0] === addrs[1] ? (addrs[0] as string) : addrs.join('-')
  if (portPart !== null) {
    const ports = portPart.split('-')
    const portText = ports.length === 2 && ports[0] === ports[1] ? (ports[0] as string) : ports.join('-')
    if (family === 'ipv6' && addrText !== '') addrText = `[${addrText}]`
    return `${addrText}:${portText}`
  }
  return addrText
}

function natTarget(opts: readonly Opt[], rangeOpt: string, family: IpFamily): string[] {
  const out: string[] = []
  for (const o of opts) if (o.name === rangeOpt) out.push(rangeOpt, natRange(o.values[0] ?? '', family))
  for (const f of ['--random', '--random-fully', '--persistent']) if (last(opts, f)) out.push(f)
  for (const o of opts) if (![rangeOpt, '--random', '--random-fully', '--persistent'].includes(o.name)) out.push(o.name, ...o.values)
  return out
}

function masqueradeTarget(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const ports = last(opts, '--to-ports')
  if (ports) {
    const p = (ports.values[0] ?? '').split('-')
    out.push('--to-ports', p.length === 2 && p[0] === p[1] ? (p[0] as string) : p.join('-'))
  }
  if (last(opts, '--random')) out.push('--random')
  if (last(opts, '--random-fully')) out.push('--random-fully')
  return out
}

const LOG_LEVELS: Readonly<Record<string, number>> = {
  emerg: 0,
  alert: 1,
  crit: 2,
  error: 3,
  err: 3,
  warning: 4,
  warn: 4,
  notice: 5,
  info: 6,
  debug: 7,
}

function logTarget(opts: readonly Opt[]): string[] {
  const out: string[] = []
  const prefix = last(opts, '--log-prefix')
  if (prefix && (prefix.values[0] ?? '') !== '') out.push('--log-prefix', prefix.values[0] as string)
  const level = last(opts, '--log-level')
  if (level) {
    const v = level.values[0] ?? ''
    const n = /^\d+$/.test(v) ? Number(v) : LOG_LEVELS[v.toLowerCase()]
    if (n === undefined) out.push('--log-level', v)
    else if (n !== 4) out.push('--log-level', String(n))
  }
  for (const f of ['--log-tcp-sequence', '--log-tcp-options', '--log-ip-options', '--log-uid', '--log-macdecode']) {
    if (last(opts, f)) out.push(f)
  }
  return out
}
