// The IPVS diff run over snapshots (live `check`, offline `analyze`, and `proxy diff --mode ipvs NODE`): cluster
// objects → the IPVS proxier's expected state for this node; the node's ipvsadm, ip addr, ipset and iptables-save
// → actual. Applies only where kube-proxy runs IPVS mode.
import type {IpvsActual} from '../../diff/ipvs.js'
import {factKey, NodeFacts} from '../../facts/node-facts.js'
import type {Parsed} from '../../facts/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../model/snapshot.js'
import {artifactText} from '../../model/snapshot.js'
import {type IpsetTable, parseIpset} from '../../parse/ipset.js'
import {type IpvsTable, parseIpvsadm} from '../../parse/ipvsadm.js'
import type {LinkTable} from '../../parse/links.js'
import {type IpvsOptions, ipvsOptionsFromKubeProxyConfig} from '../../proxier/ipvs/config.js'
import {generateIpvsState, type IpvsState} from '../../proxier/ipvs/generate.js'
import {buildRenderInput, type RenderInput} from '../../proxier/render-input.js'
import {detectNodeIPs} from '../../proxier/config.js'
import {type IPFamily, isLoopback, parseIPSloppy} from '../../proxier/ip.js'
import {type LoadedObjects, usableObjects} from '../../proxier/objects.js'
import {clusterIPForFamily} from '../../proxier/service-ports.js'
import {type IptablesDump, parseIptablesSave} from '../../parse/iptables-save.js'
import {nodeVersionInputsOf, objectsOf, outcomeForId, perNode, proxierConfigOf} from '../proxier-snapshot.js'
import {runtimeFacts} from '../iptables/live.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {diffIpvsFamilies, type IpvsDiffOutcome} from './diff.js'

/** The node artifacts the IPVS diff reads (collection plan ids). */
export const IPVS_ARTIFACTS = ['ipvsadm', 'ip-addr', 'ipset', 'iptables-save'] as const

/** One family's proxier input and the node's state for it. */
export interface IpvsFamilyInput {
  render: RenderInput
  /** The node's state; in render mode only what the node had. iptables is this family's dump (ip6tables-save for IPv6). */
  actual: IpvsActual
}

export interface IpvsNodeInput extends IpvsFamilyInput {
  ipvs: IpvsOptions
  /**
   * Every family kube-proxy runs an IPVS proxier for on this node, the primary one first (the same as `render` and
   * `actual`): the other family too on a dual-stack node (see ipvsFamilies).
   */
  families: IpvsFamilyInput[]
}

/** The cluster's objects without those the proxier cannot read, once per run. */
const USABLE_OBJECTS = factKey<LoadedObjects>('usable proxier objects')

export type IpvsLiveInput = ({ok: true} & IpvsNodeInput) | {ok: false; reason: string}

/** `ipvsadm -Sn` prints nothing on a node without virtual servers: that is an empty table, not bad input. */
export function parseIpvsadmOrEmpty(text: string): IpvsTable {
  return text.trim() === '' ? {format: 'save', virtualServers: []} : parseIpvsadm(text)
}

export function parseIpsetOrEmpty(text: string): IpsetTable {
  return text.trim() === '' ? {format: 'save', sets: []} : parseIpset(text)
}

/** Interface addresses (ip/len) of every interface but kube-ipvs0: what the IPVS proxier counts as the node's. */
export function nodeAddressesFromLinks(links: LinkTable): string[] {
  return links.interfaces.flatMap((i) => (i.name === 'kube-ipvs0' ? [] : i.addresses.map((a) => `${a.local}/${a.prefixlen}`)))
}

/**
 * The families to check on a node: the primary one (the Node's first InternalIP/ExternalIP, as kube-proxy picks
 * it), and the other one when the node has a non-loopback address of it and either the cluster has Services with a
 * ClusterIP of that family or the node shows that family's IPVS state (virtual servers, or its ipsets: KUBE-6-* for
 * IPv6). kube-proxy runs both IPVS proxiers wherever the host supports both families (a dual-stack MetaProxier).
 * NOTE: kube-proxy decides dual-stack from what the host supports (iptables of both families), which the snapshots
 * do not show directly; the evidence above is what is used instead.
 */
