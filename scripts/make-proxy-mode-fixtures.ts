// Writes the fire/quiet bundles for the PROXY (kube-proxy mode and health) and CT (conntrack) checks under
// test/fixtures/checks/{proxy-mode,conntrack}/<case>/ and each area's cases.json. iptables-save (both backends),
// nft list ruleset, ip -j -d link show (except kube-ipvs0) and conntrack -L come from the real tools in a network namespace (root
// needed); ipvsadm cannot run here (no IPVS in the kernel), so its listing is hand-written in `ipvsadm -Sn` format.
// Run: node --import tsx scripts/make-proxy-mode-fixtures.ts [proxy-mode|conntrack ...]
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import type {ClusterSnapshot} from '../src/core/model/snapshot.js'
import {SNAPSHOT_API_VERSION} from '../src/core/model/snapshot.js'
import {writeBundle} from '../src/transports/bundle/bundle.js'
import {createNetns, netnsUnavailable} from '../test/support/netns.js'
import {GAME, healthzBody, IPVSADM_SAVE, ipLinkJson, kubeProxyPod, metricsText, NODE, procModules, proxyCluster, proxyClusterWithGame, proxyNode} from '../test/support/proxy-mode-builders.js'

const why = netnsUnavailable()
if (why) throw new Error(`proxy-mode fixtures capture real iptables/nft/ip/conntrack output: ${why}`)

const NOW = '2026-12-02T12:00:00Z'
const T = Date.parse(NOW) / 1000
const ALL_MODULES = ['ip_vs', 'ip_vs_rr', 'ip_vs_wrr', 'ip_vs_sh', 'nf_conntrack', 'nf_tables', 'nft_fib', 'nft_fib_ipv4', 'br_netfilter', 'overlay']

/** kube-proxy iptables-mode rules for kube-dns and shop/web (nat and filter), as iptables-restore input. */
const IPTABLES_MODE = `*filter
:KUBE-FIREWALL - [0:0]
:KUBE-SERVICES - [0:0]
:KUBE-PROXY-CANARY - [0:0]
-A INPUT -j KUBE-FIREWALL
-A OUTPUT -m conntrack --ctstate NEW -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-PROXY-CANARY - [0:0]
:KUBE-SVC-TCOU7JCQXEZGVUNU - [0:0]
:KUBE-SEP-IT2ZTR26TO4XFPTO - [0:0]
:KUBE-SEP-ZP3FB6NMPNCO4VBJ - [0:0]
:KUBE-SVC-Z6GDYMWE5TV2NNJN - [0:0]
:KUBE-SEP-QKX4QX54UKWK6JIY - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000
-A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
-A KUBE-POSTROUTING -j MARK --set-xmark 0x4000/0x0
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
-A KUBE-SERVICES -d 10.96.0.10/32 -p udp -m comment --comment "kube-system/kube-dns:dns cluster IP" -m udp --dport 53 -j KUBE-SVC-TCOU7JCQXEZGVUNU
-A KUBE-SERVICES -d 10.96.1.1/32 -p tcp -m comment --comment "shop/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-Z6GDYMWE5TV2NNJN
-A KUBE-SVC-TCOU7JCQXEZGVUNU -m comment --comment "kube-system/kube-dns:dns -> 10.244.1.2:53" -m statistic --mode random --probability 0.50000000000 -j KUBE-SEP-IT2ZTR26TO4XFPTO
-A KUBE-SVC-TCOU7JCQXEZGVUNU -m comment --comment "kube-system/kube-dns:dns -> 10.244.2.2:53" -j KUBE-SEP-ZP3FB6NMPNCO4VBJ
-A KUBE-SEP-IT2ZTR26TO4XFPTO -s 10.244.1.2/32 -m comment --comment "kube-system/kube-dns:dns" -j KUBE-MARK-MASQ
-A KUBE-SEP-IT2ZTR26TO4XFPTO -p udp -m comment --comment "kube-system/kube-dns:dns" -m udp -j DNAT --to-destination 10.244.1.2:53
-A KUBE-SEP-ZP3FB6NMPNCO4VBJ -s 10.244.2.2/32 -m comment --comment "kube-system/kube-dns:dns" -j KUBE-MARK-MASQ
-A KUBE-SEP-ZP3FB6NMPNCO4VBJ -p udp -m comment --comment "kube-system/kube-dns:dns" -m udp -j DNAT --to-destination 10.244.2.2:53
-A KUBE-SVC-Z6GDYMWE5TV2NNJN -m comment --comment "shop/web:http -> 10.244.1.10:8080" -j KUBE-SEP-QKX4QX54UKWK6JIY
-A KUBE-SEP-QKX4QX54UKWK6JIY -s 10.244.1.10/32 -m comment --comment "shop/web:http" -j KUBE-MARK-MASQ
-A KUBE-SEP-QKX4QX54UKWK6JIY -p tcp -m comment --comment "shop/web:http" -m tcp -j DNAT --to-destination 10.244.1.10:8080
COMMIT
*mangle
:KUBE-IPTABLES-HINT - [0:0]
:KUBE-KUBELET-CANARY - [0:0]
:KUBE-PROXY-CANARY - [0:0]
COMMIT
`

