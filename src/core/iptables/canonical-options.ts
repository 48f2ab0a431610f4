// Option lists of iptables matches and targets as the canonicalisers read them: `{neg, name, values}` entries,
// later-option-wins lookup, and the xtables number forms (strtoul, mark/mask) shared by the mark match and target, and protocol names.

// Names iptables-save prints for protocol numbers (getprotobynumber on a Debian /etc/protocols).
const PROTOCOL_NAMES: Readonly<Record<string, string>> = {
  '0': 'all',
  '1': 'icmp',
  '2': 'igmp',
  '4': 'ipencap',
  '6': 'tcp',
  '17': 'udp',
  '33': 'dccp',
  '41': 'ipv6',
  '47': 'gre',
  '50': 'esp',
  '51': 'ah',
  '58': 'ipv6-icmp',
  '132': 'sctp',
  '136': 'udplite',
}
const PROTOCOL_ALIASES: Readonly<Record<string, string>> = {icmpv6: 'ipv6-icmp'}
export const PROTOCOL_NUMBERS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(PROTOCOL_NAMES).map(([num, name]) => [name, Number(num)]),
)

export function protocolName(p: string): string {
  const l = p.toLowerCase()
  if (/^\d+$/.test(l)) return PROTOCOL_NAMES[String(Number(l))] ?? String(Number(l))
  return PROTOCOL_ALIASES[l] ?? l
}

/** Splits a module's option tokens into `{neg, name, values}` entries. */
export interface Opt {
  neg: boolean
  name: string
  values: string[]
}

export function splitOptions(options: readonly string[], table: Readonly<Record<string, number>> | undefined): Opt[] {
  const out: Opt[] = []
  let neg = false
  for (let i = 0; i < options.length; i++) {
    const t = options[i] as string
    if (t === '!') {
      neg = true
      continue
    }
    const arity = table?.[t]
    if (arity !== undefined) {
      out.push({neg, name: t, values: options.slice(i + 1, i + 1 + arity)})
      i += arity
      neg = false
    } else if (t.startsWith('--') || out.length === 0) {
      out.push({neg, name: t, values: []})
      neg = false
    } else (out[out.length - 1] as Opt).values.push(t)
  }
  return out
}

/** The last occurrence of any of `names`, like iptables' later-option-wins for repeated flags. */
export function last(opts: readonly Opt[], ...names: string[]): Opt | undefined {
  for (let i = opts.length - 1; i >= 0; i--) if (names.includes((opts[i] as Opt).name)) return opts[i]
  return undefined
}

export function emit(out: string[], o: Opt | undefined, name: string, ...values: string[]): void {
  if (!o) return
  if (o.neg) out.push('!')
  out.push(name, ...values)
}

/** strtoul(s, 0) as xtables_strtoui uses it: 0x hex, leading-0 octal, else decimal; null when invalid. */
export function parseUint32(s: string): number | null {
  let v: number
  if (/^0[xX][0-9a-fA-F]+$/.test(s)) v = parseInt(s.slice(2), 16)
  else if (/^0[0-7]*$/.test(s)) v = parseInt(s, 8)
  else if (/^[1-9]\d*$/.test(s)) v = parseInt(s, 10)
  else return null
  return v <= 0xffffffff ? v : null
}

export function hex(v: number): string {
  return '0x' + (v >>> 0).toString(16)
}

export function parseMarkMask(v: string): [number, number] | null {
  const [a, b] = v.split('/')
  const mark = parseUint32(a ?? '')
  const mask = b === undefined ? 0xffffffff : parseUint32(b)
  return mark === null || mask === null ? null : [mark, mask]
}
