// Everything that changes the rules kube-proxy writes, besides the API objects: its configuration (with
// kube-proxy's defaults), facts about the node, and runtime facts kube-proxy probes at start-up.
// Mirrors cmd/kube-proxy/app/server.go, server_linux.go (local detectors, node IPs, 'primary' nodePortAddresses)
// and pkg/proxy/apis/config/v1alpha1/defaults.go.
import {ParseError} from '../../errors.js'
import type {Node} from '../model/k8s.js'
import {type IpFamily, parseCIDRSloppy, parseIPSloppy} from '../net/ip.js'

/**
 * A kube-proxy version. Layouts change with major.minor; a few fixes landed in patch releases (nftables `iifname`,
 * kubernetes#134024: v1.35.0, backported to v1.34.2 and v1.33.6), so the patch is kept when known.
 */
export interface KubeProxyVersion {
  major: number
  minor: number
  /** Patch level when the source gave one (`v1.34.2` -> 2). */
  patch?: number
  /** Everything after major.minor.patch as written: `-alpha.2`, `+k3s1`, `-eks-1234`, `-gke.1000`. */
  suffix?: string
}

/** The oldest and newest minors whose output this proxier reproduces (the newest is the newest layout known). */
export const OLDEST_SUPPORTED_VERSION: KubeProxyVersion = {major: 1, minor: 28}
export const NEWEST_SUPPORTED_VERSION: KubeProxyVersion = {major: 1, minor: 37}

/** The layout a version is rendered with, and whether the version is newer than the newest layout known. */
export interface LayoutVersion {
  /** The version whose rules are reproduced: `v` itself, or NEWEST_SUPPORTED_VERSION when `v` is newer. */
  layout: KubeProxyVersion
  /** `v` is newer than the newest layout known (a release or pre-release this proxier has not seen). */
  clamped: boolean
}

/**
 * The layout version for any kube-proxy version: newer than the newest known layout → the newest known one (its
 * major.minor; the patch does not matter then), clamped. Older versions are returned as they are (the caller decides
 * about versions before OLDEST_SUPPORTED_VERSION). Pure; never throws.
 */
export function layoutVersionFor(v: KubeProxyVersion): LayoutVersion {
  const newest = NEWEST_SUPPORTED_VERSION
  if (versionAtLeast(v, newest.major, newest.minor + 1)) return {layout: {major: newest.major, minor: newest.minor}, clamped: true}
  return {layout: v, clamped: false}
}

/**
 * The sentence every renderer prints when `v` is newer than the newest layout known, e.g. "kube-proxy
 * v1.38.0-alpha.2 is newer than the newest layout known (v1.37): rendered with v1.37's rules"; undefined otherwise.
 */
export function layoutClampNote(v: KubeProxyVersion): string | undefined {
  const {layout, clamped} = layoutVersionFor(v)
  if (!clamped) return undefined
  const newest = formatKubeProxyVersion(layout)
  return `kube-proxy ${formatFullKubeProxyVersion(v)} is newer than the newest layout known (${newest}): rendered with ${newest}'s rules`
}

/**
 * Parses `v1.31`, `1.31`, `v1.31.2`, `v1.31.2-eks-1234`, `v1.33.4+k3s1`, `v1.38.0-alpha.2`; undefined when it is
 * not a version.
 */
export function parseKubeProxyVersion(text: string): KubeProxyVersion | undefined {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?([-+][0-9A-Za-z.+-]*)?$/.exec(text.trim())
  if (!m) return undefined
  const v: KubeProxyVersion = {major: Number(m[1]), minor: Number(m[2])}
  if (m[3] !== undefined) v.patch = Number(m[3])
  if (m[4] !== undefined) v.suffix = m[4]
  return v
}

/**
 * The version in a container image reference's tag, e.g. `registry.k8s.io/kube-proxy:v1.31.2` or
 * `host:5000/kube-proxy:v1.30.1@sha256:…`. Undefined when there is no tag or it is not a version.
 */
