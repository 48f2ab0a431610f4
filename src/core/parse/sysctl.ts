// Kernel parameters from `sysctl -a` (or `sysctl key ...`, /etc/sysctl.d files): `key = value` lines, and the
// keys that matter for kubelet, kube-proxy and CNI health with the values their owners set or need.
import type {ConfigIssue} from './component-config.js'

export interface SysctlEntry {
  key: string
  /** Whitespace-normalised value (`4096 131072 6291456`). */
  value: string
  line: number
}

export interface Sysctls {
  values: Record<string, SysctlEntry>
  issues: ConfigIssue[]
}

/** `net/ipv4/ip_forward` → `net.ipv4.ip_forward` (keys under /proc/sys are written with slashes). */
export function normalizeSysctlKey(key: string): string {
  const k = key.trim().replace(/^\/proc\/sys\//, '')
  return k.includes('/') ? k.replaceAll('/', '.') : k
}

/**
 * Parses sysctl output or sysctl.conf text, and `grep -H . /proc/sys/...` lines (`PATH:VALUE`). Lines sysctl prints for unreadable keys ("sysctl: permission denied
 * on key ...") become info issues; other lines that are not `key = value` become warnings. Later lines win.
 */
export function parseSysctl(text: string, options: {source?: string} = {}): Sysctls {
  const out: Sysctls = {values: Object.create(null) as Record<string, SysctlEntry>, issues: []}
  const src = options.source === undefined ? {} : {source: options.source}
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return
    if (line.startsWith('sysctl:')) {
      out.issues.push({severity: 'info', code: 'sysctl-unreadable', ...src, line: i + 1, message: line})
      return
    }
    // `grep -H . /proc/sys/...` prints `PATH:VALUE` (interface names never contain ':', the kernel refuses them).
    // A sysctl.conf line may also name its key as a /proc/sys path (`/proc/sys/vm/overcommit_memory = 1`).
    const eqAt = line.indexOf('=')
    const colonAt = line.indexOf(':')
    if (line.startsWith('/proc/sys/') && !(eqAt !== -1 && (colonAt === -1 || eqAt < colonAt))) {
      const colon = colonAt
      const path = colon === -1 ? '' : line.slice(0, colon)
      if (colon === -1 || /\s/.test(path)) {
        out.issues.push({severity: 'warning', code: 'sysctl-syntax', ...src, line: i + 1, message: `not a "PATH:VALUE" line: ${line.slice(0, 80)}`})
        return
      }
      const key = normalizeSysctlKey(path)
      out.values[key] = {key, value: line.slice(colon + 1).trim().replace(/\s+/g, ' '), line: i + 1}
      return
    }
    const eq = line.indexOf('=')
    if (eq === -1) {
      out.issues.push({severity: 'warning', code: 'sysctl-syntax', ...src, line: i + 1, message: `not a "key = value" line: ${line.slice(0, 80)}`})
      return
    }
    // A leading "-" in sysctl.d means "ignore errors for this key".
    const key = normalizeSysctlKey(line.slice(0, eq).replace(/^-/, ''))
    if (!/^[A-Za-z0-9_.\-*:@]+$/.test(key)) {
      out.issues.push({severity: 'warning', code: 'sysctl-syntax', ...src, line: i + 1, message: `invalid key ${JSON.stringify(key)}`})
      return
    }
    out.values[key] = {key, value: line.slice(eq + 1).trim().replace(/\s+/g, ' '), line: i + 1}
  })
  return out
}

export function sysctlValue(s: Sysctls, key: string): string | undefined {
  const k = normalizeSysctlKey(key)
  return Object.hasOwn(s.values, k) ? s.values[k]?.value : undefined
}

/** When a key matters. */
export type SysctlContext = 'node' | 'ipv6' | 'iptables' | 'ipvs' | 'ipvs-strict-arp' | 'conntrack' | 'protect-kernel-defaults'

