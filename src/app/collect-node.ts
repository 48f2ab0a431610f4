// Runs a collection plan on one node through a transport and returns its NodeSnapshot.
// A missing tool, an absent file or a timeout becomes an artifact error, never an exception.
import {commandLine, type PlanItem} from '../core/collection/plan.js'
import type {CollectionError} from '../core/model/report.js'
import {type Artifact, type NodeSnapshot, SNAPSHOT_API_VERSION} from '../core/model/snapshot.js'
import type {ExecResult, NodeTransport} from '../ports/node-transport.js'

export interface CollectNodeOptions {
  plan: readonly PlanItem[]
  timeoutMs: number
  sudo: boolean
  /** Clock, injected for tests. */
  now: () => Date
  /** Parallel commands on one node (channels on one SSH connection). */
  parallel?: number
}

/** Why a command's result is unusable, or undefined when it is usable. */
export function classifyFailure(p: PlanItem, r: ExecResult, timeoutMs: number): string | undefined {
  if (r.timedOut) return `timed out after ${Math.round(timeoutMs / 1000)}s`
  if (/sudo: (a password is required|a terminal is required)/.test(r.stderr)) {
    return 'sudo needs a password on this node: allow passwordless sudo for the collection commands, or connect as root'
  }
  if (r.exitCode === 0) return undefined
  if (r.exitCode === 127 || /command not found|not found$/m.test(r.stderr)) {
    return `${p.tool ?? p.argv[0]} is not installed on the node`
  }
  if (p.argv[0] === 'cat' && /No such file or directory/.test(r.stderr)) return `${p.argv[1]} does not exist on the node`
  if (/Permission denied|Operation not permitted|must be root|you must be root|can't initialize/i.test(r.stderr)) {
    return `permission denied (${firstLine(r.stderr)}): use --sudo or connect as root`
  }
  // Some tools print usable output with a non-zero code (e.g. sysctl with one unknown key).
  if (r.stdout.trim() !== '') return undefined
  return `exit code ${r.exitCode ?? 'none'}: ${firstLine(r.stderr) || 'no output'}`
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? ''
}

export async function collectNode(transport: NodeTransport, options: CollectNodeOptions): Promise<NodeSnapshot> {
  const started = options.now().getTime()
  const artifacts: Record<string, Artifact> = {}
  const errors: CollectionError[] = []
  const queue = [...options.plan]
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      const command = commandLine(p, options.sudo)
      const t0 = options.now().getTime()
      let artifact: Artifact
      try {
        const r = await transport.exec(command, {timeoutMs: options.timeoutMs})
        const failure = classifyFailure(p, r, options.timeoutMs)
        artifact = {id: p.id, source: command, content: failure ? '' : r.stdout, durationMs: options.now().getTime() - t0}
        if (r.exitCode !== null) artifact.exitCode = r.exitCode
        if (r.stderr) artifact.stderr = r.stderr.slice(0, 4096)
        if (failure) {
          artifact.error = failure
          if (p.required) errors.push({node: transport.node, source: p.id, message: failure})
        }
      } catch (err) {
        const message = (err as Error).message
        artifact = {id: p.id, source: command, content: '', error: message}
        errors.push({node: transport.node, source: p.id, message})
      }
      artifacts[p.id] = artifact
    }
  }
  await Promise.all(Array.from({length: Math.max(1, options.parallel ?? 4)}, worker))
  const ordered: Record<string, Artifact> = {}
  for (const p of options.plan) if (artifacts[p.id]) ordered[p.id] = artifacts[p.id]!
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'NodeSnapshot',
    node: transport.node,
    collectedAt: new Date(started).toISOString(),
    transport: transport.kind,
    artifacts: ordered,
    errors,
    durationMs: options.now().getTime() - started,
  }
}
