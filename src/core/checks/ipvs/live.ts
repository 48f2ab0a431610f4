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
import {objectsOf, outcomeForId, perNode, proxierConfigOf} from '../proxier-snapshot.js'
import {runtimeFacts} from '../iptables/live.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
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
  const objects = objectsOf(cluster, nodeFacts)
  const cfg = proxierConfigOf(nodeFacts)
  if (!cfg.ok) return cfg
  const config = cfg.config
  try {
    const addrs = actual.links ? nodeAddressesFromLinks(actual.links) : []
    const render = buildRenderInput(objects, {
      nodeName: node.node,
      ...(config ? {kubeProxyConfig: config} : {}),
      facts: {...runtimeFacts(node, text('iptables-save'), nodeFacts), ...(addrs.length > 0 ? {nodeInterfaceAddresses: addrs} : {}), family: 'ipv4'},
    })
    return {ok: true, render, ipvs: ipvsOptionsFromKubeProxyConfig(config), actual}
  } catch (err) {
    return {ok: false, reason: `cannot regenerate kube-proxy's IPVS state: ${(err as Error).message}`}
  }
}

export type IpvsLiveDiff = {ok: true; state: IpvsState; outcome: IpvsDiffOutcome; drafts: ReadonlyMap<string, FindingDraft[]>} | {ok: false; reason: string}

function compute(cluster: ClusterSnapshot, node: NodeSnapshot, facts: NodeFacts): IpvsLiveDiff {
  const input = ipvsLiveInput(cluster, node, {facts})
  if (!input.ok) return input
  const state = generateIpvsState({...input.render.input, ipvs: input.ipvs})
  const {drafts, ...outcome} = diffIpvsAgainstNode(state, input.actual, node.node, input.ipvs.excludeCIDRs)
  return {ok: true, state, outcome, drafts}
}

/** One diff per node, kept on its facts: the IPVS checks share it. */
export const liveIpvsDiff: (ctx: CheckContext) => IpvsLiveDiff = perNode(factKey<IpvsLiveDiff>('ipvs diff'), compute)

/** A check's outcome for one IPVS id, from the shared diff. */
export function ipvsOutcomeFor(id: string, ctx: CheckContext): CheckOutcome {
  const d = liveIpvsDiff(ctx)
  return outcomeForId(d.ok ? {ok: true, drafts: d.drafts} : d, id)
}