export function versionFromImage(image: string): KubeProxyVersion | undefined {
  const noDigest = image.split('@')[0] ?? ''
  const lastSlash = noDigest.lastIndexOf('/')
  const colon = noDigest.indexOf(':', lastSlash + 1)
  if (colon < 0) return undefined
  return parseKubeProxyVersion(noDigest.slice(colon + 1))
}

/** `v1.35`: the release line, which is what selects a layout. */
export function formatKubeProxyVersion(v: KubeProxyVersion): string {
  return `v${v.major}.${v.minor}`
}

/** `v1.35.2-eks-1234` as given (major.minor when no patch was known). */
export function formatFullKubeProxyVersion(v: KubeProxyVersion): string {
  return `v${v.major}.${v.minor}${v.patch !== undefined ? `.${v.patch}` : ''}${v.suffix ?? ''}`
}

/** a >= major.minor.patch (an unknown patch counts as .0: the release line's first release). */
export function versionAtLeastPatch(v: KubeProxyVersion, major: number, minor: number, patch: number): boolean {
  if (v.major !== major) return v.major > major
  if (v.minor !== minor) return v.minor > minor
  return (v.patch ?? 0) >= patch
}

/** a >= major.minor */
export function versionAtLeast(v: KubeProxyVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor)
}

export function isSupportedVersion(v: KubeProxyVersion): boolean {
  return versionAtLeast(v, OLDEST_SUPPORTED_VERSION.major, OLDEST_SUPPORTED_VERSION.minor) &&
    !versionAtLeast(v, NEWEST_SUPPORTED_VERSION.major, NEWEST_SUPPORTED_VERSION.minor + 1)
}

/** Feature gates that change iptables output, with the release where each became on by default. */
export const FEATURE_GATE_DEFAULT_ON: Readonly<Record<string, KubeProxyVersion>> = {
  // ipMode: Proxy ingress entries are skipped (alpha 1.29, beta 1.30, GA 1.32).
  LoadBalancerIPMode: {major: 1, minor: 30},
  // Hints are used without the topology annotation (alpha 1.30, beta 1.31, GA 1.33). KEP-4444.
  ServiceTrafficDistribution: {major: 1, minor: 31},
  // forNodes hints and PreferSameNode (alpha 1.33, beta 1.34). KEP-3015.
  PreferSameTrafficDistribution: {major: 1, minor: 34},
  // Zone hints at all (beta and on since 1.24).
  TopologyAwareHints: {major: 1, minor: 24},
}

/**
 * Feature gates that change the rules but are off by default, with the release that introduced each: they are
 * present (false) from that release and a configuration may turn them on; before it they do not exist.
 */
export const FEATURE_GATE_DEFAULT_OFF: Readonly<Record<string, KubeProxyVersion>> = {
  // KEP-6032 localhost NodePorts in nftables mode (alpha, off, v1.37; kubernetes#138427; website feature-gate page
  // KubeProxyNFTablesLocalhostNodePorts.md: `stage: alpha, defaultValue: false, fromVersion: "1.37"`).
  KubeProxyNFTablesLocalhostNodePorts: {major: 1, minor: 37},
}

/** Effective feature gates: version defaults overridden by the configuration's `featureGates`. */
export function featureGatesFor(version: KubeProxyVersion, overrides: Record<string, boolean> = {}): Record<string, boolean> {
  const gates: Record<string, boolean> = {}
  for (const [name, since] of Object.entries(FEATURE_GATE_DEFAULT_ON)) gates[name] = versionAtLeast(version, since.major, since.minor)
  const offExists = (name: string) => {
    const since = FEATURE_GATE_DEFAULT_OFF[name]
    return since !== undefined && versionAtLeast(version, since.major, since.minor)
  }
  for (const name of Object.keys(FEATURE_GATE_DEFAULT_OFF)) if (offExists(name)) gates[name] = false
  for (const [name, value] of Object.entries(overrides)) if (name in FEATURE_GATE_DEFAULT_ON || offExists(name)) gates[name] = value
  return gates
}

