// expectedTraceRules reads the generated ruleset's model directly; tracing through it must give exactly what
// tracing through the same state printed as iptables-save text and parsed back gives (the old round trip).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {generateIptablesRestore} from '../../../../src/core/proxier/iptables/generate.js'
import {type TracePacket, expectedTraceRules, traceIptables} from '../../../../src/core/trace/iptables-trace.js'
import {findTable} from '../../../../src/core/iptables/save.js'
import {renderFixture} from './flow.js'

const CASES: Array<[string, 'ipv4' | 'ipv6']> = [
  ['clusterip', 'ipv4'],
  ['nodeport', 'ipv4'],
  ['loadbalancer', 'ipv4'],
  ['etp-local', 'ipv4'],
  ['itp-local', 'ipv4'],
  ['externalips', 'ipv4'],
  ['session-affinity', 'ipv4'],
  ['masquerade-all', 'ipv4'],
  ['no-endpoints', 'ipv4'],
  ['terminating', 'ipv4'],
  ['detect-local-bridge', 'ipv4'],
  ['detect-local-interface-prefix', 'ipv4'],
  ['localhost-nodeports-off', 'ipv4'],
  ['upstream-overall', 'ipv4'],
  ['ipv6', 'ipv6'],
]

type Proto = TracePacket['protocol']

/** Every frontend of every Service (cluster IPs, node ports, external IPs, load balancer IPs) from each origin. */
function packets(services: ReadonlyArray<{spec?: unknown; status?: unknown}>, family: 'ipv4' | 'ipv6'): TracePacket[] {
  const nodeIP = family === 'ipv4' ? '192.168.0.2' : '2001:db8::2'
  const pod = family === 'ipv4' ? '10.0.1.5' : 'fd00:10:0:1::5'
  const isFamily = (ip: string): boolean => ip.includes(':') === (family === 'ipv6')
  const out: TracePacket[] = []
  for (const svc of services) {
    const spec = (svc.spec ?? {}) as {clusterIPs?: string[]; clusterIP?: string; externalIPs?: string[]; ports?: Array<{port: number; nodePort?: number; protocol?: string}>}
    const status = (svc.status ?? {}) as {loadBalancer?: {ingress?: Array<{ip?: string}>}}
    const ips = [...(spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])), ...(spec.externalIPs ?? []), ...(status.loadBalancer?.ingress ?? []).flatMap((i) => (i.ip ? [i.ip] : []))].filter(
      (ip) => ip !== 'None' && isFamily(ip),
    )
    for (const p of spec.ports ?? []) {
      const protocol = (p.protocol ?? 'TCP').toLowerCase() as Proto
      const targets = ips.map((dst) => ({dst, dport: p.port}))
      if (p.nodePort) targets.push({dst: nodeIP, dport: p.nodePort})
      if (p.nodePort && family === 'ipv4') targets.push({dst: '127.0.0.1', dport: p.nodePort})
      for (const t of targets) {
        out.push({protocol, ...t, from: 'pod', src: pod})
        out.push({protocol, ...t, from: 'pod'})
        out.push({protocol, ...t, from: 'host'})
        out.push({protocol, ...t, from: 'external', src: family === 'ipv4' ? '203.0.113.7' : '2001:db8:ff::7'})
        out.push({protocol, ...t, from: 'external'})
      }
    }
  }
  return out
}

describe('expectedTraceRules', () => {
  for (const [kase, family] of CASES) {
    it(`${kase} (${family}): the same traces as the printed and re-parsed state`, () => {
      const fx = renderFixture(kase, family)
      const rules = expectedTraceRules(generateIptablesRestore(fx.render.input).ruleset)
      assert.equal(rules.family, fx.dump.family)
      const all = packets(fx.render.input.services, family)
      assert.ok(all.length > 0, 'no packets to trace')
      for (const packet of all) {
        assert.deepEqual(traceIptables(rules, packet, fx.node), traceIptables(fx.dump, packet, fx.node), JSON.stringify(packet))
      }
    })
  }

  it('gives every chain the policy, rule texts and line numbers of the parsed text', () => {
    const fx = renderFixture('upstream-overall')
    const rules = expectedTraceRules(generateIptablesRestore(fx.render.input).ruleset)
    for (const name of ['nat', 'filter'] as const) {
      const parsed = findTable(fx.dump, name)!
      for (const chain of parsed.chains) {
        const mine = rules.table(name)!.chain(chain.name)
        assert.ok(mine, `${name} ${chain.name}`)
        assert.equal(mine.policy, chain.policy, `${name} ${chain.name}`)
        assert.deepEqual([...mine.eachRule()].map((r) => [r.text, r.line]), [...chain.eachRule()].map((r) => [r.text, r.line]), `${name} ${chain.name}`)
      }
    }
  })
})
