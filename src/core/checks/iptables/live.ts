// The iptables diff run over snapshots (live `check` and offline `analyze`): cluster objects → the proxier's
// expected rules for this node; the node's iptables-save → actual; runtime facts from the node's artifacts.
import {factKey, NodeFacts} from '../../facts/node-facts.js'
import type {Parsed} from '../../facts/types.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../model/snapshot.js'
import {artifactText} from '../../model/snapshot.js'
import type {IptablesDump} from '../../parse/iptables-save.js'
import {KUBE_IPVS_DEVICE, type LinkTable, parseLinks} from '../../parse/links.js'
import type {RuntimeFacts} from '../../proxier/config.js'
import {generateIptablesRestore} from '../../proxier/iptables/generate.js'
import type {IptablesRuleset} from '../../proxier/iptables/ruleset.js'
import {buildRenderInput, type RenderInput} from '../../proxier/render-input.js'
import {effectiveProxyMode, objectsOf, outcomeForId, perNode, proxierConfigOf} from '../proxier-snapshot.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {diffRulesetAgainstDump, type IptablesDiffOutcome} from './diff.js'

export type LiveDiff = {ok: true; outcome: IptablesDiffOutcome; drafts: ReadonlyMap<string, FindingDraft[]>} | {ok: false; reason: string}

/** iptables ≥ 1.6.2 supports --random-fully. */
export function randomFullyFromVersion(text: string | undefined): boolean | undefined {
  const m = /v(\d+)\.(\d+)\.(\d+)/.exec(text ?? '')
  if (!m) return undefined
  const [maj, min, patch] = [Number(m[1]), Number(m[2]), Number(m[3])]
  return maj > 1 || (maj === 1 && (min > 6 || (min === 6 && patch >= 2)))
}

/** Interface addresses from `ip -j addr` (ip/len, kube-ipvs0's service VIPs left out), or undefined when unusable. */
export function addressesFromIpJson(text: string | undefined): string[] | undefined {
  if (!text) return undefined
  let table: LinkTable
  try {
    table = parseLinks(text)
  } catch {
    return undefined
  }
  return addressesFromLinkTable(table)
}

/** The same, from the node's facts (its `ip -j addr` parsed once). */
export function addressesFromFacts(facts: NodeFacts): string[] | undefined {
  if (!facts.text('ip-addr')) return undefined
  const table = facts.links('ip-addr')
  return table?.ok ? addressesFromLinkTable(table.value) : undefined
}

function addressesFromLinkTable(table: LinkTable): string[] | undefined {
  // NOTE: only the JSON form the plan collects counts, as before; a text listing leaves the proxier's defaults.
  if (table.format !== 'ip-json') return undefined
  return table.interfaces.flatMap((i) => (i.name === KUBE_IPVS_DEVICE ? [] : i.addresses.map((a) => `${a.local}/${a.prefixlen}`)))
}

/** The node's runtime facts, as far as its artifacts tell; unknown facts keep the proxier's defaults. */
export function runtimeFacts(node: NodeSnapshot, dumpText: string, nodeFacts?: NodeFacts): Omit<RuntimeFacts, 'version'> {
  const facts: Omit<RuntimeFacts, 'version'> = {}
  const rf = randomFullyFromVersion(artifactText(node, 'iptables-version'))
  if (rf !== undefined) facts.randomFully = rf
  const nfacct = artifactText(node, 'nfacct')
  if (nfacct !== undefined) {
    facts.nfacct = {ctStateInvalidDroppedPkts: nfacct.includes('ct_state_invalid_dropped_pkts'), localhostNpsAcceptedPkts: nfacct.includes('localhost_nps_accepted_pkts')}
  } else {
    // NOTE: without the nfacct tool the counters can only be seen in use: kube-proxy matches on them when they exist.
    facts.nfacct = {ctStateInvalidDroppedPkts: dumpText.includes('ct_state_invalid_dropped_pkts'), localhostNpsAcceptedPkts: dumpText.includes('localhost_nps_accepted_pkts')}
  }
  const liberal = /net\.netfilter\.nf_conntrack_tcp_be_liberal\s*=\s*(\d+)/.exec(artifactText(node, 'sysctls') ?? '')
  if (liberal) facts.tcpBeLiberal = liberal[1] !== '0'
  const addrs = nodeFacts ? addressesFromFacts(nodeFacts) : addressesFromIpJson(artifactText(node, 'ip-addr'))
  if (addrs && addrs.length > 0) facts.nodeInterfaceAddresses = addrs
  return facts
}