/** How kube-proxy tells pod traffic from other traffic (--detect-local-mode), resolved for one family. */
export type LocalDetector =
  | {mode: 'ClusterCIDR' | 'NodeCIDR'; cidr: string}
  | {mode: 'BridgeInterface'; interfaceName: string}
  | {mode: 'InterfaceNamePrefix'; prefix: string}
  /** No CIDR of this family (or detection off): kube-proxy's no-op detector, whose rules are omitted. */
  | {mode: 'NoOp'}

/** Which nfacct counters kube-proxy managed to create (pkg/proxy/util/nfacct; needs nfnetlink_acct). */
export interface NfacctCounters {
  /** `ct_state_invalid_dropped_pkts` (used from v1.30). */
  ctStateInvalidDroppedPkts: boolean
  /** `localhost_nps_accepted_pkts` (used from v1.31). */
  localhostNpsAcceptedPkts: boolean
}

/** Everything besides Services and EndpointSlices that changes the generated rules, for one IP family. */
export interface ProxierOptions {
  family: IpFamily
  version: KubeProxyVersion
  /** The node name kube-proxy was given (hostnameOverride or the node's name): decides which endpoints are local. */
  nodeName: string
  /** The node IP of this family (first InternalIP, else ExternalIP, else loopback): only the FW allow-from-node rule uses it. */
  nodeIP: string
  /** The node's `topology.kubernetes.io/zone` label, for zone hints. */
  zone?: string
  masqueradeBit: number
  /** Overrides the mark text; kube-proxy writes `%#08x` of 1<<bit, its unit tests inject `0x4000`. */
  masqueradeMark?: string
  masqueradeAll: boolean
  localDetector: LocalDetector
  /** nodePortAddresses CIDRs after `primary` was resolved, any family (the generator filters to its own). */
  nodePortAddresses: string[]
  /** iptables.localhostNodePorts as configured; the generator applies kube-proxy's forcing rules (IPv6, CIDRs). */
  localhostNodePorts: boolean
  /** iptables supports --random-fully (≥ 1.6.2). */
  randomFully: boolean
  nfacct: NfacctCounters
  /** net.netfilter.nf_conntrack_tcp_be_liberal was non-zero when kube-proxy started (v1.29+ then skips the INVALID drop). */
  tcpBeLiberal: boolean
  /** Addresses on the node's interfaces (IPs or ip/len), including loopback; used when nodePortAddresses is not 'all'. */
  nodeInterfaceAddresses: string[]
  /** Effective feature gates (see featureGatesFor). */
  featureGates: Record<string, boolean>
  /** Service chains (KUBE-SVC/SVL/EXT/FW/SEP) already in the nat table; those not generated are flushed and deleted. */
  existingNatChains?: string[]
}

/** Runtime facts about the node that no API object holds. Unset facts take the documented defaults. */
export interface RuntimeFacts {
  /** Default true: every iptables since 1.6.2 supports --random-fully. */
  randomFully?: boolean
  /** Default true: kube-proxy creates both counters when the kernel has nfnetlink_acct. */
  nfacct?: boolean | Partial<NfacctCounters>
  /** Default: the configuration's conntrack.tcpBeLiberal (kube-proxy sets the sysctl itself), else false. */
  tcpBeLiberal?: boolean
  /** Default: the Node's InternalIP/ExternalIP addresses plus 127.0.0.1 and ::1. */
  nodeInterfaceAddresses?: string[]
  /** The proxier's family; default: the node's primary family (its first address), else IPv4. */
  family?: IpFamily
  /** Default: v1.35. */
  version?: KubeProxyVersion
}

const ZONE_LABEL = 'topology.kubernetes.io/zone'

/** kube-proxy's %#08x: Go pads the digits (not the whole string) to 8, so bit 14 is `0x00004000`. */
export function formatMasqueradeMark(bit: number): string {
  const value = 2 ** bit
  return `0x${value.toString(16).padStart(8, '0')}`
}

function fail(path: string, detail: string): never {
  throw new ParseError(`kube-proxy configuration: ${path}: ${detail}`)
}

/** The value at `path` in a parsed configuration, or undefined where a step is missing or not a mapping. */
export function configValue(obj: Record<string, unknown> | undefined, path: string[]): unknown {
  let cur: unknown = obj
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined
    cur = (cur as Record<string, unknown>)[p]
  }
  return cur
}