/** The small iptables ruleset IPVS mode keeps (node-state.md A.6), without KUBE-SVC chains. */
const IPVS_MODE = `*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-NODE-PORT - [0:0]
-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A OUTPUT -m comment --comment "kubernetes service portals" -j KUBE-SERVICES
-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING
-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000
-A KUBE-POSTROUTING -m comment --comment "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose" -m set --match-set KUBE-LOOP-BACK dst,dst,src -j MASQUERADE
-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT
-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT
COMMIT
`

/** Ipsets IPVS mode's rules match on; they must exist before the rules load. */
const IPVS_IPSETS = ['create KUBE-LOOP-BACK hash:ip,port,ip family inet', 'create KUBE-CLUSTER-IP hash:ip,port family inet', '']

const NFT_KUBE_PROXY = `table ip kube-proxy {
\tcomment "rules for kube-proxy"
\tset cluster-ips {
\t\ttype ipv4_addr
\t\telements = { 10.96.0.10, 10.96.1.1 }
\t}
\tchain services {
\t}
\tchain nat-prerouting {
\t\ttype nat hook prerouting priority dstnat; policy accept;
\t\tjump services
\t}
}
`

interface Capture {
  iptables?: string
  legacy?: string
  ipsets?: boolean
  nft?: string
  kubeIpvs0?: boolean
  conntrack?: string[][]
}

const stamp = (s: string) => s.replace(/ on \w{3} \w{3} +\d+ [\d:]+ \d{4}/g, ' on Wed Dec  2 12:00:00 2026')

/** Loads rules into a fresh namespace with the real tools and reads them back as the collector would. */
function capture(c: Capture): Record<string, string> {
  const ns = createNetns('nd-pm')
  try {
    if (c.ipsets) ns.exec(['ipset', 'restore'], IPVS_IPSETS.join('\n'))
    if (c.iptables) ns.exec(['iptables-nft-restore'], c.iptables)
    if (c.legacy) ns.exec(['iptables-legacy-restore'], c.legacy)
    if (c.nft) ns.exec(['nft', '-f', '-'], c.nft)
    for (const argv of c.conntrack ?? []) ns.exec(['conntrack', '-I', ...argv])
    const out: Record<string, string> = {
      'iptables-version': ns.exec(['iptables-nft', '--version']),
      'iptables-save': stamp(ns.exec(['iptables-nft-save'])),
      'iptables-nft-save': stamp(ns.exec(['iptables-nft-save'])),
      'iptables-legacy-save': stamp(ns.exec(['iptables-legacy-save'])),
      'nft-ruleset': ns.exec(['nft', 'list', 'ruleset']),
      // This kernel has no dummy links, so kube-ipvs0 (a dummy) is written in `ip -j -d link` form by hand.
      'ip-link': c.kubeIpvs0 ? ipLinkJson(true) : ns.exec(['ip', '-j', '-d', 'link', 'show']),
    }
    if (c.conntrack) out['conntrack-udp'] = ns.exec(['conntrack', '-L', '-p', 'udp']).split('\n').sort().filter((l) => l !== '').join('\n') + '\n'
    return out
  } finally {
    ns.destroy()
  }
}

