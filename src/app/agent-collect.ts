// The agent's side of `check --in-cluster`: collect this node's NodeSnapshot with the local transport, running only
// what the agent's pod was given privileges for; what it cannot run is recorded with the reason.
import {encodeAgentDocument} from '../core/agent/document.js'
import {agentManifests, defaultAgentImage, manifestsYaml} from '../core/agent/manifests.js'
import {agentPlan} from '../core/agent/privileges.js'
import {commandLine} from '../core/collection/plan.js'
import type {Distribution} from '../core/layout/known-layouts.js'
import type {Area} from '../core/model/report.js'
import type {NodeSnapshot} from '../core/model/snapshot.js'
import type {NodeTransport} from '../ports/node-transport.js'
import {collectNode} from './collect-node.js'

export interface AgentCollectOptions {
  areas?: readonly Area[]
  timeoutMs: number
  now: () => Date
}

export async function collectAgentSnapshot(transport: NodeTransport, options: AgentCollectOptions): Promise<NodeSnapshot> {
  const {plan, skipped} = agentPlan(options.areas)
  const snapshot = await collectNode(transport, {plan, timeoutMs: options.timeoutMs, sudo: false, now: options.now, batch: true})
  for (const {item, reason} of skipped) {
    snapshot.artifacts[item.id] = {id: item.id, source: commandLine(item, false), content: '', error: reason}
    if (item.required) snapshot.errors.push({node: transport.node, source: item.id, message: reason})
  }
  return snapshot
}

/** `agent collect`: this node's snapshot as the framed, versioned document the CLI reads from the pod's log. */
export async function agentDocument(transport: NodeTransport, options: AgentCollectOptions): Promise<{document: string; collectedAt: string}> {
  const snapshot = await collectAgentSnapshot(transport, options)
  return {document: encodeAgentDocument(snapshot), collectedAt: snapshot.collectedAt}
}

/**
 * `agent manifests`: the objects `check --in-cluster` would create, as YAML (the default image is this version's).
 * `layouts`: mount only those layouts' directories, as a run over nodes of those layouts does (absent: every layout's).
 */
export function agentManifestsText(o: {runId: string; image?: string | undefined; version: string; areas?: Area[] | undefined; nodeNames?: string[] | undefined; commandTimeoutMs: number; layouts?: Distribution[] | undefined}): string {
  const {objects} = agentManifests({
    runId: o.runId,
    image: o.image ?? defaultAgentImage(o.version),
    ...(o.areas ? {areas: o.areas} : {}),
    ...(o.nodeNames ? {nodeNames: o.nodeNames} : {}),
    commandTimeoutSeconds: Math.max(1, Math.ceil(o.commandTimeoutMs / 1000)),
    ...(o.layouts ? {layouts: o.layouts} : {}),
  })
  return manifestsYaml(objects)
}
