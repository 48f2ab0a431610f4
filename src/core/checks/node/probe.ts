// NODE-019: the path MTU between nodes, measured (issue #19 item 3, `check --probe`). The probe itself is a collection
// step (core/collection/mtu-probe.ts builds the commands, src/app/live/probe.ts runs them and leaves the `mtu-probe`
// artifact); this check only reads what the pings said. Replies at the device MTU: fine. No reply at the device MTU but
// replies at a smaller size: packets of the device's MTU are lost on the way, which is what makes large responses hang
// (an error when they vanish silently, a warning when the path reports its MTU and path MTU discovery can adapt).
// No reply at any size: the peer does not answer ICMP (or is unreachable) and nothing can be told: not a finding.
import {MTU_PROBE_ARTIFACT, headerBytes, parseMtuProbe, type ProbeAttempt, type ProbePeer, readPing} from '../../collection/mtu-probe.js'
import type {CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'

export const NODE_PATH_MTU: CheckSpec = {
  id: 'NODE-019',
  area: 'routes',
  severity: 'error',
  title: 'The path MTU to another node is below the device MTU: packets of the device MTU are lost on the way and large responses hang (--probe)',
  looksAt:
    'Runs only with `check --probe` and at least two nodes selected (off by default; it sends traffic). From each node, to each other selected node\'s InternalIP ' +
    '(only addresses the Node objects hold): `ip -d -j route get ADDRESS` for the device the kernel sends through, then `ping -4 -n -M do -c 2 -W 1 -s SIZE ADDRESS` ' +
    "with SIZE = that device's MTU (from `ip -j -d link show`) minus 28 bytes of IPv4 and ICMP headers (48 for IPv6, `ping -6`): don't-fragment packets of exactly " +
    'the device MTU. Only when they get no reply, the same at 1472 bytes (a 1500-byte packet, where the device MTU is larger) and at 56 bytes. ' +
    'Lost silently (no "fragmentation needed" / "packet too big" from the path, no path MTU learned) is an error: a black hole. Where the path reports its ' +
    'MTU, path MTU discovery works for the sender and the finding is a warning. ' +
    'The result is kept in the node\'s `mtu-probe` artifact (each command, its exit code and output). A peer that answers no size at all cannot be judged ' +
    '(ICMP filtered, or unreachable): the check says so and raises nothing. Overlay (tunnel) MTUs are not probed; NODE-007 compares them with the underlay.',
  why:
    "Every node sends packets up to its device's MTU. When a link, VPN, tunnel or cloud network between two nodes carries less, packets of the device's MTU are " +
    'dropped there: silently, or with an ICMP "fragmentation needed" that firewalls often drop. TCP handshakes, pings and small requests work while TLS handshakes with ' +
    'large certificates, image pulls, large HTTP responses and overlay traffic that fills the underlay hang (projectcalico/calico#7651, #8953, #1709).',
  remedy:
    "Make the nodes' MTU fit the path: set the underlay interface's MTU to what the path carries (`ip link set dev DEV mtu N`, made persistent in the node's network " +
    'configuration or the cloud\'s instance/VPC settings), or fix the network in between (a switch, VPN or tunnel with a smaller MTU). `tracepath -n ADDRESS` on the node ' +
    'shows where the path MTU drops. Let ICMP "fragmentation needed" (IPv4 type 3 code 4, IPv6 "packet too big") through the firewalls so path MTU discovery works. ' +
    "After changing the underlay MTU, set the CNI's MTU to it minus the encapsulation overhead (see NODE-007) and recreate the pods.",
  requires: ['cluster:nodes'],
}

/** The packet size a ping of `size` payload bytes sends. */
function packet(p: ProbePeer, size: number): number {
  return size + headerBytes(p.family)
}

function describeAttempt(p: ProbePeer, a: ProbeAttempt): string {
  const r = readPing(a.output, a.exitCode)
  const what = a.error
    ? `no result (${a.error})`
    : r.toolProblem
      ? r.toolProblem
      : (r.received ?? 0) > 0
        ? `${r.received}/${r.transmitted} replies`
        : [
            'no reply',
            ...(r.fragNeededMtu !== undefined
              ? [`a router on the way answered ${p.family === 'ipv4' ? `"Frag needed and DF set (mtu = ${r.fragNeededMtu})"` : `"Packet too big: mtu=${r.fragNeededMtu}"`}`]
              : []),
            ...(r.localMtu !== undefined ? [`the node refused the size itself ("message too long", mtu ${r.localMtu}: a path MTU it has learned)`] : []),
          ].join('; ')
  return `${packet(p, a.size)}-byte packets (\`${a.command}\`): ${what}`
}

type Verdict = {kind: 'ok'} | {kind: 'fail'; draft: FindingDraft} | {kind: 'unknown'; reason: string}

function judgePeer(p: ProbePeer): Verdict {
  const who = `${p.node} (${p.address})`
  if (p.skipped !== undefined) return {kind: 'unknown', reason: `${who}: not probed, ${p.skipped}`}
  const [first, ...rest] = p.attempts
  if (!first) return {kind: 'unknown', reason: `${who}: no ping was sent`}
  if (first.error !== undefined) return {kind: 'unknown', reason: `${who}: ${first.error}`}
  const r0 = readPing(first.output, first.exitCode)
  if (r0.toolProblem !== undefined) return {kind: 'unknown', reason: `${who}: ${r0.toolProblem}`}
  if ((r0.received ?? 0) > 0) return {kind: 'ok'}
  const answered = rest.filter((a) => a.error === undefined && (readPing(a.output, a.exitCode).received ?? 0) > 0)
  if (answered.length === 0) {
    return {kind: 'unknown', reason: `${who}: no reply at any size tried (${p.attempts.map((a) => packet(p, a.size)).join(', ')} bytes): unreachable by ICMP (may be filtered), cannot tell`}
  }
  const largest = Math.max(...answered.map((a) => packet(p, a.size)))
  const learned = r0.fragNeededMtu ?? r0.localMtu ?? p.cachedMtu
  const device = p.device !== undefined && p.deviceMtu !== undefined ? `${p.device}'s MTU (${p.deviceMtu})` : 'the device MTU'
  const sizes = `${packet(p, first.size)}-byte packets get no reply, ${largest}-byte packets do`
  return {
    kind: 'fail',
    draft: {
      // Silent loss is the black hole: nothing tells the sender, TCP retries the same size until it gives up. Where the
      // path answers "fragmentation needed" (or the kernel has learned a path MTU from such an answer), path MTU
      // discovery works for this sender: TCP shrinks its packets, and only traffic that cannot (UDP, tunnels with DF,
      // senders whose ICMP is dropped further in) loses large packets. That is a warning, not an outage.
      ...(learned === undefined
        ? {message: `path MTU to ${who} is below ${device}: large packets hang (${sizes}, and nothing on the way reports the path MTU)`}
        : {
            message:
              `path MTU to ${who} is ${learned}, below ${device}: large packets depend on path MTU discovery and hang wherever its ICMP or fragments are dropped ` +
              `(${sizes}; the path reports an MTU of ${learned})`,
            severity: 'warning' as const,
          }),
      subject: {kind: 'path', name: `${p.address} (${p.node})`, ...(p.device !== undefined ? {in: p.device} : {})},
      evidence: [
        ...(p.device !== undefined ? [`route to ${p.address}: dev ${p.device}, MTU ${p.deviceMtu ?? 'unknown'}${p.cachedMtu !== undefined ? `, path MTU the kernel has learned: ${p.cachedMtu}` : ''} (\`${p.route.command}\`)`] : []),
        ...p.attempts.map((a) => describeAttempt(p, a)),
      ],
      group: 'path MTU',
    },
  }
}

export function checkPathMtu(ctx: CheckContext): CheckOutcome {
  const artifact = ctx.node.artifacts[MTU_PROBE_ARTIFACT]
  if (!artifact) return {status: 'skipped', reason: 'not run: --probe not given'}
  const text = factsOf(ctx).text(MTU_PROBE_ARTIFACT)
  if (text === undefined) return {status: 'skipped', reason: `not run: the probe failed on this node (${artifact.error ?? 'no output'})`}
  const parsed = parseMtuProbe(text)
  if (!parsed.ok) return {status: 'skipped', reason: `cannot tell: the mtu-probe artifact is unreadable (${parsed.reason})`}
  const record = parsed.value
  if (record.notRun !== undefined) return {status: 'skipped', reason: `not run: ${record.notRun}`}
  const verdicts = record.peers.map(judgePeer)
  const findings = verdicts.flatMap((v) => (v.kind === 'fail' ? [v.draft] : []))
  const unknown = [...verdicts.flatMap((v) => (v.kind === 'unknown' ? [v.reason] : [])), ...record.skipped.map((s) => `${s.node}${s.address ? ` (${s.address})` : ''}: not probed, ${s.reason}`)]
  if (findings.length > 0) {
    // The peers that could not be judged go with the findings, so that none is mistaken for a good path.
    if (unknown.length > 0) findings[0]!.evidence = [...(findings[0]!.evidence ?? []), ...unknown.map((u) => `not judged: ${u}`)]
    return {status: 'failed', findings}
  }
  if (unknown.length === 0 && verdicts.length > 0) return {status: 'passed'}
  const ok = record.peers.filter((_, i) => verdicts[i]!.kind === 'ok').map((p) => `${p.node} (${p.address})`)
  if (verdicts.length === 0 && unknown.length === 0) return {status: 'skipped', reason: 'not run: no other selected node to probe'}
  return {status: 'skipped', reason: `cannot tell for ${unknown.join('; ')}${ok.length > 0 ? ` (the path to ${ok.join(', ')} carries the device MTU)` : ''}`}
}
