// `check --probe` / `preflight --probe`: once a node is collected, and over the same transport (the SSH connection or
// debug pod that collected it, still open), it pings every other selected node's InternalIP with
// don't-fragment packets of its device MTU (core/collection/mtu-probe.ts builds every command; nothing from the API
// but a validated Node address reaches a node). The result becomes the node's `mtu-probe` artifact, judged by NODE-019
// like any other artifact, so bundles and `analyze` keep it. Traffic goes only between the selected nodes.
import pLimit from 'p-limit'
import {
  formatMtuProbe,
  MTU_PROBE_ARTIFACT,
  MTU_PROBE_FORMAT,
  MTU_PROBE_SOURCE,
  type MtuProbeRecord,
  parseRouteGet,
  pingArgv,
  PROBE_OUTPUT_BYTES,
  type ProbeAttempt,
  type ProbePeer,
  probeSizes,
  probeTargets,
  readPing,
  routeGetArgv,
} from '../../core/collection/mtu-probe.js'
import {shellJoin} from '../../core/collection/shell.js'
import type {ProfileSelection} from '../../core/checks/types.js'
import type {Node} from '../../core/model/k8s.js'
import type {Area, Report, ReportMetadata} from '../../core/model/report.js'
import {artifactText, type ClusterSnapshot, type NodeSnapshot} from '../../core/model/snapshot.js'
import {parseLinks} from '../../core/parse/links.js'
import {parseDuration} from '../../duration.js'
import {UsageError} from '../../errors.js'
import type {Environment} from '../../ports/environment.js'
import type {NodeTransport} from '../../ports/node-transport.js'
import {analyzeSnapshots} from '../analyze.js'
import {collectLive, type LiveRun} from './collect.js'
import type {LiveFlags} from './targets.js'

export interface ProbeRunOptions {
  /** Per command (a ping of two packets takes about two seconds). */
  timeoutMs: number
  sudo: boolean
  /** Nodes probing at the same time. */
  concurrency: number
  /** Opens a transport to a node; a node that cannot be reached gets a `notRun` record. */
  connect: (node: Node) => Promise<NodeTransport>
}

/** Peers one node probes at the same time (each waits on the network, not the node's CPU). */
const PEERS_AT_ONCE = 4

function cut(s: string): string {
  return s.length > PROBE_OUTPUT_BYTES ? `${s.slice(0, PROBE_OUTPUT_BYTES)}\n[cut]` : s
}

/** The snapshot with the probe's record as its `mtu-probe` artifact (a copy: the collected snapshot is not changed). */
function withArtifact(s: NodeSnapshot, record: MtuProbeRecord): NodeSnapshot {
  return {...s, artifacts: {...s.artifacts, [MTU_PROBE_ARTIFACT]: {id: MTU_PROBE_ARTIFACT, source: MTU_PROBE_SOURCE, exitCode: 0, content: formatMtuProbe(record)}}}
}

const notRun = (why: string): MtuProbeRecord => ({format: MTU_PROBE_FORMAT, notRun: why, peers: [], skipped: []})

/** The probes from one node to its peers, over an open transport. */
async function probeFrom(t: NodeTransport, cluster: ClusterSnapshot, snapshot: NodeSnapshot, selected: readonly string[], o: Pick<ProbeRunOptions, 'timeoutMs' | 'sudo'>): Promise<MtuProbeRecord> {
  const linksText = artifactText(snapshot, 'ip-link')
  if (linksText === undefined) return notRun('the node\'s links (ip-link) were not collected, so the device MTU is unknown')
  let links
  try {
    links = parseLinks(linksText)
  } catch (err) {
    return notRun(`the node's links (ip-link) could not be read: ${(err as Error).message}`)
  }
  const {targets, skipped} = probeTargets(cluster, snapshot.node, selected)
  const line = (argv: string[]) => `${o.sudo ? 'sudo -n ' : ''}${shellJoin(argv)}`
  const run = async (argv: string[]): Promise<{command: string; exitCode: number | null; output: string; error?: string}> => {
    const command = line(argv)
    try {
      const r = await t.exec(command, {timeoutMs: o.timeoutMs, maxBytes: PROBE_OUTPUT_BYTES * 4})
      // ping prints replies on stdout and errors ("local error: message too long") on stderr: both are evidence.
      const output = cut(r.stdout !== '' && r.stderr !== '' && !r.stdout.endsWith('\n') ? `${r.stdout}\n${r.stderr}` : r.stdout + r.stderr)
      return {command, exitCode: r.exitCode, output, ...(r.timedOut ? {error: `timed out after ${Math.round(o.timeoutMs / 1000)}s`} : {})}
    } catch (err) {
      return {command, exitCode: null, output: '', error: (err as Error).message}
    }
  }
  const limit = pLimit(PEERS_AT_ONCE)
  const peers = await Promise.all(
    targets.map((target) =>
      limit(async (): Promise<ProbePeer> => {
        const route = await run(routeGetArgv(cluster, target.address))
        const peer: ProbePeer = {...target, route, attempts: []}
        const got = route.error === undefined && route.exitCode === 0 ? parseRouteGet(route.output) : undefined
        if (!got) return {...peer, skipped: route.error ?? `the route lookup gave no device (exit code ${route.exitCode ?? 'none'}: ${route.output.trim().split('\n')[0] ?? ''})`}
        peer.device = got.device
        if (got.cachedMtu !== undefined) peer.cachedMtu = got.cachedMtu
        const sizes = probeSizes(links, got, target.family)
        if ('reason' in sizes) return {...peer, skipped: sizes.reason}
        peer.deviceMtu = sizes.deviceMtu
        // The device MTU first; the smaller sizes only when it got no reply, down to the first size that does.
        for (const size of sizes.sizes) {
          const r = await run(pingArgv(cluster, target.address, size))
          const attempt: ProbeAttempt = {size, ...r}
          peer.attempts.push(attempt)
          const read = readPing(r.output, r.exitCode)
          if (r.error !== undefined || read.toolProblem !== undefined || (read.received ?? 0) > 0) break
        }
        return peer
      }),
    ),
  )
  return {format: MTU_PROBE_FORMAT, peers, skipped}
}

