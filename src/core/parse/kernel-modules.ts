// Loaded kernel modules from /proc/modules or `lsmod`, and the modules each kube-proxy mode relies on.
// A module missing from these lists may still be built into the kernel (modules.builtin) or autoloaded on
// first use, so absence is evidence, not proof.
import {ParseError} from '../../errors.js'

export interface KernelModule {
  name: string
  size?: number
  /** Reference count ("Used by" number). */
  refCount?: number
  /** Modules that use this one. */
  usedBy: string[]
  /** /proc/modules only: Live, Loading, Unloading. */
  state?: string
  /** /proc/modules only: taint flags such as (O), (OE). */
  taints?: string
  line: number
}

export interface KernelModules {
  format: 'proc-modules' | 'lsmod' | 'modules-builtin'
  modules: Record<string, KernelModule>
}

/** Modules by purpose (node-state.md A.8, B.2; kubeadm preflight). */
export const KERNEL_MODULES_BY_MODE = {
  /** IPVS proxier: the core module, the default schedulers and conntrack (nf_conntrack_ipv4 before kernel 4.19). */
  ipvs: ['ip_vs', 'ip_vs_rr', 'ip_vs_wrr', 'ip_vs_sh', 'nf_conntrack'],
  /** nftables proxier: nf_tables and the fib expressions it uses for `fib saddr type local`. */
  nftables: ['nf_tables', 'nft_fib', 'nft_fib_ipv4'],
  iptables: ['nf_conntrack'],
  /** Any node: bridge netfilter (for net.bridge.bridge-nf-call-iptables) and overlayfs for the runtime. */
  node: ['br_netfilter', 'overlay'],
} as const

/** Alternative names: kernels before 4.19 split conntrack per family. */
const ALTERNATIVES: Record<string, readonly string[]> = {nf_conntrack: ['nf_conntrack_ipv4']}

/**
 * Parses /proc/modules (`name size refcount deps state address [taints]`), `lsmod` output (header
 * `Module Size Used by`) or modules.builtin (`kernel/net/netfilter/ipvs/ip_vs.ko`), detected from the text.
 * Throws ParseError on the first line that fits none.
 */
export function parseKernelModules(text: string): KernelModules {
  const lines = text.split(/\r?\n/)
  const first = lines.find((l) => l.trim() !== '') ?? ''
  if (/^Module\s+Size\s+Used by/.test(first)) return parseLsmod(text)
  if (/\.ko(\.(xz|zst|gz))?$/.test(first.trim())) return parseModulesBuiltin(text)
  return parseProcModules(text)
}

export function parseProcModules(text: string): KernelModules {
  const modules: Record<string, KernelModule> = Object.create(null) as Record<string, KernelModule>
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '') return
    const m = /^(\S+)\s+(\d+)\s+(-?\d+)\s+(\S+)\s+(Live|Loading|Unloading)\s+(0x[0-9a-fA-F]+)(?:\s+(\(\w+\)))?$/.exec(line)
    if (!m) throw new ParseError(`not a /proc/modules line (name size refcount deps state address): ${JSON.stringify(line.slice(0, 60))}`, i + 1)
    const deps = m[4] === '-' ? [] : (m[4] ?? '').split(',').filter((d) => d !== '')
    const mod: KernelModule = {name: m[1] ?? '', size: Number(m[2]), refCount: Number(m[3]), usedBy: deps, state: m[5] ?? '', line: i + 1}
    if (m[7] !== undefined) mod.taints = m[7]
    modules[mod.name] = mod
  })
  return {format: 'proc-modules', modules}
}

export function parseLsmod(text: string): KernelModules {
  const modules: Record<string, KernelModule> = Object.create(null) as Record<string, KernelModule>
  let sawHeader = false
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '') return
    if (!sawHeader) {
      if (!/^Module\s+Size\s+Used by/.test(line)) throw new ParseError('expected the lsmod header "Module Size Used by"', i + 1)
      sawHeader = true
      return
    }
    const m = /^(\S+)\s+(\d+)\s+(-?\d+)(?:\s+(\S+))?$/.exec(line)
    if (!m) throw new ParseError(`not an lsmod line (Module Size Used-by): ${JSON.stringify(line.slice(0, 60))}`, i + 1)
    const usedBy = (m[4] ?? '').split(',').filter((d) => d !== '' && d !== '[permanent]')
    modules[m[1] ?? ''] = {name: m[1] ?? '', size: Number(m[2]), refCount: Number(m[3]), usedBy, line: i + 1}
  })
  return {format: 'lsmod', modules}
}

