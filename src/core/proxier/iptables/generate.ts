// The embedded kube-proxy iptables proxier: Services + EndpointSlices + ProxierOptions → the restore input of a
// full sync. Mirrors pkg/proxy/iptables/proxier.go syncProxyRules (v1.28–v1.37; version differences noted inline;
// v1.36 and v1.37 changed no iptables rule: docs/research/kube-proxy-v1.36-v1.37.md §7, and newer versions render
// with the v1.37 rules and a `#` line saying so).
//
// kube-proxy iterates service ports in Go map order (random on every sync); we emit them sorted by service-port
// name, then protocol. Other Go-map orders are sorted too: node IPs of nodePortAddresses, the reachable endpoints
// in the union case, and stale chain deletions. Only rule order *across* services and in those places differs from
// a real node; the order within every per-service chain is kube-proxy's.
import type {EndpointSlice, Service} from '../../model/k8s.js'
import {type ProxierOptions, formatKubeProxyVersion, formatMasqueradeMark, layoutClampNote, versionAtLeast} from '../config.js'
import {type EndpointInfo, buildEndpointsMap} from '../endpoints.js'
import {type IpFamily, type ParsedCIDR, cidrContains, isLoopback, parseCIDRSloppy, parseIPSloppy} from '../../net/ip.js'
import {type ServicePortInfo, buildServicePorts, externallyAccessible, usesClusterEndpoints, usesLocalEndpoints} from '../service-ports.js'
import {categorizeEndpoints} from '../topology.js'
import {endpointChainName, isServiceChainName, portProtoHash} from './names.js'
import {computeProbability} from './probability.js'
import {type IptablesRule, type IptablesRuleset, type IptablesTable, type IptablesTableName, serializeRestore} from './ruleset.js'

export interface IptablesInput {
  services: readonly Service[]
  endpointSlices: readonly EndpointSlice[]
  options: ProxierOptions
}

export interface IptablesOutput {
  /** The exact iptables-restore input (see serializeRestore); made on first access (most callers need only the ruleset). */
  text: string
  ruleset: IptablesRuleset
}

const KUBE_SERVICES = 'KUBE-SERVICES'
const KUBE_EXTERNAL_SERVICES = 'KUBE-EXTERNAL-SERVICES'
const KUBE_NODEPORTS = 'KUBE-NODEPORTS'
const KUBE_POSTROUTING = 'KUBE-POSTROUTING'
const KUBE_MARK_MASQ = 'KUBE-MARK-MASQ'
const KUBE_FORWARD = 'KUBE-FORWARD'
const KUBE_PROXY_FIREWALL = 'KUBE-PROXY-FIREWALL'
const KUBE_FIREWALL = 'KUBE-FIREWALL'

/** largeClusterEndpointsThreshold: above this many endpoints, per-endpoint comments are dropped. */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000

const NODEPORTS_JUMP_COMMENT = 'kubernetes service nodeports; NOTE: this must be the last rule in this chain'
const NFACCT_CT_STATE_INVALID = 'ct_state_invalid_dropped_pkts'
const NFACCT_LOCALHOST_NODEPORTS = 'localhost_nps_accepted_pkts'

/** NodePortAddresses (pkg/proxy/util/nodeport_addresses.go) for one family. */
export interface NodePortAddresses {
  cidrs: ParsedCIDR[]
  matchAll: boolean
  containsIPv4Loopback: boolean
}

/**
 * The family's nodePortAddresses: CIDRs of other families are ignored; none left means all (0.0.0.0/0 or ::/0);
 * a /0 matches everything and ends the list.
 */
export function nodePortAddressesFor(family: IpFamily, cidrStrings: readonly string[]): NodePortAddresses {
  let parsed = cidrStrings.map((s) => parseCIDRSloppy(s)).filter((c): c is ParsedCIDR => c !== undefined && c.family === family)
  if (parsed.length === 0) parsed = [parseCIDRSloppy(family === 'ipv4' ? '0.0.0.0/0' : '::/0')!]
  const out: NodePortAddresses = {cidrs: [], matchAll: false, containsIPv4Loopback: false}
  const loopbackStart = parseIPSloppy('127.0.0.0')!
  for (const cidr of parsed) {
    if (cidr.family === 'ipv4' && (cidr.network[0] === 127 || cidrContains(cidr, loopbackStart))) out.containsIPv4Loopback = true
    if (cidr.prefix === 0) {
      out.cidrs = [cidr]
      out.matchAll = true
      break
    }
    out.cidrs.push(cidr)
  }
  return out
}

