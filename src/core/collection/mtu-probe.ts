// `check --probe`: don't-fragment pings between the selected nodes (issue #19 item 3), as data. Pure: which peers a node
// probes, the exact argv of each command (fixed words plus one address that must be a Node address of the cluster,
// strictly validated), the probe size from the node's own route and link facts, and the `mtu-probe` artifact the
// probe leaves in the node's snapshot (written by src/app/live/probe.ts, judged by checks/node/probe.ts).
//
// Per peer, node A runs:
//   1. `ip -d -j route get ADDRESS`: the device the kernel really sends through (policy rules included) and any path MTU
//      it has already learned for ADDRESS (the route's `mtu` metric);
//   2. `ping -4 -n -M do -c 2 -W 1 -s SIZE ADDRESS` with SIZE = that device's MTU (from the snapshot's `ip -j -d link`)
//      minus the IP and ICMP headers (IPv4 20 + 8 = 28, IPv6 40 + 8 = 48; `-6` for IPv6): packets of exactly the
//      device's MTU with DF set;
//   3. only when (2) got no reply: the same at fallback sizes (a 1500-byte packet where the device MTU is larger, then
//      the default 56 bytes), which tell a path MTU below the device MTU from a peer that does not answer ICMP at all.
// `-n`: no reverse lookups of the addresses in ping's output (a node's resolver must not slow the probe down).
import type {Node} from '../model/k8s.js'
import type {ClusterSnapshot} from '../model/snapshot.js'
import {type IpFamily, isLoopback, parseIPSloppy} from '../net/ip.js'
import type {LinkTable} from '../parse/links.js'

/** Artifact id of the probe's record in a NodeSnapshot. */
export const MTU_PROBE_ARTIFACT = 'mtu-probe'
/** First line of the artifact's JSON `format` field. */
export const MTU_PROBE_FORMAT = 'node-doctor-mtu-probe/1'
/** What the artifact's `source` says (the exact commands are in the record, per attempt). */
export const MTU_PROBE_SOURCE = '`ip -d -j route get ADDRESS` and `ping -4|-6 -n -M do -c 2 -W 1 -s SIZE ADDRESS` to each other selected node\'s InternalIP (--probe)'

/** IP + ICMP echo header bytes: what a packet of `-s SIZE` adds to SIZE. */
export function headerBytes(family: IpFamily): number {
  return family === 'ipv4' ? 28 : 48
}

/** The default ping payload (ping's own default): proves the peer answers ICMP at all. */
export const SMALL_PROBE_SIZE = 56

/** A peer to probe: another selected node and its InternalIP, validated as a Node address of the cluster. */
export interface ProbeTarget {
  node: string
  address: string
  family: IpFamily
}

/** Every address the cluster's Node objects give (any type that holds an IP), canonical text. */
function clusterNodeAddresses(cluster: Pick<ClusterSnapshot, 'nodes'>): Set<string> {
  const out = new Set<string>()
  for (const n of cluster.nodes) for (const a of n.status?.addresses ?? []) if (typeof a.address === 'string') out.add(a.address)
  return out
}

/**
 * Why `address` must not be probed, or undefined when it may: it must be an IP in its canonical text (no leading
 * zeros, no zone, no brackets: exactly what the IP library prints back), not loopback, unspecified or multicast, and
 * one of the addresses the cluster's Node objects hold.
 */
export function probeAddressProblem(cluster: Pick<ClusterSnapshot, 'nodes'>, address: string): string | undefined {
  const ip = parseIPSloppy(address)
  if (!ip) return `${JSON.stringify(address)} is not an IP address`
  if (ip.text !== address) return `${JSON.stringify(address)} is not an IP address in canonical form (${ip.text})`
  if (isLoopback(ip) || ip.bytes.every((b) => b === 0)) return `${address} is a loopback or unspecified address`
  if ((ip.family === 'ipv4' && ip.bytes[0]! >= 224) || (ip.family === 'ipv6' && ip.bytes[0] === 0xff)) return `${address} is a multicast or reserved address`
  if (!clusterNodeAddresses(cluster).has(address)) return `${address} is not an address of any of the cluster's Nodes`
  return undefined
}

