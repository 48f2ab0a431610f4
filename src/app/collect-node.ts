// Runs a collection plan on one node through a transport and returns its NodeSnapshot.
// A missing tool, an absent file or a timeout becomes an artifact error, never an exception.
import {randomBytes} from 'node:crypto'
import {BATCH_KILL_AFTER_S, batchEndMarker, batchScript, parseBatchOutput} from '../core/collection/batch.js'
import {commandLine, type PlanItem} from '../core/collection/plan.js'
import {shellJoin, shellQuote} from '../core/collection/shell.js'
import type {CollectionError} from '../core/model/report.js'
import {type Artifact, type NodeSnapshot, SNAPSHOT_API_VERSION} from '../core/model/snapshot.js'
import type {ExecResult, NodeTransport} from '../ports/node-transport.js'
import {artifactShapeProblem} from '../core/collection/shape.js'
import {type Limits, limitMessage, limits as currentLimits} from '../core/limits/limits.js'

export interface CollectNodeOptions {
  plan: readonly PlanItem[]
  timeoutMs: number
  sudo: boolean
  /** Clock, injected for tests. */
  now: () => Date
  /**
   * Run the plan as batch scripts (one exec per lane, core/collection/batch.ts) instead of one exec per command:
   * far less work on the node and the connection. Falls back to one exec per command where a script fails.
   */
  batch?: boolean
  /** Parallel execs on one node (channels on one SSH connection): commands (default 4), or batch lanes (default 2). */
  parallel?: number
  /** Output limits (default: limits(), from the environment). */
  limits?: Pick<Limits, 'artifactBytes' | 'nodeBytes'>
}

/**
 * Batch lanes per node: two, so that one slow command (a curl to a filtered port waits its 5 s) holds up half the
 * plan, not all of it; more lanes only add shells and watchdogs on the node.
 */
const BATCH_LANES = 2

const SUDO_REFUSED = /sudo: (a password is required|a terminal is required)/

