// Test helpers reproducing kube-proxy's own test harness (pkg/proxy/iptables/proxier_test.go @531be812):
// NewFakeProxier's settings, sortIPTablesRules (via pkg/util/iptables/testing/parse.go Dump.String()),
// checkIPTablesRuleJumps, and a tiny tracePacket for runPacketFlowTests.
//
// Fixture conventions (as upstream): pods 10.0.0.0/8 (IPv6 fd00:10::/64), service IPs 172.30.0.0/16,
// node IPs 192.168.0.0/24 with the local node 192.168.0.2, external IPs 192.168.99.0/24,
// load balancers 1.2.3.4 / 5.6.7.8 / 9.10.11.12, outside clients 203.0.113.0/24.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {EndpointSlice, Service} from '../../../../src/core/model/k8s.js'
import type {ProxierOptions} from '../../../../src/core/proxier/config.js'
import {featureGatesFor, NEWEST_SUPPORTED_VERSION} from '../../../../src/core/proxier/config.js'
import {generateIptablesRestore, type IptablesOutput} from '../../../../src/core/proxier/iptables/generate.js'
import {loadObjects} from '../../../../src/core/proxier/objects.js'
import {cidrContains, parseCIDRSloppy, parseIPSloppy} from '../../../../src/core/net/ip.js'
import {FIXTURES} from '../../../support/golden.js'

export const TEST_NODE_NAME = 'test-node'
export const TEST_NODE_IP = '192.168.0.2'
export const TEST_NODE_IP_ALT = '192.168.1.2'
export const TEST_EXTERNAL_IP = '192.168.99.11'
export const TEST_NODE_IPV6 = '2001:db8::1'
export const TEST_NODE_IPV6_ALT = '2001:db8:1::2'
export const TEST_EXTERNAL_CLIENT = '203.0.113.2'
export const TEST_EXTERNAL_CLIENT_BLOCKED = '203.0.113.130'
export const TEST_NODE_IPS = [TEST_NODE_IP, TEST_NODE_IP_ALT, TEST_EXTERNAL_IP, TEST_NODE_IPV6, TEST_NODE_IPV6_ALT]

/** NewFakeProxier: mark 0x4000, test-node, 192.168.0.2, detect-local by CIDR, localhost nodeports, both nfacct counters. */
export function fakeProxierOptions(family: 'ipv4' | 'ipv6' = 'ipv4', overrides: Partial<ProxierOptions> = {}): ProxierOptions {
  const version = overrides.version ?? NEWEST_SUPPORTED_VERSION
  return {
    family,
    version,
    nodeName: TEST_NODE_NAME,
    nodeIP: TEST_NODE_IP,
    masqueradeBit: 14,
    masqueradeMark: '0x4000',
    masqueradeAll: false,
    localDetector: {mode: 'ClusterCIDR', cidr: family === 'ipv4' ? '10.0.0.0/8' : 'fd00:10::/64'},
    nodePortAddresses: [],
    localhostNodePorts: true,
    randomFully: false,
    nfacct: {ctStateInvalidDroppedPkts: true, localhostNpsAcceptedPkts: true},
    tcpBeLiberal: false,
    nodeInterfaceAddresses: ['127.0.0.1/8', '::1/128', `${TEST_NODE_IP}/24`, `${TEST_NODE_IP_ALT}/24`, `${TEST_EXTERNAL_IP}/24`, `${TEST_NODE_IPV6}/64`, `${TEST_NODE_IPV6_ALT}/64`],
    featureGates: featureGatesFor(version),
    ...overrides,
  }
}

/** Loads test/fixtures/<path> (objects YAML) and generates with `options`. */
export function generateFromFixture(path: string, options: ProxierOptions): IptablesOutput {
  const text = readFileSync(join(FIXTURES, path), 'utf8')
  const objects = loadObjects([{name: path, text}])
  return generateIptablesRestore({services: objects.services, endpointSlices: objects.endpointSlices, options})
}

interface DumpRule {
  raw: string
  chain: string
  comment?: string
}
interface DumpChain {
  name: string
  rules: DumpRule[]
  deleted: boolean
}
interface DumpTable {
  name: string
  chains: DumpChain[]
}

/** The comment value of a restore line (quoted or bare), as ParseRule extracts it. */
export function commentOf(raw: string): string | undefined {
  const m = / --comment (?:"([^"]*)"|(\S+))/.exec(raw)
  return m ? (m[1] ?? m[2]) : undefined
}

/** iptablestest.ParseIPTablesDump for restore-format text. */
export function parseDump(text: string): DumpTable[] {
  const tables: DumpTable[] = []
  let t: DumpTable | undefined
  const chainOf = (name: string): DumpChain => {
    const c = t!.chains.find((x) => x.name === name)
    if (!c) throw new Error(`rule for undeclared chain ${name}`)
    return c
  }
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    if (line.startsWith('*')) tables.push((t = {name: line.slice(1), chains: []}))
    else if (line.startsWith(':')) t!.chains.push({name: line.slice(1).split(' ')[0]!, rules: [], deleted: false})
    else if (line.startsWith('-A ')) {
      const chain = line.split(' ')[1]!
      const comment = commentOf(line)
      chainOf(chain).rules.push(comment === undefined ? {raw: line, chain} : {raw: line, chain, comment})
    } else if (line.startsWith('-X ')) chainOf(line.slice(3)).deleted = true
    else if (line === 'COMMIT') t = undefined
    else throw new Error(`unparseable line ${line}`)
  }
  return tables
}

