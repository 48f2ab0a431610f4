// Host names and addresses that came from somewhere node-doctor does not control (a Node's status.addresses, which
// the node itself reports and the API server does not validate; a node name read from a bundle) are data. Before
// such a value is used to reach a node, or is put anywhere a shell or a person might run it, it must be an IP
// address or a DNS name, nothing else.
import ipaddr from 'ipaddr.js'

/** Why a value is not a usable host, or undefined when it is one. */
export function hostProblem(value: string): string | undefined {
  if (value === '') return 'it is empty'
  if (value.length > 253) return `it is ${value.length} characters long (a DNS name has at most 253)`
  if (isIpLiteral(value)) return undefined
  const bad = [...value].find((c) => !/[A-Za-z0-9.-]/.test(c))
  if (bad !== undefined) return `it contains ${describeChar(bad)}, which is neither in an IP address nor in a DNS name`
  const name = value.endsWith('.') ? value.slice(0, -1) : value
  for (const label of name.split('.')) {
    if (label === '') return 'it has an empty label (two dots in a row, or a leading dot)'
    if (label.length > 63) return `its label "${label.slice(0, 20)}…" is longer than 63 characters`
    if (label.startsWith('-') || label.endsWith('-')) return `its label "${label}" starts or ends with "-"`
  }
  return undefined
}

/** True for an IPv4 address in dotted-quad form or an IPv6 address (with an optional %zone of safe characters). */
export function isIpLiteral(value: string): boolean {
  const [addr, zone, ...rest] = value.split('%')
  if (rest.length > 0 || addr === undefined) return false
  if (zone !== undefined && !/^[A-Za-z0-9_.-]{1,15}$/.test(zone)) return false
  if (ipaddr.IPv4.isValidFourPartDecimal(addr)) return zone === undefined
  return addr.includes(':') && ipaddr.IPv6.isValid(addr)
}

/** The value when it is a usable host; otherwise throws an Error naming where it came from and why. */
export function requireHost(value: string, origin: string): string {
  const why = hostProblem(value)
  if (why !== undefined) throw new Error(`${origin} ${JSON.stringify(value)} is not an IP address or a DNS name: ${why}; refusing to use it`)
  return value
}

function describeChar(c: string): string {
  const code = c.codePointAt(0)!
  if (code < 0x20 || code === 0x7f) return `the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  if (c === ' ') return 'a space'
  return `"${c}"`
}