export interface RelevantSysctl {
  key: string
  /** The value that is needed or that the owner sets; undefined when any value is informative. */
  expected?: string
  when: SysctlContext
  /** Who sets it, when it is not the administrator. */
  setBy?: string
  why: string
}

/** Keys node-doctor reads, with the values Kubernetes components set or need (node-state.md A.7, C.1, E.4). */
export const RELEVANT_SYSCTLS: readonly RelevantSysctl[] = [
  {key: 'net.ipv4.ip_forward', expected: '1', when: 'node', setBy: 'kube-proxy (ipvs), CNI plugins, kubeadm preflight checks it', why: 'without forwarding the node drops pod and service traffic it should route'},
  {key: 'net.ipv6.conf.all.forwarding', expected: '1', when: 'ipv6', why: 'IPv6 and dual-stack pod traffic needs forwarding'},
  {key: 'net.bridge.bridge-nf-call-iptables', expected: '1', when: 'node', setBy: 'administrator (needs br_netfilter loaded)', why: 'bridged pod-to-service traffic bypasses kube-proxy rules without it (bridge-based CNIs)'},
  {key: 'net.bridge.bridge-nf-call-ip6tables', expected: '1', when: 'ipv6', setBy: 'administrator (needs br_netfilter loaded)', why: 'the IPv6 equivalent of bridge-nf-call-iptables'},
  {key: 'net.ipv4.conf.all.route_localnet', expected: '1', when: 'iptables', setBy: 'kube-proxy (iptables mode, iptables.localhostNodePorts: true)', why: 'NodePorts on 127.0.0.1 only work with it'},
  {key: 'net.netfilter.nf_conntrack_max', when: 'conntrack', setBy: 'kube-proxy (max(conntrack.maxPerCore × CPUs, conntrack.min))', why: 'a full conntrack table drops new connections ("nf_conntrack: table full")'},
  {key: 'net.netfilter.nf_conntrack_tcp_timeout_established', expected: '86400', when: 'conntrack', setBy: 'kube-proxy (conntrack.tcpEstablishedTimeout, default 24h)', why: 'long timeouts keep dead entries; short ones break idle connections'},
  {key: 'net.netfilter.nf_conntrack_tcp_timeout_close_wait', expected: '3600', when: 'conntrack', setBy: 'kube-proxy (conntrack.tcpCloseWaitTimeout, default 1h)', why: 'see kubernetes/kubernetes#32551'},
  {key: 'net.netfilter.nf_conntrack_tcp_be_liberal', when: 'conntrack', setBy: 'kube-proxy only when conntrack.tcpBeLiberal is true', why: 'with 0, out-of-window TCP packets are INVALID and dropped; some setups need 1'},
  {key: 'net.ipv4.vs.conntrack', expected: '1', when: 'ipvs', setBy: 'kube-proxy (ipvs)', why: 'SNAT/MASQUERADE of IPVS traffic needs it'},
  {key: 'net.ipv4.vs.conn_reuse_mode', expected: '0', when: 'ipvs', setBy: 'kube-proxy (ipvs), only on kernels before ~5.9', why: 'works around 1-second delays on connection reuse on old kernels'},
  {key: 'net.ipv4.vs.expire_nodest_conn', expected: '1', when: 'ipvs', setBy: 'kube-proxy (ipvs)', why: 'drops connections to removed real servers instead of black-holing them'},
  {key: 'net.ipv4.vs.expire_quiescent_template', expected: '1', when: 'ipvs', setBy: 'kube-proxy (ipvs)', why: 'expires persistence templates of weight-0 real servers'},
  {key: 'net.ipv4.conf.all.arp_ignore', expected: '1', when: 'ipvs-strict-arp', setBy: 'kube-proxy (ipvs.strictARP: true)', why: 'stops the node answering ARP for VIPs on kube-ipvs0 (MetalLB/kube-vip L2)'},
  {key: 'net.ipv4.conf.all.arp_announce', expected: '2', when: 'ipvs-strict-arp', setBy: 'kube-proxy (ipvs.strictARP: true)', why: 'see arp_ignore'},
  {key: 'vm.overcommit_memory', expected: '1', when: 'protect-kernel-defaults', setBy: 'administrator', why: 'the kubelet with protectKernelDefaults: true refuses to start otherwise'},
  {key: 'vm.panic_on_oom', expected: '0', when: 'protect-kernel-defaults', setBy: 'administrator', why: 'the kubelet with protectKernelDefaults: true refuses to start otherwise'},
  {key: 'kernel.panic', expected: '10', when: 'protect-kernel-defaults', setBy: 'administrator', why: 'the kubelet with protectKernelDefaults: true refuses to start otherwise'},
  {key: 'kernel.panic_on_oops', expected: '1', when: 'protect-kernel-defaults', setBy: 'administrator', why: 'the kubelet with protectKernelDefaults: true refuses to start otherwise'},
  {key: 'kernel.keys.root_maxkeys', expected: '1000000', when: 'protect-kernel-defaults', setBy: 'administrator', why: 'the kubelet with protectKernelDefaults: true refuses to start otherwise'},
  {key: 'kernel.keys.root_maxbytes', expected: '25000000', when: 'protect-kernel-defaults', setBy: 'administrator', why: 'the kubelet with protectKernelDefaults: true refuses to start otherwise'},
]