/** What the proxier needs for one node from its snapshots: the render input and the node's parsed dump. */
export type LiveProxierInput = {ok: true; render: RenderInput; dump: IptablesDump; dumpText: string} | {ok: false; reason: string}

/** Builds the proxier input for a node from snapshots; a reason instead when the iptables diff does not apply. */
export function liveProxierInput(cluster: ClusterSnapshot, node: NodeSnapshot, facts: NodeFacts = NodeFacts.of(cluster, node)): LiveProxierInput {
  const dumpText = artifactText(node, 'iptables-save')
  if (dumpText === undefined) return {ok: false, reason: 'missing input: iptables-save'}
  const objects = objectsOf(cluster, facts)
  const cfg = proxierConfigOf(facts)
  if (!cfg.ok) return cfg
  const config = cfg.config
  const mode = effectiveProxyMode(node, config)
  if (mode !== 'iptables') return {ok: false, reason: `not applicable: kube-proxy runs in ${mode} mode`}
  const parsed = facts.iptablesSave() as Parsed<IptablesDump>
  if (!parsed.ok) return {ok: false, reason: `the node's iptables-save could not be parsed: ${parsed.error.message}`}
  try {
    const render = buildRenderInput(objects, {nodeName: node.node, ...(config ? {kubeProxyConfig: config} : {}), ...(cfg.sources ? {configSources: cfg.sources} : {}), facts: {...runtimeFacts(node, dumpText, facts), family: 'ipv4'}})
    return {ok: true, render, dump: parsed.value, dumpText}
  } catch (err) {
    return {ok: false, reason: `cannot regenerate kube-proxy's rules: ${(err as Error).message}`}
  }
}

/** The proxier's expected rules for a node with the input they came from, or why there are none. */
export type LiveRuleset = {ok: true; ruleset: IptablesRuleset; dump: IptablesDump; dumpText: string} | {ok: false; reason: string}

/** One expected ruleset per node, kept on its facts: the IPT checks' diff and NODE-022 (the modules its rules use) share it. */
export const liveIptablesRuleset: (ctx: CheckContext) => LiveRuleset = perNode(factKey<LiveRuleset>('iptables expected ruleset'), (cluster, node, facts) => {
  const input = liveProxierInput(cluster, node, facts)
  if (!input.ok) return input
  return {ok: true, ruleset: generateIptablesRestore(input.render.input).ruleset, dump: input.dump, dumpText: input.dumpText}
})

function computeLiveDiff(cluster: ClusterSnapshot, node: NodeSnapshot, facts: NodeFacts): LiveDiff {
  const expected = liveIptablesRuleset({cluster, node, facts})
  if (!expected.ok) return expected
  const {drafts, ...outcome} = diffRulesetAgainstDump(expected.ruleset, expected.dump, node.node)
  return {ok: true, outcome, drafts}
}

/** One diff per node, kept on its facts: the eight IPT checks share it. */
export const liveIptablesDiff: (ctx: CheckContext) => LiveDiff = perNode(factKey<LiveDiff>('iptables diff'), computeLiveDiff)

/** A check's outcome for one IPT id, from the shared diff. */
export function outcomeFor(id: string, ctx: CheckContext): CheckOutcome {
  const d = liveIptablesDiff(ctx)
  return outcomeForId(d.ok ? {ok: true, drafts: d.drafts} : d, id)
}