function requireProbeAddress(cluster: Pick<ClusterSnapshot, 'nodes'>, address: string): void {
  const problem = probeAddressProblem(cluster, address)
  if (problem !== undefined) throw new Error(`refusing to probe: ${problem}`)
}

/** The argv of the route lookup toward `address` (refused unless it is a valid Node address of the cluster). */
export function routeGetArgv(cluster: Pick<ClusterSnapshot, 'nodes'>, address: string): string[] {
  requireProbeAddress(cluster, address)
  return ['ip', '-d', '-j', 'route', 'get', address]
}

/** The argv of one don't-fragment ping (refused unless `address` is a valid Node address and `size` a payload size). */
export function pingArgv(cluster: Pick<ClusterSnapshot, 'nodes'>, address: string, size: number): string[] {
  requireProbeAddress(cluster, address)
  const family = parseIPSloppy(address)!.family
  if (!Number.isInteger(size) || size < 0 || size > 65_507) throw new Error(`refusing to probe: ${size} is not a ping payload size`)
  return ['ping', family === 'ipv4' ? '-4' : '-6', '-n', '-M', 'do', '-c', '2', '-W', '1', '-s', String(size), address]
}

/** The InternalIP of a Node, one per family, IPv4 first (what the CNI and the other nodes use for it). */
function internalIps(n: Node): string[] {
  const out: string[] = []
  for (const family of ['ipv4', 'ipv6'] as const) {
    const a = (n.status?.addresses ?? []).find((x) => x.type === 'InternalIP' && parseIPSloppy(x.address)?.family === family)
    if (a) out.push(a.address)
  }
  return out
}

/**
 * The peers node `self` probes: every other selected node's InternalIPs (both families on a dual-stack node) that pass
 * probeAddressProblem; the others come back in `skipped` with the reason.
 */
export function probeTargets(cluster: Pick<ClusterSnapshot, 'nodes'>, self: string, selected: readonly string[]): {targets: ProbeTarget[]; skipped: ProbeSkip[]} {
  const targets: ProbeTarget[] = []
  const skipped: ProbeSkip[] = []
  for (const name of selected) {
    if (name === self) continue
    const n = cluster.nodes.find((x) => x.metadata.name === name)
    const ips = n ? internalIps(n) : []
    if (ips.length === 0) {
      // An InternalIP that is no IP at all is named (its text quoted), never used.
      const odd = (n?.status?.addresses ?? []).find((a) => a.type === 'InternalIP')
      skipped.push({node: name, reason: odd ? (probeAddressProblem(cluster, String(odd.address)) ?? 'no usable InternalIP') : 'the Node has no InternalIP'})
      continue
    }
    for (const address of ips) {
      const problem = probeAddressProblem(cluster, address)
      if (problem) skipped.push({node: name, address, reason: problem})
      else targets.push({node: name, address, family: parseIPSloppy(address)!.family})
    }
  }
  return {targets, skipped}
}

/** What `ip -d -j route get` says about the way to a peer. */
export interface RouteGet {
  device: string
  gateway?: string
  /** A path MTU the kernel already holds for the destination (the cached route's `mtu` metric). */
  cachedMtu?: number
  /** `local`, `unicast`, ...: only unicast routes lead to another node. */
  type?: string
}

/** Reads `ip -d -j route get` output; undefined when it is not that (the caller records why). */
export function parseRouteGet(text: string): RouteGet | undefined {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch {
    return undefined
  }
  const first = Array.isArray(doc) ? (doc[0] as Record<string, unknown> | undefined) : undefined
  if (!first || typeof first !== 'object' || typeof first.dev !== 'string') return undefined
  const out: RouteGet = {device: first.dev}
  if (typeof first.gateway === 'string') out.gateway = first.gateway
  if (typeof first.type === 'string') out.type = first.type
  const metrics = Array.isArray(first.metrics) ? (first.metrics as unknown[]) : []
  for (const m of metrics) {
    const mtu = m && typeof m === 'object' ? (m as Record<string, unknown>).mtu : undefined
    if (typeof mtu === 'number' && Number.isInteger(mtu) && mtu > 0) out.cachedMtu = mtu
  }
  return out
}

