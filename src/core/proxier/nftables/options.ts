// From the shared proxier input (iptables-shaped ProxierOptions) to the nftables proxier's options: nftables mode
// reads `nftables.masqueradeBit/masqueradeAll`, defaults nodePortAddresses to the node's primary IPs, and drops
// traffic to unallocated ClusterIPs inside the ServiceCIDR objects' ranges. Mirrors cmd/kube-proxy/app/server.go and
// server_linux.go (nftables branch) and the ServiceCIDR informer (GA v1.33; beta, gate off, in v1.31–v1.32).
import {InputProblem} from '../../model/errors.js'
import type {Node, ServiceCIDR} from '../../model/k8s.js'
import {type ProxierOptions, configValue, detectNodeIPs, formatFullKubeProxyVersion, formatKubeProxyVersion, layoutClampNote, versionAtLeast} from '../config.js'
import {parseCIDRSloppy} from '../../net/ip.js'
import type {RenderInput} from '../render-input.js'
import {NFTABLES_FIRST_VERSION, type NftablesInput, type NftablesOptions, SINGLE_ENDPOINT_DNAT_UNVERIFIED, hasExplicitLoopback, nftLayoutFor, usesIifname} from './generate.js'
import {nftLayoutAtLeast} from './table.js'

/** The Service CIDRs kube-proxy's ServiceCIDR informer sees: every spec.cidrs entry, in object order, deduplicated. */
export function serviceCIDRsFromObjects(objects: readonly ServiceCIDR[]): string[] {
  const out: string[] = []
  for (const o of objects) for (const c of o.spec?.cidrs ?? []) if (parseCIDRSloppy(c) && !out.includes(c)) out.push(c)
  return out
}

/** Whether kube-proxy watches ServiceCIDR objects: from v1.33 always, in v1.31–v1.32 with MultiCIDRServiceAllocator. */
export function watchesServiceCIDRs(base: ProxierOptions, raw: Record<string, unknown> | undefined): boolean {
  if (versionAtLeast(base.version, 1, 33)) return true
  if (!versionAtLeast(base.version, 1, 31)) return false
  return configValue(raw, ['featureGates', 'MultiCIDRServiceAllocator']) === true
}

export interface NftablesRenderInput {
  input: NftablesInput
  /** Defaults and assumptions worth telling the user. */
  notes: string[]
}

/**
 * The nftables proxier's input for a RenderInput built by buildRenderInput. Throws InputProblem for a kube-proxy
 * version without nftables mode (before v1.29).
 */
export function nftablesRenderInput(render: RenderInput, raw: Record<string, unknown> | undefined, serviceCIDRs: readonly ServiceCIDR[]): NftablesRenderInput {
  const base = render.input.options
  if (!nftLayoutFor(base.version)) {
    throw new InputProblem(
      `kube-proxy ${formatKubeProxyVersion(base.version)} has no nftables mode`,
      `nftables mode exists from ${formatKubeProxyVersion(NFTABLES_FIRST_VERSION)} (alpha, feature gate NFTablesProxyMode), beta in v1.31, GA in v1.33; pass --kube-proxy-version or use --mode iptables.`,
    )
  }
  const notes: string[] = []
  const clamp = layoutClampNote(base.version)
  if (clamp) notes.push(clamp)
  if (!versionAtLeast(base.version, 1, 31)) notes.push(`nftables mode is alpha in ${formatKubeProxyVersion(base.version)} (needs the NFTablesProxyMode feature gate); its layout is reproduced with medium confidence`)
  const bit = configValue(raw, ['nftables', 'masqueradeBit'])
  const masqueradeBit = typeof bit === 'number' && Number.isInteger(bit) && bit >= 0 && bit <= 31 ? bit : 14
  const all = configValue(raw, ['nftables', 'masqueradeAll'])
  let nodePortAddresses = base.nodePortAddresses
  const configured = configValue(raw, ['nodePortAddresses'])
  if (configured === undefined || configured === null || (Array.isArray(configured) && configured.length === 0)) {
    // nftables mode's default is `primary`: the node's IPs, never loopback.
    const bind = configValue(raw, ['bindAddress'])
    const {ips} = detectNodeIPs(render.node as Node, typeof bind === 'string' ? bind : undefined)
    nodePortAddresses = []
    if (ips.ipv4 !== '127.0.0.1') nodePortAddresses.push(`${ips.ipv4}/32`)
    if (ips.ipv6 !== '::1') nodePortAddresses.push(`${ips.ipv6}/128`)
  }
  const watches = watchesServiceCIDRs(base, raw)
  const cidrs = watches ? serviceCIDRsFromObjects(serviceCIDRs) : []
  if (watches && cidrs.length === 0 && versionAtLeast(base.version, 1, 33)) notes.push('no ServiceCIDR objects in the input; the drop rule for unallocated ClusterIPs is left out (add `kubectl get servicecidrs -o yaml`)')
  notes.push(...versionNotes(base, nodePortAddresses))
  const options: NftablesOptions = {
    family: base.family,
    version: base.version,
    nodeName: base.nodeName,
    nodeIP: base.nodeIP,
    ...(base.zone !== undefined ? {zone: base.zone} : {}),
    masqueradeBit,
    masqueradeAll: all === true,
    localDetector: base.localDetector,
    nodePortAddresses,
    nodeInterfaceAddresses: base.nodeInterfaceAddresses,
    featureGates: base.featureGates,
    serviceCIDRs: cidrs,
  }
  return {input: {services: render.input.services, endpointSlices: render.input.endpointSlices, options}, notes}
}

