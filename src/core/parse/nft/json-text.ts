// nft JSON expressions and statements → nft's text syntax, so both listings give the same rule text; an expression
// the renderer does not know is shown in brackets and the rule flagged `textIncomplete`.
import {ParseError} from '../../../errors.js'
import type {NftFamily} from './model.js'
import {formatNftTime} from './text.js'

export type Json = unknown
export type JsonObject = Record<string, unknown>

export function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

export interface RenderCtx {
  family: NftFamily
  /** Shared by every derived context of one rule or element (copies keep the reference). */
  state: {incomplete: boolean; line: number}
  /** Print numbers as 0x%08x (marks). */
  hex?: boolean
  /** Quote strings (interface names). */
  quoteStrings?: boolean
}

const MAX_DEPTH = 48
const UNQUALIFIED_META = new Set(['iif', 'oif', 'iifname', 'oifname', 'iifgroup', 'oifgroup'])
const NAME_KEYS = new Set(['iifname', 'oifname', 'ibrname', 'obrname', 'ibriport', 'obriport', 'iifkind', 'oifkind'])
const VERDICTS = new Set(['accept', 'drop', 'continue', 'return', 'queue'])
const DEFAULT_REJECT: Record<NftFamily, string> = {ip: 'icmp', ip6: 'icmpv6', inet: 'icmpx', bridge: 'icmpx', netdev: 'icmpx', arp: 'icmp'}
const BITMASK_LEFTS = new Set(['tcp flags', 'ct state', 'ct status'])

export function quote(s: string): string {
  return `"${s.replace(/(["\\])/g, '\\$1')}"`
}

function hex32(v: number): string {
  return `0x${(v >>> 0).toString(16).padStart(8, '0')}`
}

function unknown(kind: string, body: Json, ctx: RenderCtx): string {
  ctx.state.incomplete = true
  let s = JSON.stringify(body) ?? 'null'
  if (s.length > 120) s = s.slice(0, 117) + '...'
  return `[${kind} ${s}]`
}

/** A value whose datatype is known from a set declaration (one type per concat member). */
export function renderTyped(v: Json, types: string[], ctx: RenderCtx, depth: number): string {
  if (isObject(v) && Array.isArray(v.concat)) {
    return v.concat.map((m, i) => renderTyped(m, [types[i] ?? ''], ctx, depth + 1)).join(' . ')
  }
  const t = types[0] ?? ''
  return renderValue(v, {...ctx, hex: t === 'mark' || t === 'ct_mark', quoteStrings: t === 'ifname'}, depth, ctx)
}