export function ipvsFamilies(cluster: ClusterSnapshot, node: NodeSnapshot, actual: IpvsActual, nodeAddresses: readonly string[]): IPFamily[] {
  const detected = detectNodeIPs(cluster.nodes.find((n) => n.metadata.name === node.node))
  const primary = detected.primaryFamily
  const other: IPFamily = primary === 'ipv4' ? 'ipv6' : 'ipv4'
  const hasAddress =
    !['127.0.0.1', '::1'].includes(detected.ips[other]) ||
    nodeAddresses.some((a) => {
      const ip = parseIPSloppy(a.split('/')[0] ?? '')
      return ip !== undefined && ip.family === other && !isLoopback(ip) && !(ip.family === 'ipv6' && ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80)
    })
  if (!hasAddress) return [primary]
  const services = cluster.services.some((s) => clusterIPForFamily(s, other) !== '')
  const shown =
    (actual.ipvs?.virtualServers.some((vs) => vs.protocol !== 'fwmark' && vs.family === other) ?? false) ||
    (actual.ipsets?.sets.some((set) => (other === 'ipv6' ? set.name.startsWith('KUBE-6-') : set.name.startsWith('KUBE-') && !set.name.startsWith('KUBE-6-'))) ?? false)
  return services || shown ? [primary, other] : [primary]
}

/**
 * Builds the IPVS diff's input for a node from snapshots; a reason instead when it does not apply. With `forRender`
 * (`proxy render --mode ipvs NODE`) the node need not run IPVS mode and the compared artifacts may be missing: only
 * the runtime facts (node addresses, iptables version) are taken from what is there. Objects the proxier cannot
 * read are left out (EP-003 reports them).
 */