/** What this version's nftables layout assumed or could not verify, for the render notes. */
function versionNotes(base: ProxierOptions, nodePortAddresses: readonly string[]): string[] {
  const notes: string[] = []
  const v = base.version
  const layout = nftLayoutFor(v)
  const d = base.localDetector
  if (d.mode === 'BridgeInterface' || d.mode === 'InterfaceNamePrefix') {
    const backport = v.major === 1 && (v.minor === 33 || v.minor === 34)
    const fixedIn = backport ? (v.minor === 34 ? 'v1.34.2' : 'v1.33.6') : 'v1.35.0'
    if (backport && v.patch === undefined) {
      notes.push(`kube-proxy ${formatKubeProxyVersion(v)} without a patch level: assuming ${fixedIn} or later, which match the local interface with \`iifname\` (kubernetes#134024); earlier ${formatKubeProxyVersion(v)} patches write \`iif\` (give the full version to render those)`)
    } else if (!usesIifname(v)) {
      notes.push(`kube-proxy ${formatFullKubeProxyVersion(v)} matches the local interface with \`iif\` (kubernetes#134024, fixed in ${fixedIn})${d.mode === 'InterfaceNamePrefix' ? `: nft cannot load \`iif != ${d.prefix}*\`, so this kube-proxy's nftables sync fails and the node's table is likely empty or stale` : ''}`)
    }
  }
  if (layout && nftLayoutAtLeast(layout, 'v1.37') && SINGLE_ENDPOINT_DNAT_UNVERIFIED) {
    notes.push('v1.37 single-endpoint services DNAT directly (kubernetes#140723, #140960); the rule text `dnat to IP:PORT` is unverified for IPv6 (IPv4 lists the same either way)')
  }
  if (layout && nftLayoutAtLeast(layout, 'v1.37') && hasExplicitLoopback(nodePortAddresses, base.family)) {
    if (base.featureGates.KubeProxyNFTablesLocalhostNodePorts === true) {
      notes.push(`localhost NodePorts (KubeProxyNFTablesLocalhostNodePorts): kube-proxy serves TCP NodePorts that have endpoints on ${base.family === 'ipv6' ? '[::1]' : '127.0.0.1'} with listening sockets, not nft rules; other protocols are rejected by the localhost-nodeport-reject objects`)
    } else {
      notes.push('nodePortAddresses include loopback, but the KubeProxyNFTablesLocalhostNodePorts feature gate (alpha, off by default in v1.37) is off: NodePorts are not served on localhost')
    }
  }
  return notes
}