export function renderStatement(st: Json, ctx: RenderCtx, depth: number): string {
  if (depth > MAX_DEPTH) throw new ParseError('nft JSON expression nested too deeply', ctx.state.line)
  if (!isObject(st)) return unknown('statement', st, ctx)
  const [kind] = Object.keys(st)
  if (kind === undefined) return unknown('statement', st, ctx)
  const b = st[kind]
  const o = isObject(b) ? b : {}
  switch (kind) {
    case 'match':
      return renderMatch(o, ctx, depth)
    case 'accept':
    case 'drop':
    case 'continue':
    case 'return':
      return kind
    case 'jump':
    case 'goto':
      return typeof o.target === 'string' ? `${kind} ${o.target}` : unknown(kind, b, ctx)
    case 'counter':
      if (typeof b === 'string') return `counter name ${quote(b)}`
      if (b === null) return 'counter'
      return `counter packets ${Number(o.packets ?? 0)} bytes ${Number(o.bytes ?? 0)}`
    case 'quota':
      if (typeof b === 'string') return `quota name ${quote(b)}`
      return unknown(kind, b, ctx)
    case 'mangle': {
      const key = renderExpr(o.key, ctx, depth + 1)
      const sub = {...ctx, hex: isMarkish(o.key)}
      const value = renderValue(o.value, sub, depth + 1, ctx)
      return `${key} set ${value}`
    }
    case 'masquerade':
    case 'snat':
    case 'dnat':
    case 'redirect':
      return renderNat(kind, o, ctx, depth)
    case 'reject': {
      if (b === null || (o.expr === 'port-unreachable' && o.type === DEFAULT_REJECT[ctx.family])) return 'reject'
      if (o.type === 'tcp reset') return 'reject with tcp reset'
      if (typeof o.type === 'string' && typeof o.expr === 'string') return `reject with ${o.type} ${o.expr}`
      return unknown(kind, b, ctx)
    }
    case 'log': {
      const parts = ['log']
      if (typeof o.prefix === 'string') parts.push(`prefix ${quote(o.prefix)}`)
      if (typeof o.level === 'string') parts.push(`level ${o.level}`)
      if (typeof o.group === 'number') parts.push(`group ${o.group}`)
      if (typeof o.snaplen === 'number') parts.push(`snaplen ${o.snaplen}`)
      if (typeof o['queue-threshold'] === 'number') parts.push(`queue-threshold ${o['queue-threshold']}`)
      if (Array.isArray(o.flags)) parts.push(`flags ${o.flags.join(',')}`)
      else if (typeof o.flags === 'string') parts.push(`flags ${o.flags}`)
      return parts.join(' ')
    }
    case 'limit': {
      const unit = typeof o.rate_unit === 'string' && o.rate_unit !== 'packets' ? ` ${o.rate_unit}` : ''
      let s = `limit rate ${o.inv === true ? 'over ' : ''}${Number(o.rate ?? 0)}${unit}/${String(o.per ?? 'second')}`
      const burst = typeof o.burst === 'number' ? o.burst : 0
      if (unit === '' && burst !== 5 && burst !== 0) s += ` burst ${burst} packets`
      else if (unit !== '' && burst > 0) s += ` burst ${burst}${typeof o.burst_unit === 'string' ? ` ${o.burst_unit}` : ' bytes'}`
      return s
    }
    case 'set': {
      // Dynamic set update: `update @s { ip saddr timeout 10s }`.
      if (typeof o.op === 'string' && typeof o.set === 'string') return `${o.op} ${o.set} { ${renderValue(o.elem, ctx, depth + 1, ctx)} }`
      return unknown(kind, b, ctx)
    }
    case 'notrack':
      return 'notrack'
    case 'vmap':
    case 'map':
      return `${renderExpr(o.key, ctx, depth + 1)} ${kind} ${renderValue(o.data, ctx, depth + 1, ctx)}`
    default:
      return unknown(kind, b, ctx)
  }
}

function renderNat(kind: string, o: JsonObject, ctx: RenderCtx, depth: number): string {
  const parts = [kind]
  if ((kind === 'snat' || kind === 'dnat') && typeof o.family === 'string') parts.push(o.family)
  const addr = o.addr === undefined ? undefined : renderValue(o.addr, ctx, depth + 1, ctx)
  const port = o.port === undefined ? undefined : renderValue(o.port, ctx, depth + 1, ctx)
  if (addr !== undefined || port !== undefined) {
    const a = addr === undefined ? '' : port !== undefined && addr.includes(':') && !addr.startsWith('[') ? `[${addr}]` : addr
    parts.push(`to ${a}${port === undefined ? '' : `:${port}`}`)
  }
  if (Array.isArray(o.flags)) parts.push(o.flags.join(','))
  else if (typeof o.flags === 'string') parts.push(o.flags)
  return parts.join(' ')
}