/** Why the probe does not run from any node: fewer than two nodes selected; undefined when it can. */
function probeNotPossible(selected: readonly string[]): string | undefined {
  return selected.length < 2 ? 'only one node is selected: --probe needs at least two (it pings between the selected nodes)' : undefined
}

/**
 * The probe from one collected node over a transport already open to it (never closed here); its snapshot with the
 * record. Never throws for the node's failure.
 */
export async function probeCollectedNode(t: NodeTransport, cluster: ClusterSnapshot, snapshot: NodeSnapshot, selected: readonly string[], o: Pick<ProbeRunOptions, 'timeoutMs' | 'sudo'>): Promise<NodeSnapshot> {
  const why = probeNotPossible(selected)
  if (why !== undefined) return withArtifact(snapshot, notRun(why))
  if (snapshot.errors.some((e) => e.fatal)) return withArtifact(snapshot, notRun('the node was not collected'))
  try {
    return withArtifact(snapshot, await probeFrom(t, cluster, snapshot, selected, o))
  } catch (err) {
    return withArtifact(snapshot, notRun(`the probe could not run: ${(err as Error).message}`))
  }
}

/**
 * Adds the `mtu-probe` artifact to every snapshot: the probe's record, or why it did not run from that node (one node
 * selected, the node was not collected or cannot be reached). Opens a transport per node with `connect`: for
 * snapshots collected earlier (the integration harness); a live run probes each node over the transport that
 * collected it (collectLiveProbed). Never throws for a node's failure.
 */
export async function probeNodes(cluster: ClusterSnapshot, selected: readonly Node[], snapshots: readonly NodeSnapshot[], o: ProbeRunOptions): Promise<NodeSnapshot[]> {
  const names = selected.map((n) => n.metadata.name)
  const why = probeNotPossible(names)
  if (why !== undefined) return snapshots.map((s) => withArtifact(s, notRun(why)))
  const limit = pLimit(Math.max(1, o.concurrency))
  return Promise.all(
    snapshots.map((s) =>
      limit(async () => {
        const node = selected.find((n) => n.metadata.name === s.node)
        if (!node || s.errors.some((e) => e.fatal)) return withArtifact(s, notRun('the node was not collected'))
        let t: NodeTransport | undefined
        try {
          t = await o.connect(node)
          return withArtifact(s, await probeFrom(t, cluster, s, names, o))
        } catch (err) {
          return withArtifact(s, notRun(`the node could not be reached again for the probe: ${(err as Error).message}`))
        } finally {
          await t?.close().catch(() => undefined)
        }
      }),
    ),
  )
}

/** Whether --probe applies to a run over these areas: NODE-019 is a routes check, so --only without routes has none. */
function probes(areas: readonly Area[] | undefined): boolean {
  return !areas || areas.length === 0 || areas.includes('routes')
}

/**
 * The live collection with the probe (`check --probe`, `preflight --probe`): each node probes its peers right after it
 * is collected, over the same transport (the same SSH connection, the same debug pod in the run's one namespace),
 * before that transport is closed: a node is reached once per run, within --concurrency. Nodes that were not collected
 * get a record saying so.
 */
export async function collectLiveProbed(names: string[], flags: LiveFlags & {'in-cluster'?: boolean}, env: Environment, o: {areas?: Area[] | undefined}): Promise<LiveRun> {
  if (flags['in-cluster']) throw new UsageError('--probe works over the node transports (--via ssh|pod), not with --in-cluster')
  const areas = o.areas ? {areas: o.areas} : {}
  if (!probes(o.areas)) return collectLive(names, flags, env, areas)
  const timeoutMs = parseDuration(flags.timeout, 'timeout')
  if (env.stderr.isTTY && !flags.quiet) env.stderr.write('probing the path MTU between the selected nodes as each is collected\n')
  const live = await collectLive(names, flags, env, {
    ...areas,
    afterCollect: (targets) => {
      const selected = targets.selected.map((n) => n.metadata.name)
      return (t, snapshot) => probeCollectedNode(t, targets.cluster, snapshot, selected, {timeoutMs, sudo: Boolean(flags.sudo)})
    },
  })
  // Nodes that could not be reached never reached afterCollect: their record says why.
  const why = probeNotPossible(live.nodes.map((s) => s.node)) ?? 'the node was not collected'
  const nodes = live.nodes.map((s) => (s.artifacts[MTU_PROBE_ARTIFACT] ? s : withArtifact(s, notRun(why))))
  return {...live, nodes}
}

/** `check --probe`: the live check over the node transports, with the probe between collection and analysis. */
export async function checkLiveProbed(
  names: string[],
  flags: LiveFlags & {'in-cluster'?: boolean},
  env: Environment,
  o: {areas: Area[] | undefined; profile?: ProfileSelection; tool: ReportMetadata['tool']; command: string},
): Promise<Report> {
  const live = await collectLiveProbed(names, flags, env, {areas: o.areas})
  return analyzeSnapshots(live.cluster, live.nodes, {
    areas: o.areas,
    ...(o.profile ? {profile: o.profile} : {}),
    metadata: {generatedAt: new Date().toISOString(), tool: o.tool, command: o.command, context: live.access.context},
  })
}