/** The relevant keys whose value differs from `expected`, for the given contexts. Absent keys are reported too. */
export function sysctlMismatches(s: Sysctls, contexts: readonly SysctlContext[]): Array<RelevantSysctl & {actual?: string}> {
  return RELEVANT_SYSCTLS.filter((r) => contexts.includes(r.when) && r.expected !== undefined).flatMap((r) => {
    const actual = sysctlValue(s, r.key)
    if (actual === r.expected) return []
    return actual === undefined ? [{...r}] : [{...r, actual}]
  })
}

/** Reverse-path filter modes (ip-sysctl.rst, rp_filter): 0 off, 1 strict (RFC 3704), 2 loose. */
export type RpFilterMode = 0 | 1 | 2

export interface RpFilterTable {
  /** net.ipv4.conf.all.rp_filter, when read. */
  all?: RpFilterMode
  /** Per interface (`default` and `all` excluded), by name. */
  interfaces: Map<string, RpFilterMode>
}

const RP_PREFIX = 'net.ipv4.conf.'
const RP_SUFFIX = '.rp_filter'

/** The rp_filter values the output carries (sysctl `net.ipv4.conf.X.rp_filter` or /proc/sys paths); others ignored. */
export function rpFilterTable(s: Sysctls): RpFilterTable {
  const out: RpFilterTable = {interfaces: new Map()}
  for (const {key, value} of Object.values(s.values)) {
    if (!key.startsWith(RP_PREFIX) || !key.endsWith(RP_SUFFIX)) continue
    const name = key.slice(RP_PREFIX.length, -RP_SUFFIX.length)
    const n = Number(value)
    if (name === '' || !(n === 0 || n === 1 || n === 2)) continue
    if (name === 'all') out.all = n
    else if (name !== 'default') out.interfaces.set(name, n)
  }
  return out
}

/**
 * The mode the kernel applies on `iface`: the larger of conf/all and conf/<iface> ("The max value from
 * conf/{all,interface}/rp_filter is used when doing source validation on the {interface}", ip-sysctl.rst; the kernel's
 * IN_DEV_RPFILTER is IN_DEV_MAXCONF). Undefined when either value is unknown.
 */
export function effectiveRpFilter(t: RpFilterTable, iface: string): RpFilterMode | undefined {
  const own = t.interfaces.get(iface)
  if (own === undefined || t.all === undefined) return undefined
  return Math.max(own, t.all) as RpFilterMode
}