function renderMatch(o: JsonObject, ctx: RenderCtx, depth: number): string {
  const op = typeof o.op === 'string' ? o.op : '=='
  const left = o.left
  const sub: RenderCtx = {...ctx, hex: isMarkish(left), quoteStrings: isNameKey(left)}
  // `tcp flags & (syn|ack) == syn` prints as `tcp flags syn / syn,ack`.
  if (op === '==' && isObject(left) && Array.isArray(left['&']) && BITMASK_LEFTS.has(renderExpr(left['&'][0], ctx, depth + 1))) {
    const [inner, mask] = left['&'] as [Json, Json]
    return `${renderExpr(inner, ctx, depth + 1)} ${renderValue(o.right, sub, depth + 1, ctx)} / ${renderValue(mask, sub, depth + 1, ctx)}`
  }
  const l = renderExpr(left, sub, depth + 1)
  let r = renderValue(o.right, sub, depth + 1, ctx)
  if (isObject(left) && isObject(left.fib) && typeof o.right === 'boolean') r = o.right ? 'exists' : 'missing'
  let opText = ''
  if (op === '==') opText = isBinop(left) || BITMASK_LEFTS.has(l) ? '== ' : ''
  else if (op !== 'in') opText = `${op} `
  return `${l} ${opText}${r}`
}

function isBinop(e: Json): boolean {
  return isObject(e) && ['&', '|', '^', '<<', '>>'].some((k) => k in e)
}

function isMarkish(e: Json): boolean {
  if (!isObject(e)) return false
  if (isObject(e.meta) && e.meta.key === 'mark') return true
  if (isObject(e.ct) && e.ct.key === 'mark') return true
  for (const k of ['&', '|', '^']) if (Array.isArray(e[k])) return isMarkish((e[k] as Json[])[0])
  return false
}

function isNameKey(e: Json): boolean {
  return isObject(e) && isObject(e.meta) && typeof e.meta.key === 'string' && NAME_KEYS.has(e.meta.key)
}

/** Left-hand (selector) expressions. */
function renderExpr(e: Json, ctx: RenderCtx, depth: number): string {
  if (depth > MAX_DEPTH) throw new ParseError('nft JSON expression nested too deeply', ctx.state.line)
  if (!isObject(e)) return renderValue(e, ctx, depth, ctx)
  const [kind] = Object.keys(e)
  if (kind === undefined) return unknown('expression', e, ctx)
  const b = e[kind]
  const o = isObject(b) ? b : {}
  switch (kind) {
    case 'payload':
      if (typeof o.protocol === 'string' && typeof o.field === 'string') return `${o.protocol} ${o.field}`
      if (typeof o.base === 'string') return `@${o.base},${Number(o.offset)},${Number(o.len)}`
      return unknown(kind, b, ctx)
    case 'meta':
      if (typeof o.key !== 'string') return unknown(kind, b, ctx)
      return UNQUALIFIED_META.has(o.key) ? o.key : `meta ${o.key}`
    case 'ct': {
      if (typeof o.key !== 'string') return unknown(kind, b, ctx)
      const dir = typeof o.dir === 'string' ? `${o.dir} ` : ''
      const fam = typeof o.family === 'string' ? `${o.family} ` : ''
      return `ct ${dir}${fam}${o.key}`
    }
    case 'fib': {
      const flags = Array.isArray(o.flags) ? o.flags.join(' . ') : typeof o.flags === 'string' ? o.flags : ''
      return `fib ${flags} ${String(o.result)}`
    }
    case 'numgen':
      return `numgen ${String(o.mode)} mod ${Number(o.mod)}${typeof o.offset === 'number' && o.offset !== 0 ? ` offset ${o.offset}` : ''}`
    case 'jhash':
    case 'symhash': {
      let s = kind === 'jhash' ? `jhash ${renderExpr(o.expr, ctx, depth + 1)} mod ${Number(o.mod)}` : `symhash mod ${Number(o.mod)}`
      if (typeof o.seed === 'number') s += ` seed ${'0x' + (o.seed >>> 0).toString(16)}`
      if (typeof o.offset === 'number' && o.offset !== 0) s += ` offset ${o.offset}`
      return s
    }
    case 'tcp option':
      return typeof o.name === 'string' ? `tcp option ${o.name}${typeof o.field === 'string' ? ` ${o.field}` : ''}` : unknown(kind, b, ctx)
    case 'exthdr':
      return typeof o.name === 'string' ? `${o.name}${typeof o.field === 'string' ? ` ${o.field}` : ''}` : unknown(kind, b, ctx)
    case 'rt':
      return typeof o.key === 'string' ? `rt ${typeof o.family === 'string' ? `${o.family} ` : ''}${o.key}` : unknown(kind, b, ctx)
    case 'socket':
      return typeof o.key === 'string' ? `socket ${o.key}` : unknown(kind, b, ctx)
    case 'concat':
      return Array.isArray(b) ? b.map((m) => renderExpr(m, ctx, depth + 1)).join(' . ') : unknown(kind, b, ctx)
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>': {
      if (!Array.isArray(b) || b.length !== 2) return unknown(kind, b, ctx)
      const sub = {...ctx, hex: ctx.hex || isMarkish(b[0])}
      return `${renderExpr(b[0], sub, depth + 1)} ${kind} ${renderValue(b[1], sub, depth + 1, ctx)}`
    }
    default:
      return renderValue(e, ctx, depth, ctx)
  }
}