/** Why a command's result is unusable, or undefined when it is usable. */
export function classifyFailure(p: PlanItem, r: ExecResult, timeoutMs: number): string | undefined {
  if (r.timedOut) return `timed out after ${Math.round(timeoutMs / 1000)}s`
  if (SUDO_REFUSED.test(r.stderr)) {
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
  const lim = options.limits ?? currentLimits()
  let used = 0
  const record = (p: PlanItem, outcome: ExecResult | Error, durationMs?: number) => {
    const command = commandLine(p, options.sudo)
    let artifact: Artifact
    if (outcome instanceof Error) {
      artifact = {id: p.id, source: command, content: '', error: outcome.message}
      errors.push({node: transport.node, source: p.id, message: outcome.message})
    } else {
      // A limit hit is an error for that artifact whether it is required or not (its output is not all there).
      const overLimit = outcome.truncated
        ? limitMessage('the output', 'artifactBytes', lim.artifactBytes)
        : Buffer.byteLength(outcome.stdout) > lim.artifactBytes
          ? limitMessage('the output', 'artifactBytes', lim.artifactBytes)
          : undefined
      const failure = overLimit ?? classifyFailure(p, outcome, options.timeoutMs) ?? artifactShapeProblem(p.id, outcome.stdout)
      artifact = {id: p.id, source: command, content: failure ? '' : outcome.stdout}
      if (durationMs !== undefined) artifact.durationMs = durationMs
      if (outcome.exitCode !== null) artifact.exitCode = outcome.exitCode
      if (outcome.stderr) artifact.stderr = outcome.stderr.slice(0, 4096)
      if (failure) {
        artifact.error = failure
        if (p.required || overLimit) errors.push({node: transport.node, source: p.id, message: failure})
      } else used += outcome.stdout.length
    }
    artifacts[p.id] = artifact
  }
  const runOne = async (p: PlanItem) => {
    const t0 = options.now().getTime()
    const left = lim.nodeBytes - used
    if (left <= 0) {
      record(p, new Error(limitMessage(`node ${transport.node}'s output`, 'nodeBytes', lim.nodeBytes)))
      return
    }
    try {
      const r = await transport.exec(commandLine(p, options.sudo), {timeoutMs: options.timeoutMs, maxBytes: Math.min(lim.artifactBytes, left)})
      record(p, r, options.now().getTime() - t0)
    } catch (err) {
      record(p, err as Error)
    }
  }
  const lanes = Math.max(1, options.parallel ?? (options.batch ? BATCH_LANES : 4))
  if (options.batch && options.plan.length > 1) {
    // Round-robin, so that each lane gets a share of the slow commands wherever they sit in the plan.
    const split: PlanItem[][] = Array.from({length: Math.min(lanes, options.plan.length)}, () => [])
    options.plan.forEach((p, i) => split[i % split.length]!.push(p))
    // Each lane's exec may hold its share of the node's budget, so a node never holds more than nodeBytes at once.
    const laneBytes = Math.max(1, Math.floor(lim.nodeBytes / split.length))
    await Promise.all(split.map((items) => runBatchLane(transport, items, options, lim, laneBytes, record, runOne)))
  } else {
    const queue = [...options.plan]
    const worker = async () => {
      for (let p = queue.shift(); p; p = queue.shift()) await runOne(p)
    }
    await Promise.all(Array.from({length: lanes}, worker))
  }
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

/**
 * Runs items as one batch script (core/collection/batch.ts) on one exec. Items the script reported are recorded;
 * when the script could not run at all or stopped early without timing out, the rest run one exec each. When the
 * batch as a whole timed out, what it did not finish is recorded as timed out (running it again would only wait
 * twice as long on a slow node).
 */
async function runBatchLane(
  transport: NodeTransport,
  items: readonly PlanItem[],
  options: CollectNodeOptions,
  lim: Pick<Limits, 'artifactBytes'>,
  maxBytes: number,
  record: (p: PlanItem, outcome: ExecResult | Error, durationMs?: number) => void,
  runOne: (p: PlanItem) => Promise<void>,
): Promise<void> {
  const nonce = randomBytes(12).toString('hex')
  const script = batchScript(
    items.map((p) => ({command: shellJoin(p.argv)})),
    {nonce, timeoutMs: options.timeoutMs, killAfterS: BATCH_KILL_AFTER_S},
  )
  const perItemS = Math.ceil(options.timeoutMs / 1000) + BATCH_KILL_AFTER_S + 1
  const batchTimeoutMs = items.length * perItemS * 1000 + 10_000
  let r: ExecResult
  try {
    r = await transport.exec(`${options.sudo ? 'sudo -n ' : ''}sh -c ${shellQuote(script)}`, {timeoutMs: batchTimeoutMs, maxBytes, endMarkers: {stdout: batchEndMarker(nonce), stderr: batchEndMarker(nonce)}})
  } catch (err) {
    // The transport itself failed (connection lost): every item would fail the same way.
    for (const p of items) record(p, err as Error)
    return
  }
  const out = parseBatchOutput(r.stdout, r.stderr, {nonce, count: items.length})
  for (const [n, result] of out.results) record(items[n]!, result)
  const rest = items.filter((_, n) => !out.results.has(n))
  if (rest.length === 0) return
  if (r.timedOut) {
    for (const p of rest) record(p, {exitCode: null, stdout: '', stderr: '', timedOut: true})
    return
  }
  // The lane's output went past its budget while an item ran. When that item alone printed at least half the
  // per-artifact limit it is the culprit: a collection error, not run again (an endless command would only fill
  // another buffer). Otherwise it runs again on its own exec, like the items after it, each bounded by the limit.
  let culprit: PlanItem | undefined
  if (r.truncated && out.cutOff !== undefined) {
    let others = 0
    for (const res of out.results.values()) others += res.stdout.length
    if (r.stdout.length - others >= lim.artifactBytes / 2) {
      culprit = items[out.cutOff]!
      record(culprit, {exitCode: null, stdout: '', stderr: '', truncated: true})
    }
  }
  const again = rest.filter((p) => p !== culprit)
  // Nothing framed and sudo refused: every item would get the same answer.
  if (out.results.size === 0 && SUDO_REFUSED.test(r.stderr)) {
    for (const p of rest) record(p, {exitCode: r.exitCode, stdout: '', stderr: r.stderr, timedOut: false})
    return
  }
  for (const p of again) await runOne(p)
}
