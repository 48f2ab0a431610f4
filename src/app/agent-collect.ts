// The agent's side of `check --in-cluster`: collect this node's NodeSnapshot with the local transport, running only
// what the agent's pod was given privileges for; what it cannot run is recorded with the reason.
import {agentPlan} from '../core/agent/privileges.js'
import {commandLine} from '../core/collection/plan.js'
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