/** The `-s/-i` match arguments of the local-traffic detector, or undefined for the no-op detector. */
function localDetectorArgs(options: ProxierOptions): {ifLocal: string[]; ifNotLocal: string[]} | undefined {
  const d = options.localDetector
  switch (d.mode) {
    case 'ClusterCIDR':
    case 'NodeCIDR':
      return {ifLocal: ['-s', d.cidr], ifNotLocal: ['!', '-s', d.cidr]}
    case 'BridgeInterface':
      return {ifLocal: ['-i', d.interfaceName], ifNotLocal: ['!', '-i', d.interfaceName]}
    case 'InterfaceNamePrefix':
      return {ifLocal: ['-i', `${d.prefix}+`], ifNotLocal: ['!', '-i', `${d.prefix}+`]}
    case 'NoOp':
      return undefined
  }
}

/**
 * The same string, stored flat. V8 keeps `a + b` and template results as ropes, and chain names are hashed and
 * compared in maps ~10 times each downstream (save form, views, diff): flat names make that markedly cheaper at
 * 100k chains, and take less memory than a rope flattened later. Array.join builds a flat string.
 */
function flat(s: string): string {
  return s.length < 2 ? s : [s.slice(0, 1), s.slice(1)].join('')
}

class TableBuilder {
  readonly table: IptablesTable
  constructor(name: IptablesTableName) {
    this.table = {name, chains: [], rules: [], deletedChains: [], deletedChainsAt: 0}
  }
  chain(name: string): void {
    this.table.chains.push(name)
  }
  rule(chain: string, args: string[], servicePort?: string): void {
    const r: IptablesRule = servicePort === undefined ? {table: this.table.name, chain, args} : {table: this.table.name, chain, args, servicePort}
    this.table.rules.push(r)
  }
}

