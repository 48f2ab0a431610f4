// `proxy render --mode ipvs` and `proxy diff --mode ipvs`: what the two commands call. Offline from files
// (--objects/--node plus --ipvsadm, --ip-addr, --ipset, --iptables-save) or live for a NODE (objects from the API,
// the node's artifacts over the transport).
import {diffIpvsAgainstNode, diffIpvsFamilies, type IpvsDiffOutcome} from '../../core/checks/ipvs/diff.js'
import {ipvsLiveInput, nodeAddressesFromLinks, parseIpsetOrEmpty, parseIpvsadmOrEmpty} from '../../core/checks/ipvs/live.js'
import type {IpvsActual} from '../../core/diff/ipvs.js'
import {ipvsDiffByService} from '../../core/diff/ipvs-view.js'
import {parseIptablesSave} from '../../core/parse/iptables-save.js'
import {parseLinks} from '../../core/parse/links.js'
import {type IpvsOptions, ipvsOptionsFromKubeProxyConfig} from '../../core/proxier/ipvs/config.js'
import {formatIpvsState, generateIpvsState, type IpvsState} from '../../core/proxier/ipvs/generate.js'
import {formatObjectProblem, objectProblems} from '../../core/proxier/objects.js'
import {EP_INVALID_OBJECT} from '../../core/checks/objects/specs.js'
import type {RenderInput} from '../../core/proxier/render-input.js'
import {InputError, ParseError, UsageError} from '../../errors.js'
import type {Environment} from '../../ports/environment.js'
import {ArtifactUnavailableError} from '../live/node-artifact.js'
import type {LiveFlags} from '../live/targets.js'
import {describeRender, type RenderInputWithProblems, parseInputFile, pastedIptablesDump, pastedIpvsTable, renderHeader, type ProxierFlagValues, type ProxyIO, type ProxyMeta, resolveProxierInput, withPastedInput} from './input.js'
import {collectProxierNode} from './live.js'
import {type ProxyDiff, proxyDiffReport} from './report.js'

export const IPVS_DEPRECATION_NOTE =
  'note: IPVS mode is deprecated since kube-proxy v1.35 (KEP-5495) and will be gated off; plan the move to nftables mode (`kubectl node-doctor fix kube-proxy-mode --to nftables`).'

const CONFIG_SOURCE = 'kube-system/kube-proxy ConfigMap (config.conf)'

interface IpvsRender {
  render: RenderInput
  ipvs: IpvsOptions
  state: IpvsState
}

/**
 * The offline proxier input for IPVS mode: the objects files, the kube-proxy configuration (with its `ipvs:`
 * section) and runtime facts.
 */
function resolveIpvsOffline(flags: ProxierFlagValues, env: Environment, nodeAddresses?: string[]): IpvsRender {
  const render = resolveProxierInput(flags, env, undefined, nodeAddresses ? {nodeAddresses} : {})
  try {
    const ipvs = ipvsOptionsFromKubeProxyConfig(render.kubeProxyConfig)
    const state = generateIpvsState({...render.input, ipvs})
    // kube-proxy puts NodePort virtual servers on every address of the node's interfaces but kube-ipvs0: without
    // --ip-addr or --node-address only the Node object's addresses are known.
    if (nodeAddresses === undefined && flags['node-address'] === undefined && state.virtualServers.some((v) => v.kind === 'node-port')) {
      render.notes.push(`NodePort virtual servers are rendered on the Node object's addresses (${state.nodePortAddresses.join(', ')}); give --ip-addr (the node's \`ip -j addr\`) or --node-address for every address kube-proxy uses`)
    }
    return {render, ipvs, state}
  } catch (err) {
    if (err instanceof ParseError) throw new InputError(CONFIG_SOURCE, err.message.replace(/^kube-proxy configuration: /, ''))
    throw err
  }
}

/**
 * Live: objects from the API, the node's artifacts over the transport; the node must run IPVS mode. `families` holds
 * each family kube-proxy runs an IPVS proxier for (the primary one first, the same as `state` and `actual`).
 */
async function resolveIpvsLive(
  node: string,
  flags: Partial<LiveFlags>,
  env: Environment,
  forRender = false,
): Promise<IpvsRender & {actual: IpvsActual; context: string; families: Array<{state: IpvsState; actual: IpvsActual}>}> {
  const live = await collectProxierNode(node, flags, env, ['ipvs', 'proxy-mode'])
  const input = ipvsLiveInput(live.cluster, live.snap, {forRender})
  if (!input.ok) throw new ArtifactUnavailableError(`node ${node}: ${input.reason}`)
  const families = input.families.map((f) => ({state: generateIpvsState({...f.render.input, ipvs: input.ipvs}), actual: f.actual}))
  // Cluster objects the proxier cannot read were left out: EP-003, as `check` reports them.
  const problems = objectProblems(live.cluster)
  const render: RenderInputWithProblems = {...input.render, notes: [...input.render.notes, ...problems.map((p) => `${EP_INVALID_OBJECT.id} (${EP_INVALID_OBJECT.severity}): ${formatObjectProblem(p)}`)], objectProblems: problems}
  return {render, ipvs: input.ipvs, state: families[0]!.state, actual: input.actual, context: live.context, families}
}

function notes(io: ProxyIO, r: IpvsRender): void {
  if (io.verbose) io.note(`${describeRender(r.render)}, IPVS scheduler ${r.ipvs.scheduler}`)
  if (io.quiet) return
  for (const n of r.render.notes) io.note(`note: ${n}`)
  io.note(IPVS_DEPRECATION_NOTE)
}

