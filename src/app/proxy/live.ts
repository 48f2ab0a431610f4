// The live form of `proxy render|diff` and `trace`: a NODE argument instead of --objects/--iptables-save. The
// cluster objects come from the API (read once) and the node's dump and runtime facts over the node transport.
import {liveProxierInput} from '../../core/checks/iptables/live.js'
import type {Area} from '../../core/model/report.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../core/model/snapshot.js'
import type {IptablesDump} from '../../core/parse/iptables-save.js'
import type {RenderInput} from '../../core/proxier/render-input.js'
import {AccessError, UsageError} from '../../errors.js'
import type {Environment} from '../../ports/environment.js'
import {collectLive} from '../live/collect.js'
import {ArtifactUnavailableError} from '../live/node-artifact.js'
import {type LiveFlags, SINGLE_NODE_DEFAULTS} from '../live/targets.js'

export interface LiveProxier {
  render: RenderInput
  dump: IptablesDump
  dumpText: string
  context: string
}


/** One node collected live for the proxier (the areas it needs); a node that could not be reached is an AccessError. */
export async function collectProxierNode(node: string, flags: Partial<LiveFlags>, env: Environment, areas: Area[]): Promise<{cluster: ClusterSnapshot; snap: NodeSnapshot; context: string}> {
  const live = await collectLive([node], {...SINGLE_NODE_DEFAULTS, ...flags}, env, {areas})
  const snap = live.nodes[0]!
  const fatal = snap.errors.find((e) => e.fatal)
  if (fatal) throw new AccessError(`cannot collect from node ${node}: ${fatal.message}`)
  return {cluster: live.cluster, snap, context: live.access.context}
}

/** Collects what the proxier needs for one node, live. */
export async function liveProxier(node: string, flags: Partial<LiveFlags>, env: Environment): Promise<LiveProxier> {
  const live = await collectProxierNode(node, flags, env, ['iptables'])
  const snap = live.snap
  const input = liveProxierInput(live.cluster, snap)
  if (!input.ok) throw new ArtifactUnavailableError(`node ${node}: ${input.reason}`)
  return {render: input.render, dump: input.dump, dumpText: input.dumpText, context: live.context}
}

/** Offline needs --objects and --node; live takes a NODE argument instead. Exactly one form. */
export function checkProxierForm(nodeArg: string | undefined, flags: {objects?: string[]; node?: string}, fileFlag: string, fileValue: string | undefined): void {
  if (nodeArg !== undefined) {
    if (flags.objects?.length || flags.node || fileValue) {
      throw new UsageError(`give either a NODE to read live, or --objects, --node and ${fileFlag} for files, not both`)
    }
    return
  }
  const missing = [!flags.objects?.length && '--objects', !flags.node && '--node', fileFlag !== '' && !fileValue && fileFlag].filter(Boolean)
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(', ')}`, `Give a NODE to read it live, or ${['--objects FILE', '--node NAME', fileFlag && `${fileFlag} FILE`].filter(Boolean).join(', ')} for files.`)
}