/** Generates the restore input kube-proxy writes for a full sync on the node described by `input.options`. */
export function generateIptablesRestore(input: IptablesInput): IptablesOutput {
  const o = input.options
  const v = o.version
  const isIPv6 = o.family === 'ipv6'
  const mark = o.masqueradeMark ?? formatMasqueradeMark(o.masqueradeBit)
  const gates = o.featureGates
  const filter = new TableBuilder('filter')
  const nat = new TableBuilder('nat')

  const servicePorts = buildServicePorts(input.services, {family: o.family, version: v, featureGates: gates})
  const endpointsMap = buildEndpointsMap(input.endpointSlices, {family: o.family, version: v, nodeName: o.nodeName, featureGates: gates})
  const npa = nodePortAddressesFor(o.family, o.nodePortAddresses)
  // NewProxier: localhost NodePorts need IPv4 and a nodePortAddresses list that includes loopback.
  const localhostNodePorts = o.localhostNodePorts && !isIPv6 && npa.containsIPv4Loopback
  const detector = localDetectorArgs(o)
  const nodeIP = parseIPSloppy(o.nodeIP)

  for (const c of [KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL]) filter.chain(c)
  for (const c of [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ]) nat.chain(c)

  nat.rule(KUBE_POSTROUTING, ['-m', 'mark', '!', '--mark', `${mark}/${mark}`, '-j', 'RETURN'])
  nat.rule(KUBE_POSTROUTING, ['-j', 'MARK', '--xor-mark', mark])
  nat.rule(KUBE_POSTROUTING, ['-m', 'comment', '--comment', 'kubernetes service traffic requiring SNAT', '-j', 'MASQUERADE', ...(o.randomFully ? ['--random-fully'] : [])])
  nat.rule(KUBE_MARK_MASQ, ['-j', 'MARK', '--or-mark', mark])

  if (!isIPv6 && localhostNodePorts) {
    // The route_localnet martian-packet mitigation; kubelet writes an identical copy.
    filter.chain(KUBE_FIREWALL)
    filter.rule(KUBE_FIREWALL, ['-m', 'comment', '--comment', 'block incoming localnet connections', '-d', '127.0.0.0/8', '!', '-s', '127.0.0.0/8', '-m', 'conntrack', '!', '--ctstate', 'RELATED,ESTABLISHED,DNAT', '-j', 'DROP'])
  }

  let totalEndpoints = 0
  for (const sp of servicePorts) totalEndpoints += endpointsMap.get(sp.key)?.length ?? 0
  const largeClusterMode = totalEndpoints > LARGE_CLUSTER_ENDPOINTS_THRESHOLD
  const localhostNfacct = localhostNodePorts && !isIPv6 && versionAtLeast(v, 1, 31) && o.nfacct.localhostNpsAcceptedPkts

  for (const sp of servicePorts) {
    const spn = sp.name
    const proto = sp.protocol.toLowerCase()
    const cat = categorizeEndpoints(endpointsMap.get(sp.key) ?? [], sp, {nodeName: o.nodeName, ...(o.zone !== undefined ? {zone: o.zone} : {}), featureGates: gates})
    const {clusterEndpoints, localEndpoints, allReachableEndpoints, hasAnyEndpoints: hasEndpoints} = cat

    // servicePortChainName for SVC/SVL/EXT/FW: one hash, shared by the four names (built flat, see flat()).
    const hash = portProtoHash(spn, proto)
    const svcChain = ['KUBE-SVC-', hash].join('')
    const svlChain = ['KUBE-SVL-', hash].join('')
    const extChain = ['KUBE-EXT-', hash].join('')
    const fwChain = ['KUBE-FW-', hash].join('')
    const usesClusterChain = clusterEndpoints.length > 0 && usesClusterEndpoints(sp)
    const usesLocalChain = localEndpoints.length > 0 && usesLocalEndpoints(sp)

    let internalChain = svcChain
    let hasInternal = hasEndpoints
    if (sp.internalPolicyLocal) {
      internalChain = svlChain
      if (localEndpoints.length === 0) hasInternal = false
    }
    let externalPolicyChain = svcChain
    let hasExternal = hasEndpoints
    if (sp.externalPolicyLocal) {
      externalPolicyChain = svlChain
      if (localEndpoints.length === 0) hasExternal = false
    }
    // Based on hasEndpoints, not hasExternal: the short-circuit rules are needed even without local endpoints.
    const usesExtChain = hasEndpoints && externallyAccessible(sp)
    const usesFWChain = hasEndpoints && sp.loadBalancerVIPs.length > 0 && sp.loadBalancerSourceRanges.length > 0
    const lbChain = usesFWChain ? fwChain : extChain

    let internalTarget = ''
    let internalComment = ''
    let externalTarget = ''
    let externalComment = ''
    if (!hasEndpoints) {
      internalTarget = externalTarget = 'REJECT'
      internalComment = externalComment = `${spn} has no endpoints`
    } else {
      if (!hasInternal) {
        internalTarget = 'DROP'
        internalComment = `${spn} has no local endpoints`
      }
      if (!hasExternal) {
        externalTarget = 'DROP'
        externalComment = `${spn} has no local endpoints`
      }
    }
    const port = String(sp.port)
    // Each endpoint's chain name is needed up to four times (affinity, SVC, SVL, SEP): hash it once.
    const sepNames = new Map<string, string>()
    const sepName = (ep: EndpointInfo): string => {
      let n = sepNames.get(ep.endpoint)
      if (n === undefined) sepNames.set(ep.endpoint, (n = flat(endpointChainName(spn, proto, ep.endpoint))))
      return n
    }
    const natRule = (chain: string, args: string[]): void => nat.rule(chain, args, spn)
    const filterRule = (chain: string, args: string[]): void => filter.rule(chain, args, spn)

    // Cluster IP.
    if (hasInternal) {
      natRule(KUBE_SERVICES, ['-m', 'comment', '--comment', `${spn} cluster IP`, '-m', proto, '-p', proto, '-d', sp.clusterIP, '--dport', port, '-j', internalChain])
    } else {
      filterRule(KUBE_SERVICES, ['-m', 'comment', '--comment', internalComment, '-m', proto, '-p', proto, '-d', sp.clusterIP, '--dport', port, '-j', internalTarget])
    }

    // External IPs.
    for (const eip of sp.externalIPs) {
      if (hasEndpoints) natRule(KUBE_SERVICES, ['-m', 'comment', '--comment', `${spn} external IP`, '-m', proto, '-p', proto, '-d', eip, '--dport', port, '-j', extChain])
      if (!hasExternal) filterRule(KUBE_EXTERNAL_SERVICES, ['-m', 'comment', '--comment', externalComment, '-m', proto, '-p', proto, '-d', eip, '--dport', port, '-j', externalTarget])
    }

    // Load-balancer VIPs.
    for (const lbip of sp.loadBalancerVIPs) {
      if (hasEndpoints) natRule(KUBE_SERVICES, ['-m', 'comment', '--comment', `${spn} loadbalancer IP`, '-m', proto, '-p', proto, '-d', lbip, '--dport', port, '-j', lbChain])
      if (usesFWChain) filterRule(KUBE_PROXY_FIREWALL, ['-m', 'comment', '--comment', `${spn} traffic not accepted by ${fwChain}`, '-m', proto, '-p', proto, '-d', lbip, '--dport', port, '-j', 'DROP'])
    }
    if (!hasExternal) {
      for (const lbip of sp.loadBalancerVIPs) filterRule(KUBE_EXTERNAL_SERVICES, ['-m', 'comment', '--comment', externalComment, '-m', proto, '-p', proto, '-d', lbip, '--dport', port, '-j', externalTarget])
    }

    // NodePort (not subject to loadBalancerSourceRanges).
    if (sp.nodePort !== 0) {
      const np = String(sp.nodePort)
      if (hasEndpoints) {
        if (localhostNfacct) natRule(KUBE_NODEPORTS, ['-m', 'comment', '--comment', spn, '-m', proto, '-p', proto, '-d', '127.0.0.0/8', '--dport', np, '-m', 'nfacct', '--nfacct-name', NFACCT_LOCALHOST_NODEPORTS, '-j', extChain])
        natRule(KUBE_NODEPORTS, ['-m', 'comment', '--comment', spn, '-m', proto, '-p', proto, '--dport', np, '-j', extChain])
      }
      if (!hasExternal) filterRule(KUBE_EXTERNAL_SERVICES, ['-m', 'comment', '--comment', externalComment, '-m', 'addrtype', '--dst-type', 'LOCAL', '-m', proto, '-p', proto, '--dport', np, '-j', externalTarget])
    }

    // Health-check nodePort, whatever the endpoint state.
    if (sp.healthCheckNodePort !== 0) {
      filterRule(KUBE_NODEPORTS, ['-m', 'comment', '--comment', `${spn} health check node port`, '-m', 'tcp', '-p', 'tcp', '--dport', String(sp.healthCheckNodePort), '-j', 'ACCEPT'])
    }

    // Internal traffic: masquerade off-cluster traffic to the cluster IP (first rule of the internal chain).
    if (hasInternal) {
      const args = ['-m', 'comment', '--comment', `${spn} cluster IP`, '-m', proto, '-p', proto, '-d', sp.clusterIP, '--dport', port]
      if (o.masqueradeAll) natRule(internalChain, [...args, '-j', KUBE_MARK_MASQ])
      else if (detector) natRule(internalChain, [...args, ...detector.ifNotLocal, '-j', KUBE_MARK_MASQ])
    }

    if (usesExtChain) {
      nat.chain(extChain)
      if (!sp.externalPolicyLocal) {
        natRule(extChain, ['-m', 'comment', '--comment', `masquerade traffic for ${spn} external destinations`, '-j', KUBE_MARK_MASQ])
      } else {
        if (detector) natRule(extChain, ['-m', 'comment', '--comment', `pod traffic for ${spn} external destinations`, ...detector.ifLocal, '-j', svcChain])
        natRule(extChain, ['-m', 'comment', '--comment', `masquerade LOCAL traffic for ${spn} external destinations`, '-m', 'addrtype', '--src-type', 'LOCAL', '-j', KUBE_MARK_MASQ])
        natRule(extChain, ['-m', 'comment', '--comment', `route LOCAL traffic for ${spn} external destinations`, '-m', 'addrtype', '--src-type', 'LOCAL', '-j', svcChain])
      }
      if (hasExternal) natRule(extChain, ['-j', externalPolicyChain])
    }

    if (usesFWChain) {
      nat.chain(fwChain)
      const head = ['-m', 'comment', '--comment', `${spn} loadbalancer IP`]
      let allowFromNode = false
      for (const range of sp.loadBalancerSourceRanges) {
        natRule(fwChain, [...head, '-s', range.text, '-j', extChain])
        if (nodeIP && cidrContains(range.cidr, nodeIP)) allowFromNode = true
      }
      // A node reaching its own VIP is seen with the VIP as source.
      if (allowFromNode) for (const lbip of sp.loadBalancerVIPs) natRule(fwChain, [...head, '-s', lbip, '-j', extChain])
      natRule(fwChain, ['-m', 'comment', '--comment', `other traffic to ${spn} will be dropped by KUBE-PROXY-FIREWALL`])
    }

    if (usesClusterChain) {
      nat.chain(svcChain)
      writeServiceToEndpointRules(natRule, sp, svcChain, clusterEndpoints, largeClusterMode, sepName)
    }
    if (usesLocalChain) {
      nat.chain(svlChain)
      writeServiceToEndpointRules(natRule, sp, svlChain, localEndpoints, largeClusterMode, sepName)
    }

    // Each rule's arguments as one array literal (no growing arrays: these are most of the 400k rules at scale).
    for (const ep of allReachableEndpoints) {
      const sepChain = sepName(ep)
      nat.chain(sepChain)
      natRule(sepChain, largeClusterMode ? ['-s', ep.ip, '-j', KUBE_MARK_MASQ] : ['-m', 'comment', '--comment', spn, '-s', ep.ip, '-j', KUBE_MARK_MASQ])
      const dnat = ['-m', proto, '-p', proto, '-j', 'DNAT', '--to-destination', ep.endpoint]
      const affinity = sp.sessionAffinityClientIP ? ['-m', 'recent', '--name', sepChain, '--set'] : []
      if (largeClusterMode) natRule(sepChain, affinity.length === 0 ? dnat : [...affinity, ...dnat])
      else if (affinity.length === 0) natRule(sepChain, ['-m', 'comment', '--comment', spn, '-m', proto, '-p', proto, '-j', 'DNAT', '--to-destination', ep.endpoint])
      else natRule(sepChain, ['-m', 'comment', '--comment', spn, ...affinity, ...dnat])
    }
  }

  // Stale service chains found in the nat table are declared (flushed) and deleted. In large-cluster mode kube-proxy
  // does this at most once per syncPeriod; a rendered full sync assumes it is due.
  // The nat chains declared so far are the fixed ones and the active service chains.
  const existing = o.existingNatChains ?? []
  const activeNatChains = existing.length > 0 ? new Set(nat.table.chains) : new Set<string>()
  const stale = [...new Set(existing)].filter((c) => isServiceChainName(c) && !activeNatChains.has(c)).sort()
  for (const c of stale) nat.chain(c)
  nat.table.deletedChains = stale
  nat.table.deletedChainsAt = nat.table.rules.length

  // The nodeports jump, which must be the last rule of nat KUBE-SERVICES.
  if (npa.matchAll) {
    const dest = ['-m', 'addrtype', '--dst-type', 'LOCAL']
    if (isIPv6) dest.push('!', '-d', '::1/128')
    else if (!localhostNodePorts) dest.push('!', '-d', '127.0.0.0/8')
    nat.rule(KUBE_SERVICES, ['-m', 'comment', '--comment', NODEPORTS_JUMP_COMMENT, ...dest, '-j', KUBE_NODEPORTS])
  } else {
    for (const ip of nodePortIPs(npa, o.nodeInterfaceAddresses)) {
      if (isLoopback(ip) && (isIPv6 || !localhostNodePorts)) continue
      nat.rule(KUBE_SERVICES, ['-m', 'comment', '--comment', NODEPORTS_JUMP_COMMENT, '-d', ip.text, '-j', KUBE_NODEPORTS])
    }
  }

  // Drop INVALID packets, unless conntrack is liberal (v1.29+); count them with nfacct (v1.30+).
  if (!(o.tcpBeLiberal && versionAtLeast(v, 1, 29))) {
    const nfacct = versionAtLeast(v, 1, 30) && o.nfacct.ctStateInvalidDroppedPkts ? ['-m', 'nfacct', '--nfacct-name', NFACCT_CT_STATE_INVALID] : []
    filter.rule(KUBE_FORWARD, ['-m', 'conntrack', '--ctstate', 'INVALID', ...nfacct, '-j', 'DROP'])
  }
  filter.rule(KUBE_FORWARD, ['-m', 'comment', '--comment', 'kubernetes forwarding rules', '-m', 'mark', '--mark', `${mark}/${mark}`, '-j', 'ACCEPT'])
  filter.rule(KUBE_FORWARD, ['-m', 'comment', '--comment', 'kubernetes forwarding conntrack rule', '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', 'ACCEPT'])

  const ruleset: IptablesRuleset = {
    family: o.family,
    version: formatKubeProxyVersion(v),
    masqueradeMark: mark,
    largeClusterMode,
    localhostNodePorts,
    tables: [filter.table, nat.table],
  }
  const note = layoutClampNote(v)
  if (note !== undefined) ruleset.layoutNote = note
  return restoreOutput(ruleset)
}