function optString(obj: Record<string, unknown> | undefined, path: string[]): string | undefined {
  const v = configValue(obj, path)
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') fail(path.join('.'), `expected a string, got ${JSON.stringify(v)}`)
  return v
}

function optBool(obj: Record<string, unknown> | undefined, path: string[]): boolean | undefined {
  const v = configValue(obj, path)
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'boolean') fail(path.join('.'), `expected true or false, got ${JSON.stringify(v)}`)
  return v
}

function optInt(obj: Record<string, unknown> | undefined, path: string[]): number | undefined {
  const v = configValue(obj, path)
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(path.join('.'), `expected an integer, got ${JSON.stringify(v)}`)
  return v
}

/**
 * The node IPs kube-proxy detects: utilnode.GetNodeHostIPs (InternalIPs, then ExternalIPs; the first one and the
 * first of the other family), overridden by a non-zero bindAddress; loopback for a family without one.
 */
export function detectNodeIPs(node: Node | undefined, bindAddress?: string): {primaryFamily: IpFamily; ips: Record<IpFamily, string>} {
  const ips: Record<IpFamily, string> = {ipv4: '127.0.0.1', ipv6: '::1'}
  let primaryFamily: IpFamily = 'ipv4'
  const addrs = node?.status?.addresses ?? []
  const all = [...addrs.filter((a) => a.type === 'InternalIP'), ...addrs.filter((a) => a.type === 'ExternalIP')]
    .map((a) => parseIPSloppy(a.address))
    .filter((p) => p !== undefined)
  const first = all[0]
  if (first) {
    primaryFamily = first.family
    ips[first.family] = first.text
    const other = all.find((p) => p.family !== first.family)
    if (other) ips[other.family] = other.text
  }
  const bind = bindAddress ? parseIPSloppy(bindAddress) : undefined
  if (bind && !bind.bytes.every((b) => b === 0)) {
    primaryFamily = bind.family
    ips[bind.family] = bind.text
  }
  return {primaryFamily, ips}
}

/**
 * ProxierOptions for `facts.family` from a raw (already parsed) KubeProxyConfiguration, with kube-proxy's defaults
 * for every unset field, the Node (name, addresses, podCIDRs, zone label) and runtime facts.
 * Throws ParseError naming the field when a value has the wrong type or is invalid.
 */
export function proxierOptionsFromKubeProxyConfig(
  raw: Record<string, unknown> | undefined,
  node: Node | undefined,
  facts: RuntimeFacts = {},
): ProxierOptions {
  const version = facts.version ?? NEWEST_SUPPORTED_VERSION
  const bindAddress = optString(raw, ['bindAddress'])
  const detected = detectNodeIPs(node, bindAddress)
  const family = facts.family ?? detected.primaryFamily

  const masqueradeBit = optInt(raw, ['iptables', 'masqueradeBit']) ?? 14
  if (masqueradeBit < 0 || masqueradeBit > 31) fail('iptables.masqueradeBit', `must be within [0, 31], got ${masqueradeBit}`)

  const overrides: Record<string, boolean> = {}
  const fg = configValue(raw, ['featureGates'])
  if (fg !== undefined && fg !== null) {
    if (typeof fg !== 'object' || Array.isArray(fg)) fail('featureGates', 'expected a map of gate names to booleans')
    for (const [k, v] of Object.entries(fg as Record<string, unknown>)) {
      if (typeof v !== 'boolean') fail(`featureGates.${k}`, `expected true or false, got ${JSON.stringify(v)}`)
      overrides[k] = v
    }
  }

  const nodePortAddresses = resolveNodePortAddresses(configValue(raw, ['nodePortAddresses']), version, detected.ips)

  const nfacctFact = facts.nfacct ?? true
  const nfacct: NfacctCounters =
    typeof nfacctFact === 'boolean'
      ? {ctStateInvalidDroppedPkts: nfacctFact, localhostNpsAcceptedPkts: nfacctFact}
      : {ctStateInvalidDroppedPkts: nfacctFact.ctStateInvalidDroppedPkts ?? true, localhostNpsAcceptedPkts: nfacctFact.localhostNpsAcceptedPkts ?? true}

  const defaultAddresses = [...(node?.status?.addresses ?? [])]
    .filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP')
    .map((a) => a.address)
  const zone = node?.metadata.labels?.[ZONE_LABEL]

  return {
    family,
    version,
    nodeName: optString(raw, ['hostnameOverride'])?.trim().toLowerCase() || node?.metadata.name || '',
    nodeIP: detected.ips[family],
    ...(zone !== undefined ? {zone} : {}),
    masqueradeBit,
    masqueradeAll: optBool(raw, ['iptables', 'masqueradeAll']) ?? false,
    localDetector: localDetectorFor(raw, node, family),
    nodePortAddresses,
    localhostNodePorts: optBool(raw, ['iptables', 'localhostNodePorts']) ?? true,
    randomFully: facts.randomFully ?? true,
    nfacct,
    tcpBeLiberal: facts.tcpBeLiberal ?? optBool(raw, ['conntrack', 'tcpBeLiberal']) ?? false,
    nodeInterfaceAddresses: facts.nodeInterfaceAddresses ?? [...defaultAddresses, '127.0.0.1', '::1'],
    featureGates: featureGatesFor(version, overrides),
  }
}