/** The probe's sizes toward a peer: the device MTU's payload first, then the fallbacks, or why none can be chosen. */
export function probeSizes(links: LinkTable, route: RouteGet, family: IpFamily): {deviceMtu: number; sizes: number[]} | {reason: string} {
  if (route.type !== undefined && route.type !== 'unicast') return {reason: `the route to it is of type ${route.type}, not unicast`}
  const iface = links.interfaces.find((i) => i.name === route.device)
  if (!iface) return {reason: `the route leaves through ${route.device}, which the link listing (ip-link) does not have`}
  if (iface.mtu === undefined || !Number.isInteger(iface.mtu) || iface.mtu < 68) return {reason: `the MTU of ${route.device} is not known from the link listing`}
  const h = headerBytes(family)
  const primary = iface.mtu - h
  const sizes = [primary]
  if (iface.mtu > 1500) sizes.push(1500 - h)
  if (primary > SMALL_PROBE_SIZE) sizes.push(SMALL_PROBE_SIZE)
  return {deviceMtu: iface.mtu, sizes}
}

// ---- the artifact ----

/** One command the probe ran on the node. */
export interface ProbeAttempt {
  /** Ping payload bytes (-s); the packet is this plus headerBytes(family). */
  size: number
  /** The exact command line sent to the node. */
  command: string
  /** null: no exit code (the command was killed or timed out). */
  exitCode: number | null
  /** stdout then stderr, as the node printed them (cut to a few KiB). */
  output: string
  /** Why there is no usable result (timeout, transport failure). */
  error?: string
}

export interface ProbePeer {
  node: string
  address: string
  family: IpFamily
  /** The route lookup (`ip -d -j route get`), as run. */
  route: {command: string; exitCode: number | null; output: string; error?: string}
  device?: string
  deviceMtu?: number
  cachedMtu?: number
  /** Why no ping was sent (no route, unknown device MTU, ...). */
  skipped?: string
  attempts: ProbeAttempt[]
}

export interface ProbeSkip {
  node: string
  address?: string
  reason: string
}

/** The `mtu-probe` artifact's content (JSON). */
export interface MtuProbeRecord {
  format: typeof MTU_PROBE_FORMAT
  /** Why the probe did not run from this node at all (one node selected, the node was not collected). */
  notRun?: string
  peers: ProbePeer[]
  /** Selected peers not probed (no usable InternalIP). */
  skipped: ProbeSkip[]
}

/** Output kept per command: ping prints a few lines; anything longer is cut. */
export const PROBE_OUTPUT_BYTES = 4096

export function formatMtuProbe(record: MtuProbeRecord): string {
  return `${JSON.stringify(record, null, 2)}\n`
}

const isStr = (v: unknown): v is string => typeof v === 'string'
const isCode = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isInteger(v))

/**
 * Reads the artifact back; the reason when it is not one this version writes. Strict about the shape (a bundle may be
 * edited by hand or come from elsewhere): every field is type-checked, nothing is trusted to be there.
 */