export function ipvsLiveInput(cluster: ClusterSnapshot, node: NodeSnapshot, options: {forRender?: boolean; facts?: NodeFacts} = {}): IpvsLiveInput {
  const render = options.forRender === true
  const nodeFacts = options.facts ?? NodeFacts.of(cluster, node)
  if (!render) {
    // NOTE: the runner already skips on a known other mode (the IPVS checks' `when`); this serves direct callers.
    const facts = nodeFacts.proxy
    const mode = facts.running?.mode ?? facts.configured?.mode
    if (mode !== 'ipvs') return {ok: false, reason: `not applicable: kube-proxy runs in ${mode ?? 'an unknown'} mode${mode === undefined ? '' : ', not ipvs'}`}
    const missing = IPVS_ARTIFACTS.filter((id) => artifactText(node, id) === undefined)
    if (missing.length > 0) return {ok: false, reason: `missing input: ${missing.join(', ')}`}
  }
  const text = (id: (typeof IPVS_ARTIFACTS)[number]) => artifactText(node, id) ?? ''
  const actual: IpvsActual = {}
  let iptables6: IptablesDump | undefined
  const parsed = <T>(id: string, p: Parsed<T> | undefined): T | undefined => {
    if (p === undefined) return undefined
    if (p.ok) return p.value
    const line = p.problem.line
    throw new Error(`the node's ${id} could not be parsed${line !== undefined ? ` (line ${line})` : ''}: ${p.error.message}`)
  }
  try {
    const ipvs = parsed('ipvsadm', nodeFacts.ipvsadm())
    const links = parsed('ip-addr', nodeFacts.links('ip-addr'))
    const ipsets = parsed('ipset', nodeFacts.ipset())
    const iptables = parsed('iptables-save', nodeFacts.iptablesSave())
    Object.assign(actual, ipvs && {ipvs}, links && {links}, ipsets && {ipsets}, iptables && {iptables})
  } catch (err) {
    return {ok: false, reason: (err as Error).message}
  }
  const objects = {...nodeFacts.run.derive(USABLE_OBJECTS, (c) => usableObjects(objectsOf(c))), nodeVersionInputs: nodeVersionInputsOf(nodeFacts)}
  const cfg = proxierConfigOf(nodeFacts)
  if (!cfg.ok) return cfg
  const config = cfg.config
  try {
    // Every interface but kube-ipvs0, as kube-proxy's GetAllLocalAddressesExcept: NodePort virtual servers go on all
    // of them (loopback and IPv6 link-local are dropped by the proxier, per family).
    const addrs = actual.links ? nodeAddressesFromLinks(actual.links) : []
    const families = ipvsFamilies(cluster, node, actual, addrs)
    const inputs: IpvsFamilyInput[] = []
    for (const family of families) {
      const r = buildRenderInput(objects, {
        nodeName: node.node,
        ...(config ? {kubeProxyConfig: config} : {}),
        ...(cfg.sources ? {configSources: cfg.sources} : {}),
        facts: {...runtimeFacts(node, text('iptables-save'), nodeFacts), ...(addrs.length > 0 ? {nodeInterfaceAddresses: addrs} : {}), family},
      })
      if (family === 'ipv4') {
        inputs.push({render: r, actual})
        continue
      }
      // The IPv6 proxier's iptables rules are in ip6tables-save; without it they are not compared.
      if (iptables6 === undefined) {
        const t6 = artifactText(node, 'ip6tables-save')
        if (t6 !== undefined && t6.trim() !== '') {
          try {
            iptables6 = parseIptablesSave(t6, {family: 'ipv6'})
          } catch (err) {
            return {ok: false, reason: `the node's ip6tables-save could not be parsed: ${(err as Error).message}`}
          }
        }
      }
      const {iptables: _v4, ...rest} = actual
      inputs.push({render: r, actual: {...rest, ...(iptables6 ? {iptables: iptables6} : {})}})
    }
    const primary = inputs[0]!
    if (addrs.length === 0) {
      primary.render.notes.push(
        `the node's \`ip addr\` is not available: NodePort virtual servers and the node-address checks assume the Node object's addresses (${primary.render.input.options.nodeInterfaceAddresses.join(', ')}) instead of every address on its interfaces`,
      )
    }
    return {ok: true, render: primary.render, actual: primary.actual, families: inputs, ipvs: ipvsOptionsFromKubeProxyConfig(config)}
  } catch (err) {
    return {ok: false, reason: `cannot regenerate kube-proxy's IPVS state: ${(err as Error).message}`}
  }
}

export type IpvsLiveDiff =
  | {ok: true; /** The primary family's state. */ state: IpvsState; states: IpvsState[]; outcome: IpvsDiffOutcome; drafts: ReadonlyMap<string, FindingDraft[]>}
  | {ok: false; reason: string}

function compute(cluster: ClusterSnapshot, node: NodeSnapshot, facts: NodeFacts): IpvsLiveDiff {
  const input = ipvsLiveInput(cluster, node, {facts})
  if (!input.ok) return input
  let families
  try {
    families = input.families.map((f) => ({state: generateIpvsState({...f.render.input, ipvs: input.ipvs}), actual: f.actual}))
  } catch (err) {
    return {ok: false, reason: `cannot regenerate kube-proxy's IPVS state: ${(err as Error).message}`}
  }
  const {drafts, ...outcome} = diffIpvsFamilies(families, node.node, input.ipvs.excludeCIDRs)
  return {ok: true, state: families[0]!.state, states: families.map((f) => f.state), outcome, drafts}
}

/** One diff per node, kept on its facts: the IPVS checks share it. */
export const liveIpvsDiff: (ctx: CheckContext) => IpvsLiveDiff = perNode(factKey<IpvsLiveDiff>('ipvs diff'), compute)

/** A check's outcome for one IPVS id, from the shared diff. */
export function ipvsOutcomeFor(id: string, ctx: CheckContext): CheckOutcome {
  const d = liveIpvsDiff(ctx)
  return outcomeForId(d.ok ? {ok: true, drafts: d.drafts} : d, id)
}
