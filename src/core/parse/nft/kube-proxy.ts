// kube-proxy's nftables table summarised: one entry per service port with its addresses, node ports and endpoints.
import {type NftElement, type NftRuleset, type NftTable, findNftSet} from './model.js'

/** One service port as kube-proxy's nftables mode programs it. */
export interface KubeProxyNftService {
  /** `namespace/name/protocol/port` as in the chain names (kube-proxy may truncate long names). */
  name: string
  /** The `service-…` chain, when the service has endpoints. */
  chain?: string
  /** service-ips keys (`IP . proto . port`) that go to the service chain: ClusterIPs. */
  clusterIPs: string[]
  /** service-ips keys that go to the external chain: externalIPs and load-balancer IPs. */
  externalIPs: string[]
  /** service-nodeports keys (`proto . port`). */
  nodePorts: string[]
  /** Endpoint `address:port`s targeted from the service chain. */
  endpoints: string[]
  /** Set when no-endpoint-services/-nodeports reject or drop this service. */
  noEndpoints?: 'reject' | 'drop'
}

const SERVICE_CHAIN_RE = /^(service|external|local|firewall|cluster)-([A-Z0-9]{8})-(.+)$/

/**
 * Per-service view of a kube-proxy nftables table (`ip kube-proxy` / `ip6 kube-proxy`): which VIPs and node ports
 * lead to which endpoints, from the service-ips / service-nodeports / no-endpoint-* maps and the service chains.
 * Sorted by name.
 */
export function summarizeKubeProxyTable(table: NftTable): KubeProxyNftService[] {
  const services = new Map<string, KubeProxyNftService>()
  const get = (key: string, name: string): KubeProxyNftService => {
    let s = services.get(key)
    if (!s) {
      s = {name, clusterIPs: [], externalIPs: [], nodePorts: [], endpoints: []}
      services.set(key, s)
    }
    return s
  }
  for (const c of table.chains) {
    const m = SERVICE_CHAIN_RE.exec(c.name)
    if (!m || m[1] !== 'service') continue
    const s = get(`${m[2]}-${m[3]}`, m[3]!)
    s.chain = c.name
    const add = (ep: string | undefined) => {
      if (ep !== undefined && !s.endpoints.includes(ep)) s.endpoints.push(ep)
    }
    for (const r of c.rules) {
      for (const t of r.text.matchAll(/(?:goto|jump) (endpoint-[^\s,}]+)/g)) add(endpointAddress(t[1]!))
      // kube-proxy v1.36+: the service chain DNATs itself, through a numgen map or (v1.37, one endpoint) directly.
      const map = /\bdnat ip6? to numgen random mod \d+ map \{ (.*) \}$/.exec(r.text)
      if (map) for (const m of map[1]!.matchAll(/\d+ : (\S+) \. (\d+)/g)) add(m[1]!.includes(':') ? `[${m[1]}]:${m[2]}` : `${m[1]}:${m[2]}`)
      else add(/\bdnat (?:ip6? )?to (\S+)$/.exec(r.text)?.[1])
    }
  }
  const targetOf = (el: NftElement): RegExpExecArray | null => {
    const v = /^(?:goto|jump) (\S+)$/.exec(el.value ?? '')
    return v ? SERVICE_CHAIN_RE.exec(v[1]!) : null
  }
  for (const el of findNftSet(table, 'service-ips')?.elements ?? []) {
    const t = targetOf(el)
    if (!t) continue
    const s = get(`${t[2]}-${t[3]}`, t[3]!)
    ;(t[1] === 'external' || t[1] === 'firewall' ? s.externalIPs : s.clusterIPs).push(el.key)
  }
  for (const el of findNftSet(table, 'service-nodeports')?.elements ?? []) {
    const t = targetOf(el)
    if (t) get(`${t[2]}-${t[3]}`, t[3]!).nodePorts.push(el.key)
  }
  for (const mapName of ['no-endpoint-services', 'no-endpoint-nodeports']) {
    for (const el of findNftSet(table, mapName)?.elements ?? []) {
      // kube-proxy comments these elements with `namespace/name:port`.
      const name = el.comment ?? el.key
      const s = [...services.values()].find((x) => x.name === name) ?? get(`noep:${name}`, name)
      s.noEndpoints = /\b(drop)\b/.test(el.value ?? '') ? 'drop' : 'reject'
      ;(mapName === 'no-endpoint-services' ? s.clusterIPs : s.nodePorts).push(el.key)
    }
  }
  return [...services.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** `endpoint-HASH-ns/svc/tcp/p80__10.180.0.1/80` → `10.180.0.1:80` (IPv6 colons are dots in chain names). */
function endpointAddress(chain: string): string | undefined {
  const i = chain.lastIndexOf('__')
  if (i < 0) return undefined
  const tail = chain.slice(i + 2)
  const slash = tail.lastIndexOf('/')
  if (slash < 0) return tail
  const addr = tail.slice(0, slash)
  const port = tail.slice(slash + 1)
  if (/^\d+\.\d+\.\d+\.\d+$/.test(addr)) return `${addr}:${port}`
  return `[${addr.replace(/\./g, ':')}]:${port}`
}

/** Tables kube-proxy owns (`kube-proxy` in ip/ip6), in listing order. */
export function kubeProxyTables(rs: NftRuleset, tableName = 'kube-proxy'): NftTable[] {
  return rs.tables.filter((t) => t.name === tableName && (t.family === 'ip' || t.family === 'ip6'))
}