export function parseMtuProbe(text: string): {ok: true; value: MtuProbeRecord} | {ok: false; reason: string} {
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (err) {
    return {ok: false, reason: `not JSON: ${(err as Error).message}`}
  }
  const d = doc as Record<string, unknown>
  if (!d || typeof d !== 'object' || d.format !== MTU_PROBE_FORMAT) return {ok: false, reason: `not a ${MTU_PROBE_FORMAT} record`}
  if (!Array.isArray(d.peers) || !Array.isArray(d.skipped)) return {ok: false, reason: 'peers or skipped is not a list'}
  const peers: ProbePeer[] = []
  for (const p of d.peers as Array<Record<string, unknown>>) {
    if (!p || typeof p !== 'object' || !isStr(p.node) || !isStr(p.address) || (p.family !== 'ipv4' && p.family !== 'ipv6') || !Array.isArray(p.attempts)) {
      return {ok: false, reason: 'a peer lacks node, address, family or attempts'}
    }
    const r = p.route as Record<string, unknown> | undefined
    if (!r || typeof r !== 'object' || !isStr(r.command) || !isCode(r.exitCode) || !isStr(r.output)) return {ok: false, reason: `the route lookup toward ${p.node} is malformed`}
    const attempts: ProbeAttempt[] = []
    for (const a of p.attempts as Array<Record<string, unknown>>) {
      if (!a || typeof a !== 'object' || typeof a.size !== 'number' || !isStr(a.command) || !isCode(a.exitCode) || !isStr(a.output)) {
        return {ok: false, reason: `an attempt toward ${p.node} is malformed`}
      }
      attempts.push({size: a.size, command: a.command, exitCode: a.exitCode, output: a.output, ...(isStr(a.error) ? {error: a.error} : {})})
    }
    const num = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : undefined)
    const peer: ProbePeer = {
      node: p.node,
      address: p.address,
      family: p.family,
      route: {command: r.command, exitCode: r.exitCode, output: r.output, ...(isStr(r.error) ? {error: r.error} : {})},
      attempts,
    }
    if (isStr(p.device)) peer.device = p.device
    if (num(p.deviceMtu) !== undefined) peer.deviceMtu = num(p.deviceMtu)!
    if (num(p.cachedMtu) !== undefined) peer.cachedMtu = num(p.cachedMtu)!
    if (isStr(p.skipped)) peer.skipped = p.skipped
    peers.push(peer)
  }
  const skipped: ProbeSkip[] = []
  for (const s of d.skipped as Array<Record<string, unknown>>) {
    if (!s || typeof s !== 'object' || !isStr(s.node) || !isStr(s.reason)) return {ok: false, reason: 'a skipped peer lacks node or reason'}
    skipped.push({node: s.node, reason: s.reason, ...(isStr(s.address) ? {address: s.address} : {})})
  }
  return {ok: true, value: {format: MTU_PROBE_FORMAT, ...(isStr(d.notRun) ? {notRun: d.notRun} : {}), peers, skipped}}
}

// ---- what one ping said ----

/** What one ping's output shows. */
export interface PingResult {
  /** Echo replies received (from ping's statistics line); undefined when there is no statistics line. */
  received?: number
  transmitted?: number
  /** "Frag needed and DF set (mtu = N)" (IPv4) or "Packet too big: mtu=N" (IPv6) from a router on the way: the path MTU it reported. */
  fragNeededMtu?: number
  /** "local error: message too long, mtu=N": the node itself refused the size (a path MTU it learned, or its device). */
  localMtu?: number
  /** ping could not run as asked (not installed, an option it does not know, no permission). */
  toolProblem?: string
}

/**
 * Reads iputils ping output (stdout and stderr together). Never throws. NOTE: the messages matched are iputils'
 * (20221126, checked in namespaces here); BusyBox ping has no -M and prints its usage, which reads as a tool problem
 * (not verified against a BusyBox build).
 */
export function readPing(output: string, exitCode: number | null): PingResult {
  const out: PingResult = {}
  const stats = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(output)
  if (stats) {
    out.transmitted = Number(stats[1])
    out.received = Number(stats[2])
  }
  // IPv4: "Frag needed and DF set (mtu = 1400)"; IPv6: "Packet too big: mtu=1400".
  const frag = /Frag needed and DF set \(mtu = (\d+)\)|Packet too big: mtu=(\d+)/.exec(output)
  if (frag) out.fragNeededMtu = Number(frag[1] ?? frag[2])
  // IPv4: "message too long, mtu=1400"; IPv6: "message too long, mtu: 1400".
  const local = /message too long, mtu[=:]\s*(\d+)/.exec(output)
  if (local) out.localMtu = Number(local[1])
  if (!stats) {
    if (exitCode === 127 || /command not found|not found/i.test(output)) out.toolProblem = 'ping is not installed on the node'
    else if (/invalid option|unrecognized option|requires an argument|Usage/i.test(output)) out.toolProblem = `this ping does not take the options used (${firstLine(output)})`
    else if (/Operation not permitted|Permission denied|must be root/i.test(output)) out.toolProblem = `ping is not permitted (${firstLine(output)}): use --sudo or connect as root`
    else out.toolProblem = `ping printed no statistics (exit code ${exitCode ?? 'none'}: ${firstLine(output) || 'no output'})`
  }
  return out
}

function firstLine(s: string): string {
  return (s.trim().split('\n')[0] ?? '').slice(0, 200)
}
