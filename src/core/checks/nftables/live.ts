// The nftables diff over snapshots (live `check` and offline `analyze`): cluster objects → the expected kube-proxy
// tables for this node; the node's `nft list ruleset` → actual. Applies only when kube-proxy runs in nftables mode.
import {factKey, NodeFacts} from '../../facts/node-facts.js'
import type {ServiceCIDR} from '../../model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../model/snapshot.js'
import {type NftRuleset, findNftTable} from '../../parse/nft.js'
import {detectNodeIPs} from '../../proxier/config.js'
import type {IPFamily} from '../../proxier/ip.js'
import {generateNftables} from '../../proxier/nftables/generate.js'
import {type NftablesRenderInput, nftablesRenderInput} from '../../proxier/nftables/options.js'
import type {NftExpectedTable} from '../../proxier/nftables/table.js'
import {buildRenderInput, type RenderInput} from '../../proxier/render-input.js'
import {effectiveProxyMode, objectsOf, outcomeForId, perNode, proxierConfigOf} from '../proxier-snapshot.js'
import {addressesFromFacts} from '../iptables/live.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {type NftablesDiffOutcome, diffTablesAgainstListing} from './diff.js'

export type LiveNftablesInput = {ok: true; inputs: NftablesRenderInput[]; listing: NftRuleset; render: RenderInput} | {ok: false; reason: string}

/**
 * The nftables proxier's inputs for a node from snapshots (the primary family, plus the other one when the node has
 * an address of it and the listing holds its table); a reason instead when the nftables diff does not apply.
 */
export function liveNftablesInput(
  cluster: ClusterSnapshot,
  node: NodeSnapshot,
  opts: {anyMode?: boolean; listingOptional?: boolean; facts?: NodeFacts} = {},
): LiveNftablesInput {
  const facts = opts.facts ?? NodeFacts.of(cluster, node)
  const objects = objectsOf(cluster, facts)
  const cfg = proxierConfigOf(facts)
  if (!cfg.ok) return cfg
  const config = cfg.config
  const mode = effectiveProxyMode(node, config)
  if (mode !== 'nftables' && !opts.anyMode) return {ok: false, reason: `not applicable: kube-proxy runs in ${mode} mode`}
  const parsed = facts.nftRuleset() ?? (opts.listingOptional ? {ok: true as const, value: {format: 'text' as const, tables: []}} : undefined)
  if (parsed === undefined) return {ok: false, reason: 'missing input: nft-ruleset'}
  if (!parsed.ok) return {ok: false, reason: `the node's nft ruleset could not be parsed: ${parsed.error.message}`}
  const listing: NftRuleset = parsed.value
  const addrs = addressesFromFacts(facts)
  const nodeObj = cluster.nodes.find((n) => n.metadata.name === node.node)
  const detected = detectNodeIPs(nodeObj)
  const families: IPFamily[] = [detected.primaryFamily]
  const other: IPFamily = detected.primaryFamily === 'ipv4' ? 'ipv6' : 'ipv4'
  const otherIP = detected.ips[other]
  if (otherIP !== '127.0.0.1' && otherIP !== '::1' && findNftTable(listing, other === 'ipv6' ? 'ip6' : 'ip', 'kube-proxy')) families.push(other)
  const serviceCIDRs = serviceCIDRsForDiff(cluster, listing)
  try {
    const renders: RenderInput[] = []
    const inputs = families.map((family) => {
      const render = buildRenderInput(objects, {
        nodeName: node.node,
        ...(config ? {kubeProxyConfig: config} : {}),
        ...(cfg.sources ? {configSources: cfg.sources} : {}),
        facts: {family, ...(addrs && addrs.length > 0 ? {nodeInterfaceAddresses: addrs} : {})},
      })
      renders.push(render)
      return nftablesRenderInput(render, config, serviceCIDRs)
    })
    return {ok: true, inputs, listing, render: renders[0]!}
  } catch (err) {
    return {ok: false, reason: `cannot regenerate kube-proxy's nftables rules: ${(err as Error).message}`}
  }
}

const DROP_UNALLOCATED = 'Drop traffic to unallocated ClusterIPs'

/**
 * The CIDRs in the node's own "drop traffic to unallocated ClusterIPs" rules (chain cluster-ips-check of each
 * kube-proxy table), as ServiceCIDR objects.
 */
export function serviceCIDRsFromListing(listing: NftRuleset): ServiceCIDR[] {
  const cidrs: string[] = []
  for (const family of ['ip', 'ip6'] as const) {
    const chain = findNftTable(listing, family, 'kube-proxy')?.chains.find((c) => c.name === 'cluster-ips-check')
    for (const rule of chain?.rules ?? []) {
      if (rule.comment !== DROP_UNALLOCATED && !rule.text.includes(`"${DROP_UNALLOCATED}"`)) continue
      const set = /daddr \{([^}]*)\}/.exec(rule.text)?.[1] ?? /daddr (\S+\/\d+)/.exec(rule.text)?.[1]
      for (const c of (set ?? '').split(',')) if (c.trim() !== '') cidrs.push(c.trim())
    }
  }
  return cidrs.length === 0 ? [] : [{apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: {name: 'from-node-drop-rule'}, spec: {cidrs}}]
}

/**
 * The ServiceCIDRs the expected rules use: the cluster's, unless this user may not read them (403). kube-proxy reads
 * them with its own rights, so then the drop rule cannot be judged: the node's own rule is taken as expected (its
 * CIDRs are not checked), rather than reporting it as extra.
 */
function serviceCIDRsForDiff(cluster: ClusterSnapshot, listing: NftRuleset): readonly ServiceCIDR[] {
  const forbidden = cluster.unavailable?.some((u) => u.resource === 'servicecidrs' && u.why === 'forbidden')
  return forbidden ? serviceCIDRsFromListing(listing) : cluster.serviceCIDRs
}

export type LiveNftDiff = {ok: true; expected: NftExpectedTable[]; outcome: NftablesDiffOutcome; drafts: ReadonlyMap<string, FindingDraft[]>} | {ok: false; reason: string}

/** One diff per node, kept on its facts: the NFT checks share it. */
export const liveNftablesDiff: (ctx: CheckContext) => LiveNftDiff = perNode(factKey<LiveNftDiff>('nftables diff'), (cluster, node, facts) => {
  const input = liveNftablesInput(cluster, node, {facts})
  if (!input.ok) return input
  const expected = input.inputs.map((i) => generateNftables(i.input))
  const {drafts, ...outcome} = diffTablesAgainstListing(expected, input.listing, node.node)
  return {ok: true, expected, outcome, drafts}
})

/** A check's outcome for one NFT id, from the shared diff. */
export function nftOutcomeFor(id: string, ctx: CheckContext): CheckOutcome {
  const d = liveNftablesDiff(ctx)
  return outcomeForId(d.ok ? {ok: true, drafts: d.drafts} : d, id)
}