/** The nodePortAddresses keywords (pkg/proxy/apis/config NodePortAddressesPrimary/Localhost/All). */
export const NODE_PORT_ADDRESS_KEYWORDS = ['primary', 'localhost', 'all'] as const

/**
 * nodePortAddresses with the keywords resolved as cmd/kube-proxy does: `primary` → the node IPs (/32, /128; v1.29+,
 * and before v1.37 only as the sole entry); from v1.37 (kubernetes#138427, KEP-6032) also `localhost` → 127.0.0.0/8
 * and ::1/128, `all` → 0.0.0.0/0 and ::/0, combinable with each other and with CIDRs (in the order given).
 */
export function resolveNodePortAddresses(value: unknown, version: KubeProxyVersion, nodeIPs: Record<IpFamily, string>): string[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) fail('nodePortAddresses', 'expected a list of CIDRs')
  const list = value.map((v, i) => {
    if (typeof v !== 'string') fail(`nodePortAddresses[${i}]`, `expected a string, got ${JSON.stringify(v)}`)
    return v
  })
  const primary = (): string[] => {
    const out: string[] = []
    const v4 = parseIPSloppy(nodeIPs.ipv4)
    const v6 = parseIPSloppy(nodeIPs.ipv6)
    if (v4 && v4.bytes[0] !== 127) out.push(`${v4.text}/32`)
    if (v6 && nodeIPs.ipv6 !== '::1') out.push(`${v6.text}/128`)
    return out
  }
  const keywords = versionAtLeast(version, 1, 37)
  if (!keywords && list.length === 1 && list[0] === 'primary') {
    if (!versionAtLeast(version, 1, 29)) fail('nodePortAddresses', `'primary' needs kube-proxy v1.29 or newer`)
    return primary()
  }
  const out: string[] = []
  list.forEach((s, i) => {
    if (keywords && s === 'primary') out.push(...primary())
    else if (keywords && s === 'localhost') out.push('127.0.0.0/8', '::1/128')
    else if (keywords && s === 'all') out.push('0.0.0.0/0', '::/0')
    else if (!parseCIDRSloppy(s)) {
      const why = (NODE_PORT_ADDRESS_KEYWORDS as readonly string[]).includes(s)
        ? ` (before kube-proxy v1.37 the only keyword is 'primary', and it must be the only entry)`
        : ''
      fail(`nodePortAddresses[${i}]`, `${JSON.stringify(s)} is not a CIDR${why}`)
    } else out.push(s)
  })
  return out
}