const healthy = {
  'proxy-mode': 'iptables',
  'kube-proxy-healthz': healthzBody('2026-12-02T11:59:45Z', NOW),
  'kube-proxy-metrics': metricsText({lastSync: T - 15, lastQueued: T - 20}),
  modules: procModules(ALL_MODULES),
}

const FALLBACK_LOG = [
  'I1202 11:00:00.000000       1 server_others.go:269] "Using ipvs Proxier"',
  'E1202 11:00:00.100000       1 server_others.go:300] "Can\'t use ipvs proxier, trying iptables proxier" err="IPVS proxier will not be used because the following required kernel modules are not loaded: [ip_vs_rr ip_vs_wrr ip_vs_sh]"',
  'I1202 11:00:00.200000       1 server_others.go:206] "Using iptables Proxier"',
  '',
].join('\n')

interface Case {
  name: string
  area: 'proxy-mode' | 'conntrack'
  fires?: string[]
  /** Checks this case is the quiet bundle for (instead of the area's QUIET), when the usual one lacks the input. */
  quietFor?: string[]
  cluster: () => ClusterSnapshot
  capture: Capture
  artifacts: Record<string, string>
}

const ipvsNode = {kubeIpvs0: true, ipsets: true, iptables: IPVS_MODE}
const DNS_QUERY = (sport: number, client: string, ep: string) => ['-p', 'udp', '-s', client, '-d', '10.96.0.10', '--sport', String(sport), '--dport', '53', '-r', ep, '-q', client, '--reply-port-src', '53', '--reply-port-dst', String(sport), '-t', '120']
/** A game client's flow to games/quake through `dst:dport` (a NodePort, externalIP or LB IP), NATed to `ep` (masqueraded to node-a). */
const GAME_FLOW = (sport: number, client: string, dst: string, dport: number, ep: string) =>
  ['-p', 'udp', '-s', client, '-d', dst, '--sport', String(sport), '--dport', String(dport), '-r', ep, '-q', '192.168.0.11', '--reply-port-src', String(GAME.port), '--reply-port-dst', String(sport), '-t', '120']
const GAME_FLOWS = (ep: string) => [
  GAME_FLOW(51001, '198.18.0.7', '192.168.0.11', GAME.nodePort, ep),
  GAME_FLOW(51002, '198.18.0.8', GAME.externalIP, GAME.port, ep),
  GAME_FLOW(51003, '198.18.0.9', GAME.lbIP, GAME.port, ep),
]

/** kube-proxy images pinned by digest only: no tag names the version (and the metrics carry no build info). */
function digestOnly(c: ClusterSnapshot): ClusterSnapshot {
  const image = `registry.internal/kube-proxy@sha256:${'0'.repeat(64)}`
  for (const p of c.pods) for (const x of p.spec?.containers ?? []) x.image = image
  for (const d of c.daemonSets) for (const x of d.spec?.template?.spec?.containers ?? []) x.image = image
  return c
}

/** v1.31's /configz (the internal type, Go field names): constructed, see test/fixtures/parse/kube-proxy-configz/README.md. */
const CONFIGZ_V131 = readFileSync('test/fixtures/parse/kube-proxy-configz/v1.31-internal.json', 'utf8')