/** /lib/modules/$(uname -r)/modules.builtin: modules compiled into the kernel (never in /proc/modules). */
export function parseModulesBuiltin(text: string): KernelModules {
  const modules: Record<string, KernelModule> = Object.create(null) as Record<string, KernelModule>
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '') return
    const m = /([^/]+)\.ko(?:\.(?:xz|zst|gz))?$/.exec(line)
    if (!m) throw new ParseError(`not a modules.builtin line (path/to/module.ko): ${JSON.stringify(line.slice(0, 60))}`, i + 1)
    // The kernel reports module names with underscores even when the file uses dashes.
    const name = (m[1] ?? '').replaceAll('-', '_')
    modules[name] = {name, usedBy: [], line: i + 1}
  })
  return {format: 'modules-builtin', modules}
}

/** Whether `name` is loaded (or built in, when `builtin` is given), accepting known alternative names. */
export function hasKernelModule(loaded: KernelModules, name: string, builtin?: KernelModules): boolean {
  const names = [name, ...(ALTERNATIVES[name] ?? [])].map((n) => n.replaceAll('-', '_'))
  return names.some((n) => Object.hasOwn(loaded.modules, n) || (builtin !== undefined && Object.hasOwn(builtin.modules, n)))
}

/** The names in `required` that are neither loaded nor built in. */
export function missingKernelModules(loaded: KernelModules, required: readonly string[], builtin?: KernelModules): string[] {
  return required.filter((n) => !hasKernelModule(loaded, n, builtin))
}

// ---------------------------------------------------------------------------------------------------------------
// The `modules-available` plan item: one line per module of a fixed list, `NAME STATE`, where STATE says where the
// module was found for the running kernel: `loaded-or-builtin` (/sys/module/NAME exists: loaded, or built in with
// parameters), `builtin` (in /lib/modules/$(uname -r)/modules.builtin), `loadable` (in that directory's modules.dep,
// so modprobe and the kernel's autoload can load it), `absent` (the directory exists and lists it nowhere) or
// `unknown` (no /lib/modules directory for the running kernel: nothing can be said).

/** Modules whose availability the `modules-available` item reports (what kube-proxy's modes use). */
export const MODULES_PROBED: readonly string[] = [
  'ip_vs', 'ip_vs_rr', 'ip_vs_wrr', 'ip_vs_sh', 'ip_vs_lc', 'ip_vs_wlc', 'ip_vs_lblc', 'ip_vs_lblcr', 'ip_vs_dh', 'ip_vs_sed', 'ip_vs_nq', 'ip_vs_mh',
  'nf_conntrack', 'nf_nat', 'nf_tables', 'xt_conntrack', 'xt_statistic', 'xt_comment', 'xt_mark', 'xt_addrtype', 'xt_recent',
  // The other extensions kube-proxy's iptables rules use (NODE-022 judges those of its expected rules): tcp/udp matches,
  // sctp, DNAT/SNAT, MASQUERADE (xt_MASQUERADE on current kernels, ipt_MASQUERADE on older ones), REJECT (IPv4).
  'xt_tcpudp', 'xt_sctp', 'xt_nat', 'xt_MASQUERADE', 'ipt_MASQUERADE', 'ipt_REJECT',
]

export type ModuleAvailability = 'loaded-or-builtin' | 'builtin' | 'loadable' | 'absent' | 'unknown'
const AVAILABILITY = new Set<string>(['loaded-or-builtin', 'builtin', 'loadable', 'absent', 'unknown'])

/** Parses `NAME STATE` lines. Throws ParseError naming the first line that is not one. */
export function parseModulesAvailable(text: string): Map<string, ModuleAvailability> {
  const out = new Map<string, ModuleAvailability>()
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (line === '') return
    const m = /^([A-Za-z0-9_-]+) (\S+)$/.exec(line)
    if (!m || !AVAILABILITY.has(m[2] ?? '')) throw new ParseError(`not a "MODULE STATE" line: ${JSON.stringify(line.slice(0, 60))}`, i + 1)
    out.set(m[1] ?? '', m[2] as ModuleAvailability)
  })
  return out
}

/** The fixed POSIX sh script of the `modules-available` plan item (no API data in it). */
export function modulesAvailableScript(): string {
  return (
    'd=/lib/modules/$(uname -r); ' +
    `for m in ${MODULES_PROBED.join(' ')}; do ` +
    'if [ -d "/sys/module/$m" ]; then s=loaded-or-builtin; ' +
    'elif grep -q "/$m\\.ko" "$d/modules.builtin" 2>/dev/null; then s=builtin; ' +
    'elif grep -q "/$m\\.ko" "$d/modules.dep" 2>/dev/null; then s=loadable; ' +
    'elif [ -d "$d" ]; then s=absent; else s=unknown; fi; ' +
    'echo "$m $s"; done'
  )
}
