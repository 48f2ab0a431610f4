// `check` (and preflight's live form): collect the nodes live — over the node transports, or with --in-cluster
// through the agent DaemonSet — and run every applicable check on what came back.
import type {ProfileSelection} from '../../core/checks/types.js'
import type {Area, Report, ReportMetadata} from '../../core/model/report.js'
import type {Environment} from '../../ports/environment.js'
import {analyzeSnapshots} from '../analyze.js'
import {collectLive, type LiveRun} from './collect.js'
import {collectInCluster, type InClusterFlags} from './in-cluster.js'

export type CheckFlags = InClusterFlags & {'in-cluster'?: boolean}

/** The nodes collected live, by the agent with --in-cluster, else over --via's transports. */
export function collectForCheck(names: string[], flags: CheckFlags, env: Environment, options: {areas?: Area[]; version: string}): Promise<LiveRun> {
  return flags['in-cluster'] ? collectInCluster(names, flags, env, options) : collectLive(names, flags, env, options.areas ? {areas: options.areas} : {})
}

/** The Report of `check`, generated once the nodes are collected, naming the command and the kubeconfig context. */
export async function checkLive(names: string[], flags: CheckFlags, env: Environment, o: {areas: Area[] | undefined; profile?: ProfileSelection; tool: ReportMetadata['tool']; command: string}): Promise<Report> {
  const live = await collectForCheck(names, flags, env, {...(o.areas ? {areas: o.areas} : {}), version: o.tool.version})
  return analyzeSnapshots(live.cluster, live.nodes, {
    areas: o.areas,
    ...(o.profile ? {profile: o.profile} : {}),
    metadata: {generatedAt: new Date().toISOString(), tool: o.tool, command: o.command, context: live.access.context},
  })
}
