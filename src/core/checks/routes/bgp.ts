// RT-008: Calico BGP sessions that are not Established. Peers come from BIRD's protocol table (per family: bird for
// IPv4, bird6 for IPv6) and, for a family BIRD's table was not collected for, from `calicoctl node status`.
// Whether the cluster uses BGP at all is read from calico-node's CALICO_NETWORKING_BACKEND and the IPPools.
import type {Pod} from '../../model/k8s.js'
import type {ClusterSnapshot, NodeSnapshot} from '../../model/snapshot.js'
import {artifactText} from '../../model/snapshot.js'
import {type BgpFamily, type BgpPeer, bgpPeersFromBird, BirdUnreachableError, isEstablished, parseBirdProtocols, parseCalicoNodeStatus} from '../../parse/bgp-status.js'
import type {CheckContext, CheckOutcome, FindingDraft} from '../types.js'
import {type CalicoModel, hasCalico, isCalicoNodePod, NO_CALICO, ownerHint, readCalicoModel} from './calico.js'

/** Plan artifacts: BIRD's protocol table per family, and calicoctl's summary of both. */
export const BIRD_ARTIFACT: Record<BgpFamily, string> = {inet: 'bird-protocols', inet6: 'bird6-protocols'}
export const CALICOCTL_STATUS_ARTIFACT = 'calico-node-status'

const FAMILY_NAME: Record<BgpFamily, string> = {inet: 'IPv4', inet6: 'IPv6'}
/** How evidence names each source (the collected command is a shell wrapper around the BIRD client). */
const SOURCE_LABEL: Record<string, string> = {
  'bird-protocols': 'BIRD show protocols (bird.ctl)',
  'bird6-protocols': 'BIRD show protocols (bird6.ctl)',
  'calico-node-status': 'calicoctl node status',
}

/** What one family's BGP status says, and where it was read. */
type FamilyStatus = {source: string; peers: BgpPeer[]} | {source: string; notRunning: string}

/** calico-node's networking backend (bird, vxlan, none) when its pod spec states it literally. */
export function calicoBackend(cluster: ClusterSnapshot, node: string): {value: string; from: string} | undefined {
  const pods: Pod[] = cluster.pods.filter(isCalicoNodePod).sort((a, b) => Number(b.spec?.nodeName === node) - Number(a.spec?.nodeName === node))
  for (const p of pods) {
    for (const c of p.spec?.containers ?? []) {
      const v = c.env?.find((e) => e.name === 'CALICO_NETWORKING_BACKEND')?.value
      if (v !== undefined && v !== '') return {value: v, from: `pod ${p.metadata.namespace ?? ''}/${p.metadata.name}`}
    }
  }
  return undefined
}

/** Why reading an artifact gave nothing, for the skip reason. */
function absence(node: NodeSnapshot, id: string): string {
  const a = node.artifacts[id]
  if (!a) return `${id}: not collected`
  return `${id}: ${a.error ?? 'empty'}`
}

function readFamilies(node: NodeSnapshot): {families: Partial<Record<BgpFamily, FamilyStatus>>; notes: string[]} {
  const families: Partial<Record<BgpFamily, FamilyStatus>> = {}
  const notes: string[] = []
  for (const family of ['inet', 'inet6'] as const) {
    const id = BIRD_ARTIFACT[family]
    const text = artifactText(node, id)
    if (text === undefined || text.trim() === '') {
      notes.push(absence(node, id))
      continue
    }
    try {
      families[family] = {source: SOURCE_LABEL[id]!, peers: bgpPeersFromBird(parseBirdProtocols(text), family)}
    } catch (err) {
      const e = err as Error & {line?: number}
      notes.push(err instanceof BirdUnreachableError ? `${id}: ${e.message}` : `${id} cannot be read: ${e.message}${e.line === undefined ? '' : ` (line ${e.line})`}`)
    }
  }
  const text = artifactText(node, CALICOCTL_STATUS_ARTIFACT)
  if (text === undefined || text.trim() === '') notes.push(absence(node, CALICOCTL_STATUS_ARTIFACT))
  else {
    const source = SOURCE_LABEL[CALICOCTL_STATUS_ARTIFACT]!
    try {
      const status = parseCalicoNodeStatus(text)
      if (!status.running) notes.push(`${CALICOCTL_STATUS_ARTIFACT}: Calico process is not running`)
      for (const family of ['inet', 'inet6'] as const) {
        const s = status.families[family]
        if (families[family] !== undefined || s === undefined) continue
        if (s.status === 'peers') families[family] = {source, peers: s.peers}
        else if (s.status === 'no-peers') families[family] = {source, peers: []}
        else if (s.status === 'not-running') families[family] = {source, notRunning: s.message}
        else notes.push(`${CALICOCTL_STATUS_ARTIFACT} (${FAMILY_NAME[family]}): ${s.message}`)
      }
    } catch (err) {
      const e = err as Error & {line?: number}
      notes.push(`${CALICOCTL_STATUS_ARTIFACT} cannot be read: ${e.message}${e.line === undefined ? '' : ` (line ${e.line})`}`)
    }
  }
  return {families, notes}
}

/** True when every IPPool encapsulates with VXLAN (Calico then needs no BGP); undefined without pools. */
function vxlanOnly(model: CalicoModel): boolean | undefined {
  if (model.pools.length === 0) return undefined
  return model.pools.every((p) => p.vxlanMode !== 'Never' && p.ipipMode === 'Never')
}

function poolsNeedingBgp(model: CalicoModel): string {
  return `IPPools routed by BGP: ${model.pools
    .filter((p) => p.vxlanMode === 'Never')
    .map((p) => `${p.name} ${p.cidr.text} (ipipMode ${p.ipipMode})`)
    .join(', ')}`
}