const CASES: Case[] = [
  {name: 'healthy-iptables', area: 'proxy-mode', cluster: () => proxyCluster(), capture: {iptables: IPTABLES_MODE}, artifacts: {...healthy, ipvsadm: ''}},
  {
    name: 'ipvs-fallback',
    area: 'proxy-mode',
    fires: ['PROXY-001'],
    cluster: () => proxyCluster({version: 'v1.24.17', config: 'mode: ipvs\n', logs: FALLBACK_LOG}),
    capture: {iptables: IPTABLES_MODE},
    artifacts: {...healthy, modules: procModules(['ip_vs', 'nf_conntrack', 'br_netfilter', 'overlay'])},
  },
  {name: 'userspace-configured', area: 'proxy-mode', fires: ['PROXY-002'], cluster: () => proxyCluster({version: 'v1.28.3', config: 'mode: userspace\n', pod: kubeProxyPod('v1.28.3', {ready: false, waiting: 'CrashLoopBackOff', restarts: {count: 9}})}), capture: {}, artifacts: {}},
  {name: 'mode-not-applied', area: 'proxy-mode', fires: ['PROXY-003'], cluster: () => proxyCluster({config: 'mode: nftables\n'}), capture: {iptables: IPTABLES_MODE}, artifacts: {...healthy}},
  {name: 'ipvs-deprecated', area: 'proxy-mode', fires: ['PROXY-004'], cluster: () => proxyCluster({version: 'v1.35.0', config: 'mode: ipvs\n'}), capture: ipvsNode, artifacts: {...healthy, 'proxy-mode': 'ipvs', ipvsadm: IPVSADM_SAVE}},
  {
    name: 'ipvs-with-iptables-leftovers',
    area: 'proxy-mode',
    fires: ['PROXY-005'],
    cluster: () => proxyCluster({config: 'mode: ipvs\n'}),
    capture: {...ipvsNode, iptables: IPTABLES_MODE.replace('*nat\n', '*nat\n:KUBE-NODE-PORT - [0:0]\n')},
    artifacts: {...healthy, 'proxy-mode': 'ipvs', ipvsadm: IPVSADM_SAVE},
  },
  {name: 'kube-proxy-crashloop', area: 'proxy-mode', fires: ['PROXY-006'], cluster: () => proxyCluster({pod: kubeProxyPod('v1.31.4', {ready: false, waiting: 'CrashLoopBackOff', restarts: {count: 14, agoSeconds: 40}}), logs: 'E1202 11:59:20.000000       1 run.go:74] "command failed" err="failed complete: strict decoding error: unknown field \\"udpIdleTimeout\\""\n'}), capture: {iptables: IPTABLES_MODE}, artifacts: {}},
  {name: 'healthz-stale', area: 'proxy-mode', fires: ['PROXY-007'], cluster: () => proxyCluster(), capture: {iptables: IPTABLES_MODE}, artifacts: {...healthy, 'kube-proxy-healthz': healthzBody('2026-12-02T11:41:00Z', NOW)}},
  {name: 'sync-stuck', area: 'proxy-mode', fires: ['PROXY-008'], cluster: () => proxyCluster(), capture: {iptables: IPTABLES_MODE}, artifacts: {...healthy, 'kube-proxy-metrics': metricsText({lastSync: T - 1200, lastQueued: T - 30})}},
  {name: 'restore-failures', area: 'proxy-mode', fires: ['PROXY-009'], cluster: () => proxyCluster(), capture: {iptables: IPTABLES_MODE}, artifacts: {...healthy, 'kube-proxy-metrics': metricsText({lastSync: T - 15, lastQueued: T - 20, restoreFailures: 4, partialFailures: 2})}},
  {name: 'dual-backend', area: 'proxy-mode', fires: ['PROXY-010'], cluster: () => proxyCluster(), capture: {iptables: IPTABLES_MODE, legacy: IPTABLES_MODE.replace(/\*mangle[\s\S]*$/, '')}, artifacts: {...healthy}},
  {name: 'version-newer', area: 'proxy-mode', fires: ['PROXY-011'], cluster: () => proxyCluster({version: 'v1.38.0-alpha.2'}), capture: {iptables: IPTABLES_MODE}, artifacts: {...healthy, ipvsadm: ''}},
  // The running kube-proxy serves the configuration its ConfigMap holds: nothing to apply.
  {name: 'running-config-applied', area: 'proxy-mode', quietFor: ['PROXY-013'], cluster: () => proxyCluster(), capture: {iptables: IPTABLES_MODE}, artifacts: {...healthy, ipvsadm: '', 'kube-proxy-configz': CONFIGZ_V131}},
  // The ConfigMap was edited after kube-proxy started (masquerade bit, conntrack per core): /configz still says 14 and 32768.
  {
    name: 'running-config-stale',
    area: 'proxy-mode',
    fires: ['PROXY-013'],
    cluster: () => proxyCluster({config: 'mode: iptables\niptables:\n  masqueradeBit: 15\nconntrack:\n  maxPerCore: 65536\n'}),
    capture: {iptables: IPTABLES_MODE},
    artifacts: {...healthy, ipvsadm: '', 'kube-proxy-configz': CONFIGZ_V131},
  },
  {name: 'version-unknown', area: 'proxy-mode', fires: ['PROXY-012'], cluster: () => digestOnly(proxyCluster()), capture: {iptables: IPTABLES_MODE}, artifacts: {...healthy, ipvsadm: ''}},
  {
    name: 'healthy',
    area: 'conntrack',
    cluster: () => proxyCluster(),
    capture: {iptables: IPTABLES_MODE, conntrack: [DNS_QUERY(41001, '10.244.1.5', '10.244.1.2'), DNS_QUERY(41002, '10.244.1.6', '10.244.2.2')]},
    artifacts: {},
  },
  {
    name: 'healthy-frontends',
    area: 'conntrack',
    // games/quake's NodePort, externalIP and LoadBalancer flows all go to its current endpoint.
    cluster: () => proxyClusterWithGame({}, ['10.244.1.30']),
    capture: {iptables: IPTABLES_MODE, conntrack: [DNS_QUERY(41001, '10.244.1.5', '10.244.1.2'), ...GAME_FLOWS('10.244.1.30')]},
    artifacts: {},
  },
  {
    name: 'stale-udp',
    area: 'conntrack',
    fires: ['CT-001'],
    // CoreDNS moved: 10.244.2.2 is gone, 10.244.3.7 replaced it; one query was never NATed (sent while there were no endpoints).
    cluster: () => proxyCluster({dnsEndpoints: ['10.244.1.2', '10.244.3.7']}),
    capture: {
      iptables: IPTABLES_MODE,
      conntrack: [DNS_QUERY(41001, '10.244.1.5', '10.244.1.2'), DNS_QUERY(41002, '10.244.1.6', '10.244.2.2'), DNS_QUERY(41003, '10.244.1.7', '10.244.2.2'), DNS_QUERY(41004, '10.244.1.8', '10.96.0.10')],
    },
    artifacts: {},
  },
  {
    name: 'stale-udp-frontends',
    area: 'conntrack',
    fires: ['CT-001'],
    // games/quake's pod moved from 10.244.2.30 to 10.244.1.30; flows through its NodePort, externalIP and LB IP still go to the old one.
    cluster: () => proxyClusterWithGame({}, ['10.244.1.30']),
    capture: {iptables: IPTABLES_MODE, conntrack: [DNS_QUERY(41001, '10.244.1.5', '10.244.1.2'), ...GAME_FLOWS('10.244.2.30')]},
    artifacts: {},
  },
]