/** Right-hand values: literals, set references, anonymous sets, prefixes, ranges, verdicts. */
function renderValue(v: Json, ctx: RenderCtx, depth: number, root: RenderCtx): string {
  if (depth > MAX_DEPTH) throw new ParseError('nft JSON expression nested too deeply', ctx.state.line)
  if (typeof v === 'number') return ctx.hex ? hex32(v) : String(v)
  if (typeof v === 'boolean') return v ? 'exists' : 'missing'
  if (typeof v === 'string') return ctx.quoteStrings && !v.startsWith('@') ? quote(v) : v
  if (Array.isArray(v)) return v.map((x) => renderValue(x, ctx, depth + 1, root)).join(',')
  if (!isObject(v)) return unknown('value', v, root)
  const [kind] = Object.keys(v)
  if (kind === undefined) return unknown('value', v, root)
  const b = v[kind]
  const o = isObject(b) ? b : {}
  if (VERDICTS.has(kind) && (b === null || isObject(b))) return kind
  switch (kind) {
    case 'jump':
    case 'goto':
      return typeof o.target === 'string' ? `${kind} ${o.target}` : unknown(kind, b, root)
    case 'prefix':
      return `${renderValue(o.addr, ctx, depth + 1, root)}/${Number(o.len)}`
    case 'range':
      return Array.isArray(b) && b.length === 2 ? `${renderValue(b[0], ctx, depth + 1, root)}-${renderValue(b[1], ctx, depth + 1, root)}` : unknown(kind, b, root)
    case 'concat':
      return Array.isArray(b) ? b.map((m) => renderValue(m, ctx, depth + 1, root)).join(' . ') : unknown(kind, b, root)
    case 'set':
      if (!Array.isArray(b)) return renderValue(b, ctx, depth + 1, root)
      return `{ ${b.map((m) => (Array.isArray(m) && m.length === 2 ? `${renderValue(m[0], ctx, depth + 1, root)} : ${renderValue(m[1], {...ctx, hex: false}, depth + 1, root)}` : renderValue(m, ctx, depth + 1, root))).join(', ')} }`
    case 'map':
      // A map lookup as a value: `dnat ip to numgen random mod 2 map { 0 : 10.0.0.1 . 80, … }` (kube-proxy v1.36+).
      return `${renderExpr(o.key, root, depth + 1)} map ${renderValue(o.data, ctx, depth + 1, root)}`
    case 'elem': {
      let s = renderValue(o.val, ctx, depth + 1, root)
      if (typeof o.timeout === 'number') s += ` timeout ${formatNftTime(o.timeout)}`
      if (typeof o.expires === 'number') s += ` expires ${formatNftTime(o.expires)}`
      if (typeof o.comment === 'string') s += ` comment ${quote(o.comment)}`
      return s
    }
    default:
      return renderExpr(v, root, depth + 1)
  }
}