/** server_linux.go getLocalDetectors: the detector for one family. */
function localDetectorFor(raw: Record<string, unknown> | undefined, node: Node | undefined, family: IpFamily): LocalDetector {
  const mode = optString(raw, ['detectLocalMode']) || 'ClusterCIDR'
  switch (mode) {
    case 'ClusterCIDR': {
      const cidrs = (optString(raw, ['clusterCIDR']) ?? '').trim().split(',')
      const cidr = cidrs.map((c) => parseCIDRSloppy(c)).find((c) => c?.family === family)
      return cidr ? {mode: 'ClusterCIDR', cidr: cidr.text} : {mode: 'NoOp'}
    }
    case 'NodeCIDR': {
      const podCIDRs = node?.spec?.podCIDRs ?? (node?.spec?.podCIDR ? [node.spec.podCIDR] : [])
      const cidr = podCIDRs.map((c) => parseCIDRSloppy(c)).find((c) => c?.family === family)
      return cidr ? {mode: 'NodeCIDR', cidr: cidr.text} : {mode: 'NoOp'}
    }
    case 'BridgeInterface': {
      const name = optString(raw, ['detectLocal', 'bridgeInterface']) ?? ''
      if (name === '') fail('detectLocal.bridgeInterface', 'must be set when detectLocalMode is BridgeInterface')
      return {mode: 'BridgeInterface', interfaceName: name}
    }
    case 'InterfaceNamePrefix': {
      const prefix = optString(raw, ['detectLocal', 'interfaceNamePrefix']) ?? ''
      if (prefix === '') fail('detectLocal.interfaceNamePrefix', 'must be set when detectLocalMode is InterfaceNamePrefix')
      return {mode: 'InterfaceNamePrefix', prefix}
    }
    default:
      return fail('detectLocalMode', `unknown mode ${JSON.stringify(mode)} (ClusterCIDR, NodeCIDR, BridgeInterface or InterfaceNamePrefix)`)
  }
}

/** Where a configuration taken from the running kube-proxy came from, in assumptions and notes. */
export const RUNNING_CONFIG_SOURCE = 'kube-proxy /configz'

/**
 * The top-level fields whose running value (/configz) replaces the configured one for the expected rules: the ones
 * the rules depend on. Not the per-node values kube-proxy fills at start-up (hostnameOverride, bindAddress: the
 * proxier derives node name and IPs from the Node object), nor logging, timeouts or metrics addresses.
 */
export const RUNNING_CONFIG_FIELDS: readonly string[] = ['mode', 'clusterCIDR', 'detectLocalMode', 'detectLocal', 'nodePortAddresses', 'iptables', 'ipvs', 'nftables', 'featureGates']

export interface LayeredKubeProxyConfig {
  config: Record<string, unknown>
  /** Dotted path → source, for every value taken from the running configuration (`iptables.masqueradeBit`). */
  sources: Record<string, string>
}

/**
 * `configured` (the ConfigMap's mapping, or undefined) with the running configuration laid over it: every leaf of
 * `running` that /configz presented (`presentPaths`, JSON pointers) under RUNNING_CONFIG_FIELDS replaces the
 * configured value, and its dotted path is recorded with `source`. kube-proxy reads its configuration only when it
 * starts, so for the rules it writes the running values are the truth; the ConfigMap stays the intended side
 * (PROXY-013 compares the two). Pure: neither input is changed.
 */
export function overlayRunningConfig(
  configured: Record<string, unknown> | undefined,
  running: Record<string, unknown>,
  presentPaths: readonly string[],
  source = RUNNING_CONFIG_SOURCE,
): LayeredKubeProxyConfig {
  const config = structuredClone(configured ?? {}) as Record<string, unknown>
  const sources: Record<string, string> = {}
  for (const pointer of presentPaths) {
    const path = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    if (path.length === 0 || !RUNNING_CONFIG_FIELDS.includes(path[0]!)) continue
    const value = configValue(running, path)
    let cur = config
    for (const key of path.slice(0, -1)) {
      const next = cur[key]
      if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[key] = {}
      cur = cur[key] as Record<string, unknown>
    }
    cur[path[path.length - 1]!] = structuredClone(value)
    sources[path.join('.')] = source
  }
  return {config, sources}
}