/** The output, its `text` serialised on first access and kept. */
function restoreOutput(ruleset: IptablesRuleset): IptablesOutput {
  let text: string | undefined
  const out = {ruleset} as IptablesOutput
  Object.defineProperty(out, 'text', {
    enumerable: true,
    configurable: true,
    get: () => (text ??= serializeRestore(ruleset)),
  })
  return out
}

/** The `SPN -> EP` comment, built flat (see flat()): one per endpoint rule, and quoted later when saved. */
function endpointComment(sp: ServicePortInfo, ep: EndpointInfo): string {
  return [sp.name, ' -> ', ep.endpoint].join('')
}

function writeServiceToEndpointRules(
  natRule: (chain: string, args: string[]) => void,
  sp: ServicePortInfo,
  chain: string,
  endpoints: readonly EndpointInfo[],
  largeClusterMode: boolean,
  sepName: (ep: EndpointInfo) => string,
): void {
  // In large-cluster mode the "SPN -> EP" comments are left out. Each rule's arguments are one array literal.
  if (sp.sessionAffinityClientIP) {
    const seconds = String(sp.stickyMaxAgeSeconds)
    for (const ep of endpoints) {
      const sep = sepName(ep)
      const rest = ['-m', 'recent', '--name', sep, '--rcheck', '--seconds', seconds, '--reap', '-j', sep]
      natRule(chain, largeClusterMode ? rest : ['-m', 'comment', '--comment', endpointComment(sp, ep), ...rest])
    }
  }
  const n = endpoints.length
  for (let i = 0; i < n; i++) {
    const ep = endpoints[i]!
    const sep = sepName(ep)
    let args: string[]
    if (i < n - 1) {
      const p = computeProbability(n - i)
      args = largeClusterMode
        ? ['-m', 'statistic', '--mode', 'random', '--probability', p, '-j', sep]
        : ['-m', 'comment', '--comment', endpointComment(sp, ep), '-m', 'statistic', '--mode', 'random', '--probability', p, '-j', sep]
    } else args = largeClusterMode ? ['-j', sep] : ['-m', 'comment', '--comment', endpointComment(sp, ep), '-j', sep]
    natRule(chain, args)
  }
}

/** NodePortAddresses.GetNodeIPs: node interface IPs inside the CIDRs, deduplicated (kube-proxy: map order; here sorted). */
function nodePortIPs(npa: NodePortAddresses, interfaceAddresses: readonly string[]) {
  const ips = interfaceAddresses.map((a) => parseIPSloppy(a.split('/')[0] ?? '')).filter((p) => p !== undefined)
  const found = new Map<string, NonNullable<(typeof ips)[number]>>()
  for (const cidr of npa.cidrs) for (const ip of ips) if (cidrContains(cidr, ip)) found.set(ip.text, ip)
  return [...found.values()].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
}