function serviceNameOfComment(c: string): string {
  const i = c.search(/[ :]/)
  return i === -1 ? c : c.slice(0, i)
}

function orderByCommentServiceName(a: DumpRule, b: DumpRule): number {
  if (a.comment === undefined || b.comment === undefined) return 0
  const x = serviceNameOfComment(a.comment)
  const y = serviceNameOfComment(b.comment)
  return x < y ? -1 : x > y ? 1 : 0
}

function chainOrder(a: string, b: string): number {
  const rank = (n: string): number => (n === 'KUBE-NODEPORTS' ? 0 : n === 'KUBE-SERVICES' ? 1 : n.startsWith('KUBE-') ? 2 : 3)
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra - rb
  return a < b ? -1 : a > b ? 1 : 0
}

/** sortIPTablesRules: the normal form kube-proxy's tests compare, independent of service order. */
export function sortIPTablesRules(text: string): string {
  const dump = parseDump(text)
  dump.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const t of dump) {
    t.chains.sort((a, b) => chainOrder(a.name, b.name))
    for (const c of t.chains) {
      if (c.name === 'KUBE-NODEPORTS' || (c.name === 'KUBE-SERVICES' && t.name === 'filter')) {
        c.rules = stableSort(c.rules, orderByCommentServiceName)
      } else if (c.name === 'KUBE-SERVICES' && t.name === 'nat') {
        const last = (r: DumpRule): boolean => r.comment?.includes('must be the last rule') ?? false
        c.rules = stableSort(c.rules, (a, b) => (last(a) ? (last(b) ? 0 : 1) : last(b) ? -1 : orderByCommentServiceName(a, b)))
      }
    }
  }
  let out = ''
  for (const t of dump) {
    out += `*${t.name}\n`
    for (const c of t.chains) out += `:${c.name} - [0:0]\n`
    for (const c of t.chains) for (const r of c.rules) out += `${r.raw}\n`
    for (const c of t.chains) if (c.deleted) out += `-X ${c.name}\n`
    out += 'COMMIT\n'
  }
  return out
}

function stableSort<T>(list: T[], cmp: (a: T, b: T) => number): T[] {
  return list
    .map((v, i) => ({v, i}))
    .sort((a, b) => cmp(a.v, b.v) || a.i - b.i)
    .map((x) => x.v)
}

/** checkIPTablesRuleJumps: every jump target and every filled chain is declared; no declared chain is unused. */
export function checkRuleJumps(text: string): string[] {
  const problems: string[] = []
  const builtinTargets = new Set(['ACCEPT', 'REJECT', 'DROP', 'MARK', 'RETURN', 'DNAT', 'SNAT', 'MASQUERADE'])
  const fixed = new Set(['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-FORWARD', 'KUBE-MARK-MASQ', 'KUBE-PROXY-FIREWALL', 'KUBE-FIREWALL'])
  for (const t of parseDump(text)) {
    const created = new Set(t.chains.filter((c) => !c.deleted).map((c) => c.name))
    const filled = new Set(t.chains.filter((c) => c.rules.length > 0).map((c) => c.name))
    const jumped = new Set<string>()
    for (const c of t.chains) for (const r of c.rules) {
      const m = / -j (\S+)/.exec(r.raw)
      if (m && !builtinTargets.has(m[1]!)) jumped.add(m[1]!)
    }
    for (const j of jumped) if (!created.has(j)) problems.push(`${t.name}: jump to undeclared ${j}`)
    for (const j of jumped) if (!filled.has(j) && j !== 'KUBE-NODEPORTS') problems.push(`${t.name}: jump to empty ${j}`)
    for (const c of created) if (!jumped.has(c) && !fixed.has(c)) problems.push(`${t.name}: ${c} declared but unused`)
  }
  return problems
}

/** A packet-flow case as in runPacketFlowTests. */
export interface PacketFlowTest {
  name: string
  sourceIP: string
  protocol?: 'tcp' | 'udp' | 'sctp'
  destIP: string
  destPort: number
  output: string
  masq?: boolean
}

function argAfter(tokens: string[], flag: string): {value: string; negated: boolean} | undefined {
  const i = tokens.indexOf(flag)
  if (i < 0) return undefined
  return {value: tokens[i + 1]!, negated: tokens[i - 1] === '!'}
}

function tokenize(raw: string): string[] {
  const out: string[] = []
  const re = /"([^"]*)"|(\S+)/g
  let m: RegExpExecArray | null
  while ((m = re.exec(raw))) out.push(m[1] ?? m[2]!)
  return out
}

