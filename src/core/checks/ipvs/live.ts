// The IPVS diff run over snapshots (live `check`, offline `analyze`, and `proxy diff --mode ipvs NODE`): cluster
// objects → the IPVS proxier's expected state for this node; the node's ipvsadm, ip addr, ipset and iptables-save
// → actual. Applies only where kube-proxy runs IPVS mode.
import type {IpvsActual} from '../../diff/ipvs.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../model/snapshot.js'
import {artifactText} from '../../model/snapshot.js'
import {parseIptablesSave} from '../../parse/iptables-save.js'
import {type IpsetTable, parseIpset} from '../../parse/ipset.js'
import {type IpvsTable, parseIpvsadm} from '../../parse/ipvsadm.js'
import {type LinkTable, parseLinks} from '../../parse/links.js'
import {type IpvsOptions, ipvsOptionsFromKubeProxyConfig} from '../../proxier/ipvs/config.js'
import {generateIpvsState, type IpvsState} from '../../proxier/ipvs/generate.js'
import {buildRenderInput, type RenderInput} from '../../proxier/render-input.js'
import {kubeProxyConfigOf, memoPerNode, objectsOf, outcomeForId} from '../proxier-snapshot.js'
import {runtimeFacts} from '../iptables/live.js'
import {proxyFacts} from '../proxy-mode/facts.js'
import type {CheckContext, CheckOutcome} from '../types.js'
import {diffIpvsAgainstNode, type IpvsDiffOutcome} from './diff.js'

/** The node artifacts the IPVS diff reads (collection plan ids). */
export const IPVS_ARTIFACTS = ['ipvsadm', 'ip-addr', 'ipset', 'iptables-save'] as const

export interface IpvsNodeInput {
  render: RenderInput
  ipvs: IpvsOptions
  /** The node's state; in render mode only what the node had. */
  actual: IpvsActual
}

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
 * Builds the IPVS diff's input for a node from snapshots; a reason instead when it does not apply. With `forRender`
 * (`proxy render --mode ipvs NODE`) the node need not run IPVS mode and the compared artifacts may be missing: only
 * the runtime facts (node addresses, iptables version) are taken from what is there.
 */
export function ipvsLiveInput(cluster: ClusterSnapshot, node: NodeSnapshot, options: {forRender?: boolean} = {}): IpvsLiveInput {
  const render = options.forRender === true
  if (!render) {
    const facts = proxyFacts({cluster, node})
    const mode = facts.running?.mode ?? facts.configured?.mode
    if (mode !== 'ipvs') return {ok: false, reason: `not applicable: kube-proxy runs in ${mode ?? 'an unknown'} mode${mode === undefined ? '' : ', not ipvs'}`}
    const missing = IPVS_ARTIFACTS.filter((id) => artifactText(node, id) === undefined)
    if (missing.length > 0) return {ok: false, reason: `missing input: ${missing.join(', ')}`}
  }
  const text = (id: (typeof IPVS_ARTIFACTS)[number]) => artifactText(node, id) ?? ''
  const actual: IpvsActual = {}
  const parsed = <T>(id: string, f: () => T): T | undefined => {
    if (render && artifactText(node, id) === undefined) return undefined
    try {
      return f()
    } catch (err) {
      const line = (err as {line?: number}).line
      throw new Error(`the node's ${id} could not be parsed${line !== undefined ? ` (line ${line})` : ''}: ${(err as Error).message}`)
    }
  }
  try {
    const ipvs = parsed('ipvsadm', () => parseIpvsadmOrEmpty(text('ipvsadm')))
    const links = parsed('ip-addr', () => parseLinks(text('ip-addr')))
    const ipsets = parsed('ipset', () => parseIpsetOrEmpty(text('ipset')))
    const iptables = parsed('iptables-save', () => parseIptablesSave(text('iptables-save'), {family: 'ipv4'}))
    Object.assign(actual, ipvs && {ipvs}, links && {links}, ipsets && {ipsets}, iptables && {iptables})
  } catch (err) {
    return {ok: false, reason: (err as Error).message}
  }
  const objects = objectsOf(cluster)
  const cfg = kubeProxyConfigOf(objects)
  if (!cfg.ok) return cfg
  const config = cfg.config
  try {
    const addrs = actual.links ? nodeAddressesFromLinks(actual.links) : []
    const render = buildRenderInput(objects, {
      nodeName: node.node,
      ...(config ? {kubeProxyConfig: config} : {}),
      facts: {...runtimeFacts(node, text('iptables-save')), ...(addrs.length > 0 ? {nodeInterfaceAddresses: addrs} : {}), family: 'ipv4'},
    })
    return {ok: true, render, ipvs: ipvsOptionsFromKubeProxyConfig(config), actual}
  } catch (err) {
    return {ok: false, reason: `cannot regenerate kube-proxy's IPVS state: ${(err as Error).message}`}
  }
}

export type IpvsLiveDiff = {ok: true; state: IpvsState; outcome: IpvsDiffOutcome} | {ok: false; reason: string}

function compute(cluster: ClusterSnapshot, node: NodeSnapshot): IpvsLiveDiff {
  const input = ipvsLiveInput(cluster, node)
  if (!input.ok) return input
  const state = generateIpvsState({...input.render.input, ipvs: input.ipvs})
  return {ok: true, state, outcome: diffIpvsAgainstNode(state, input.actual, node.node, input.ipvs.excludeCIDRs)}
}

/** Memoised per (cluster, node) snapshot pair: the IPVS checks share one diff. */
export const liveIpvsDiff: (ctx: CheckContext) => IpvsLiveDiff = memoPerNode(compute)

/** A check's outcome for one IPVS id, from the shared diff. */
export function ipvsOutcomeFor(id: string, ctx: CheckContext): CheckOutcome {
  return outcomeForId(liveIpvsDiff(ctx), id, true)
}