/** `proxy render --mode ipvs`: the text to print (ipvsadm -Sn, kube-ipvs0 addresses, ipset save, iptables). */
export async function renderIpvs(node: string | undefined, flags: ProxierFlagValues & Partial<LiveFlags>, env: Environment, io: ProxyIO): Promise<string> {
  if (node === undefined) {
    const r = resolveIpvsOffline(flags, env)
    notes(io, r)
    return renderHeader(r.render, 'ipvs', false, io) + formatIpvsState(r.state)
  }
  const live = await resolveIpvsLive(node, flags, env, true)
  // A dual-stack node runs one IPVS proxier per family: the primary one is printed unless --ip-family asks.
  const want = flags['ip-family']
  const chosen = want === undefined ? live.families[0]! : live.families.find((f) => f.state.family === want)
  if (!chosen) throw new UsageError(`node ${node} shows no ${want} IPVS proxier (it has no ${want} address, Service or IPVS state)`, `Families found: ${live.families.map((f) => f.state.family).join(', ')}.`)
  notes(io, live)
  const others = live.families.filter((f) => f !== chosen).map((f) => f.state.family)
  if (others.length > 0 && !io.quiet) io.note(`note: node ${node} is dual-stack: this is the ${chosen.state.family} IPVS proxier's state (--ip-family ${others.join(', ')} for the other)`)
  return renderHeader(live.render, 'ipvs', true, io) + formatIpvsState(chosen.state)
}

export interface IpvsDiffFlagValues extends ProxierFlagValues {
  ipvsadm?: string
  'ip-addr'?: string
  ipset?: string
  'iptables-save'?: string
}

/** `proxy diff --mode ipvs`: the Report of the IPVS checks for one node, and the differences per virtual server. */
export async function diffIpvs(
  node: string | undefined,
  flags: IpvsDiffFlagValues & Partial<LiveFlags>,
  env: Environment,
  io: ProxyIO,
  meta: ProxyMeta,
): Promise<ProxyDiff> {
  let r: IpvsRender
  let actual: IpvsActual
  let context: string | undefined
  let families: Array<{state: IpvsState; actual: IpvsActual}> | undefined
  if (node !== undefined) {
    const files = ['ipvsadm', 'ip-addr', 'ipset', 'iptables-save'] as const
    const given = files.filter((f) => flags[f] !== undefined)
    if (flags.objects?.length || flags.node || given.length > 0) throw new UsageError(`give either a NODE to read live, or --objects, --node and the dump files, not both`)
    const live = await resolveIpvsLive(node, flags, env)
    r = live
    actual = live.actual
    context = live.context
    families = live.families
  } else {
    if (!flags.ipvsadm) throw new UsageError('--mode ipvs needs --ipvsadm FILE (the node\'s `ipvsadm -Sn`)', 'Add --ip-addr, --ipset and --iptables-save to compare kube-ipvs0, the ipsets and the iptables rules too.')
    const links = flags['ip-addr'] !== undefined ? parseInputFile(env, flags['ip-addr'], parseLinks) : undefined
    r = resolveIpvsOffline(flags, env, links ? nodeAddressesFromLinks(links) : undefined)
    const family = r.state.family
    actual = {
      ipvs: parseInputFile(env, flags.ipvsadm, parseIpvsadmOrEmpty, {io, read: pastedIpvsTable()}),
      ...(links ? {links} : {}),
      ...(flags.ipset !== undefined ? {ipsets: parseInputFile(env, flags.ipset, parseIpsetOrEmpty)} : {}),
      ...(flags['iptables-save'] !== undefined ? {iptables: parseInputFile(env, flags['iptables-save'], (t) => parseIptablesSave(t, {family}), {io, read: pastedIptablesDump(family)})} : {}),
    }
    if (actual.iptables && actual.iptables.familySource === 'header' && actual.iptables.family !== family) {
      throw new UsageError(`the proxier renders ${family} but ${flags['iptables-save']} is ${actual.iptables.family === 'ipv6' ? 'ip6tables-save' : 'iptables-save'} output`, 'Pass --ip-family to choose.')
    }
  }
  notes(io, r)
  // Live on a dual-stack node: both families' IPVS state, as kube-proxy runs one IPVS proxier per family.
  const outcome: IpvsDiffOutcome = families
    ? diffIpvsFamilies(families, r.render.node.metadata.name, r.ipvs.excludeCIDRs)
    : diffIpvsAgainstNode(r.state, actual, r.render.node.metadata.name, r.ipvs.excludeCIDRs)
  const dumps = (families ?? [{state: r.state, actual}]).filter((f) => f.actual.iptables).map((f) => (f.state.family === 'ipv6' && families ? 'ip6tables-save' : 'iptables-save'))
  const compared = ['ipvsadm', actual.links && 'ip-addr', actual.ipsets && 'ipset', ...dumps].filter(Boolean).join(',')
  const ipFamily = (families ?? [{state: r.state}]).map((f) => f.state.family).join(',')
  const report = proxyDiffReport(r.render, outcome, {...meta, context}, {ipFamily, proxyMode: 'ipvs', ipvsScheduler: r.ipvs.scheduler, compared})
  return withPastedInput({report, ipvsDiff: ipvsDiffByService((families ?? [{state: r.state}]).map((f) => f.state), outcome.differences)}, io)
}