function addressMatches(spec: {value: string; negated: boolean}, ip: string): boolean {
  const p = parseIPSloppy(ip)!
  const cidr = parseCIDRSloppy(spec.value.includes('/') ? spec.value : `${spec.value}/${p.family === 'ipv4' ? 32 : 128}`)
  const matches = cidr !== undefined && cidrContains(cidr, p)
  return spec.negated ? !matches : matches
}

/** tracePacket over restore text: nat PREROUTING-equivalent (KUBE-SERVICES), then the filter chains. */
export function tracePacket(text: string, t: PacketFlowTest, nodeIPs: readonly string[] = TEST_NODE_IPS): {output: string; masq: boolean} {
  const dump = parseDump(text)
  const localIPs = new Set(['127.0.0.1', '::1', ...nodeIPs])
  const outputs: string[] = []
  let masq = false
  const protocol = t.protocol ?? 'tcp'
  const matches = (raw: string, destIP: string): boolean => {
    const tk = tokenize(raw)
    const s = argAfter(tk, '-s')
    if (s && !addressMatches(s, t.sourceIP)) return false
    const st = argAfter(tk, '--src-type')
    if (st && (st.value === 'LOCAL') !== (localIPs.has(t.sourceIP) !== st.negated)) return false
    const p = argAfter(tk, '-p')
    if (p && p.value !== protocol) return false
    const d = argAfter(tk, '-d')
    if (d && !addressMatches(d, destIP)) return false
    const dt = argAfter(tk, '--dst-type')
    if (dt && (dt.value === 'LOCAL') !== (localIPs.has(destIP) !== dt.negated)) return false
    const dp = argAfter(tk, '--dport')
    if (dp && dp.value !== String(t.destPort)) return false
    if (tk.includes('--rcheck') || tk.includes('--mark') || tk.includes('--ctstate')) return false
    return true
  }
  const run = (table: string, chain: string, destIP: string): boolean => {
    const c = dump.find((x) => x.name === table)?.chains.find((x) => x.name === chain)
    if (!c) return false
    for (const r of c.rules) {
      const tk = tokenize(r.raw)
      const j = argAfter(tk, '-j')
      if (!j || !matches(r.raw, destIP)) continue
      switch (j.value) {
        case 'KUBE-MARK-MASQ':
          masq = true
          continue
        case 'ACCEPT':
        case 'REJECT':
        case 'DROP':
          outputs.push(j.value)
          return true
        case 'DNAT':
          outputs.push(argAfter(tk, '--to-destination')!.value)
          return true
        default:
          if (run(table, j.value, destIP) && !tk.includes('--probability')) return true
      }
    }
    return false
  }
  run('nat', 'KUBE-SERVICES', t.destIP)
  let destIP = t.destIP
  if (outputs.length > 0) destIP = outputs[0]!.replace(/^\[/, '').replace(/\]?:\d+$/, '')
  for (const chain of ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-NODEPORTS', 'KUBE-PROXY-FIREWALL']) run('filter', chain, destIP)
  return {output: outputs.join(', '), masq}
}

type ServiceSpec = Service['spec']
type SliceEndpoint = NonNullable<EndpointSlice['endpoints']>[number]
type SlicePort = NonNullable<EndpointSlice['ports']>[number]

/** makeTestService: a Service with the given spec (no defaults beyond what the test sets). */
export function makeService(namespace: string, name: string, spec: ServiceSpec, lbIngress?: NonNullable<NonNullable<Service['status']>['loadBalancer']>['ingress']): Service {
  return {kind: 'Service', metadata: {namespace, name}, spec, ...(lbIngress ? {status: {loadBalancer: {ingress: lbIngress}}} : {})}
}

/** makeTestEndpointSlice: slice `<name>-<n>` labelled for Service `name`. */
export function makeSlice(namespace: string, name: string, endpoints: SliceEndpoint[], ports: SlicePort[], addressType: 'IPv4' | 'IPv6' = 'IPv4', n = 1): EndpointSlice {
  return {kind: 'EndpointSlice', metadata: {namespace, name: `${name}-${n}`, labels: {'kubernetes.io/service-name': name}}, addressType, endpoints, ports}
}

/** Generates from in-memory objects. */
export function generate(services: Service[], slices: EndpointSlice[], options: ProxierOptions = fakeProxierOptions()): IptablesOutput {
  return generateIptablesRestore({services, endpointSlices: slices, options})
}

/** runPacketFlowTests: returns one line per mismatch (empty when all pass). */
export function packetFlowFailures(text: string, tests: readonly PacketFlowTest[], nodeIPs: readonly string[] = TEST_NODE_IPS): string[] {
  const out: string[] = []
  for (const t of tests) {
    const got = tracePacket(text, t, nodeIPs)
    if (got.output !== t.output || got.masq !== (t.masq ?? false)) {
      out.push(`${t.name}: expected ${JSON.stringify(t.output)} masq=${t.masq ?? false}, got ${JSON.stringify(got.output)} masq=${got.masq}`)
    }
  }
  return out
}