const QUIET: Record<Case['area'], string> = {'proxy-mode': 'healthy-iptables', conntrack: 'healthy'}
const cases: Record<Case['area'], Record<string, {fire: string; quiet: string; node: string}>> = {'proxy-mode': {}, conntrack: {}}

const wanted = process.argv.slice(2)
for (const c of CASES.filter((x) => wanted.length === 0 || wanted.includes(x.area))) {
  const out = join('test/fixtures/checks', c.area, c.name)
  const captured = capture(c.capture)
  const node = proxyNode({...captured, ...c.artifacts})
  rmSync(out, {recursive: true, force: true})
  await writeBundle(out, {
    manifest: {apiVersion: SNAPSHOT_API_VERSION, kind: 'Bundle', createdAt: '2026-12-02T12:00:02.000Z', tool: {name: 'node-doctor', version: '0.1.0'}, context: `fixture-${c.area}-${c.name}`, nodes: [NODE]},
    cluster: c.cluster(),
    nodes: [node],
  })
  for (const id of c.fires ?? []) cases[c.area][id] ??= {fire: c.name, quiet: CASES.find((q) => q.area === c.area && q.quietFor?.includes(id))?.name ?? QUIET[c.area], node: NODE}
  console.log(`wrote ${out}`)
}
for (const area of (['proxy-mode', 'conntrack'] as const).filter((a) => wanted.length === 0 || wanted.includes(a))) {
  mkdirSync(join('test/fixtures/checks', area), {recursive: true})
  writeFileSync(join('test/fixtures/checks', area, 'cases.json'), JSON.stringify(cases[area], null, 2) + '\n')
}