/** What the session state means, in the words an operator needs. */
function diagnose(p: BgpPeer): string {
  const info = p.info
  if (p.bgpState === undefined) return info === '' ? 'the session is down (disabled, or stopped after repeated errors)' : `the session is down after an error (${info})`
  if (/Socket: Connection refused/i.test(info)) return "the peer refuses TCP 179: its BIRD is not running or a firewall rejects BGP"
  if (/Socket: (Network is unreachable|No route to host)/i.test(info)) return 'this node has no path to the peer address: a wrong autodetected IP, or the peer is gone'
  if (/Socket: Connection timed out/i.test(info)) return 'TCP 179 to the peer times out: a firewall drops BGP or the peer address is wrong'
  if (/^Received: (Administrative shutdown|Peer de-configured|Administrative reset)/.test(info)) return `the peer shut the session down (${info}): its BIRD stopped or it no longer peers with this node`
  if (/^(Received|BGP Error): /.test(info)) return `the peer closed the session (${info}): check AS numbers, passwords and the peer's BGPPeer config`
  switch (p.bgpState) {
    case 'Passive':
      return 'this node waits for the peer to connect (the mesh is one-way per pair), and it has not: look at the peer side'
    case 'Connect':
    case 'Active':
      return "the TCP connection to the peer's BGP port does not come up: a firewall or a wrong peer address"
    case 'OpenSent':
    case 'OpenConfirm':
      return 'TCP works but the BGP OPEN exchange does not complete: AS number or password mismatch'
    case 'Idle':
      return 'BIRD is not trying to connect (idle after errors)'
    default:
      return info === '' ? `the session is ${p.bgpState}` : `the session is ${p.bgpState} (${info})`
  }
}

function nodeOf(model: CalicoModel, address: string | undefined): string | undefined {
  if (address === undefined) return undefined
  return [...model.nodes.values()].find((n) => n.all.has(address))?.name
}

function draft(cluster: ClusterSnapshot, model: CalicoModel, family: BgpFamily, source: string, p: BgpPeer): FindingDraft {
  const peerNode = nodeOf(model, p.address)
  const addr = p.address ?? p.protocol ?? 'unknown peer'
  const who = p.port === undefined ? addr : p.family === 'inet6' ? `[${addr}]:${p.port}` : `${addr}:${p.port}`
  const kind = [p.type, peerNode === undefined ? undefined : `node ${peerNode}`].filter((x) => x !== undefined).join(', ')
  const state = `${p.bgpState === undefined ? '' : `${p.bgpState}, `}BIRD state ${p.state} since ${p.since}`
  const hint = peerNode === undefined ? '' : ownerHint(cluster, model, peerNode)
  const consequence = peerNode === undefined ? 'no routes are learned from it' : `no routes to ${peerNode}'s pod blocks are learned from it`
  const row = [p.protocol, p.state, p.since, p.bgpState, p.info].filter((x) => x !== undefined && x !== '').join(' ')
  return {
    message: `${FAMILY_NAME[family]} BGP peer ${who}${kind === '' ? '' : ` (${kind})`} is not Established (${state}): ${diagnose(p)}${hint}; ${consequence}`,
    subject: {kind: 'BGPPeer', name: who, in: p.protocol ?? `${FAMILY_NAME[family]} BGP`},
    evidence: [`${source}, line ${p.line}: ${row}`],
    group: 'BGP peers',
  }
}

export function checkBgpPeers({cluster, node}: CheckContext): CheckOutcome {
  if (!hasCalico(cluster)) return {status: 'skipped', reason: NO_CALICO}
  const backend = calicoBackend(cluster, node.node)
  if (backend && backend.value !== 'bird') {
    return {status: 'skipped', reason: `calico-node runs without BGP (CALICO_NETWORKING_BACKEND=${backend.value} on ${backend.from}): there are no BGP peers to judge`}
  }
  const model = readCalicoModel(cluster)
  const {families, notes} = readFamilies(node)
  const findings: FindingDraft[] = []
  let judged = 0
  for (const family of ['inet', 'inet6'] as const) {
    const f = families[family]
    if (!f) continue
    if ('notRunning' in f) {
      // bird6 is often absent on IPv4-only clusters; only a missing IPv4 BIRD where the pools need BGP is a fault.
      if (family === 'inet6') continue
      const vx = vxlanOnly(model)
      const needsBgp = backend !== undefined ? `CALICO_NETWORKING_BACKEND=${backend.value} on ${backend.from}` : vx === false ? poolsNeedingBgp(model) : undefined
      if (needsBgp === undefined) {
        notes.push(`${f.source}: ${f.notRunning}${vx === true ? ' (the IPPools use VXLAN only, so no BGP is needed)' : ''}`)
        continue
      }
      judged++
      findings.push({
        message: `BIRD is not running on ${node.node} although Calico routes by BGP here: no BGP session can be Established, so no routes to other nodes' pod blocks are learned`,
        subject: {kind: 'Node', name: node.node},
        evidence: [`${f.source}: ${f.notRunning}`, needsBgp],
        group: 'BGP peers',
      })
      continue
    }
    judged++
    for (const p of f.peers) if (!isEstablished(p)) findings.push(draft(cluster, model, family, f.source, p))
  }
  if (judged === 0) {
    const why = vxlanOnly(model) === true ? '; the IPPools use VXLAN only, so Calico may run without BGP here' : ''
    return {status: 'skipped', reason: `no BGP peer status for this node (${notes.join('; ')})${why}`}
  }
  return findings.length > 0 ? {status: 'failed', findings} : {status: 'passed'}
}
