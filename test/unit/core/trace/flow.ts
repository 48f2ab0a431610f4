// Packet-flow harness in the style of kube-proxy's runPacketFlowTests (pkg/proxy/iptables/proxier_test.go): each case
// is (name, from, to, expected outcomes with probabilities, masquerade), traced through the expected ruleset of a
// proxier fixture, rendered as iptables-save text and parsed back like a node's dump.
//
// Fixture conventions (test/fixtures/proxier/iptables/README.md): pods 10.0.0.0/8 (fd00:10::/48), node-a's podCIDR
// 10.0.1.0/24, service IPs 172.30.0.0/16, node-a 192.168.0.2 / 2001:db8::2 (local), node-b 192.168.0.3, external IPs
// 192.168.99.0/24, load balancers 1.2.3.4 / 5.6.7.8 (2600:1::/64), outside clients 203.0.113.0/24.
import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {parse as parseYaml} from 'yaml'
import {type IptablesDump, parseIptablesSave} from '../../../../src/core/iptables/save.js'
import {generateIptablesRestore} from '../../../../src/core/proxier/iptables/generate.js'
import {serializeSave} from '../../../../src/core/proxier/iptables/save.js'
import {loadObjects} from '../../../../src/core/proxier/objects.js'
import {buildRenderInput, kubeProxyConfigText, type RenderInput} from '../../../../src/core/proxier/render-input.js'
import {type TraceNode, type TracePacket, type TraceProtocol, type TraceResult, parseTraceDestination, traceIptables} from '../../../../src/core/trace/iptables-trace.js'
import {fixturePath} from '../../../support/golden.js'

export interface RenderedFixture {
  render: RenderInput
  /** The expected state as iptables-save text. */
  save: string
  dump: IptablesDump
  localAddresses: string[]
  /** What the command passes: the node's addresses and, for interface detectors, the pod interface. */
  node: TraceNode
}

/** Renders test/fixtures/proxier/iptables/<kase>/objects.yaml (+ nodes.yaml) for node-a, with its kube-proxy config. */
export function renderFixture(kase: string, family: 'ipv4' | 'ipv6' = 'ipv4', node = 'node-a'): RenderedFixture {
  const objects = loadObjects(
    [`proxier/iptables/${kase}/objects.yaml`, 'proxier/iptables/nodes.yaml'].map((p) => ({name: p, text: readFileSync(fixturePath(p), 'utf8')})),
  )
  const cfg = kubeProxyConfigText(objects)
  const render = buildRenderInput(objects, {
    nodeName: node,
    ...(cfg ? {kubeProxyConfig: parseYaml(cfg) as Record<string, unknown>} : {}),
    facts: {family},
  })
  const save = serializeSave(generateIptablesRestore(render.input).ruleset)
  const localAddresses = render.input.options.nodeInterfaceAddresses
  const d = render.input.options.localDetector
  const podInterface = d.mode === 'BridgeInterface' ? {bridge: d.interfaceName} : d.mode === 'InterfaceNamePrefix' ? {prefix: d.prefix} : undefined
  return {render, save, dump: parseIptablesSave(save), localAddresses, node: {localAddresses, ...(podInterface ? {podInterface} : {})}}
}

export interface FlowCase {
  name: string
  /** pod (a local pod, address from `src` or unknown), host, or external. */
  from: TracePacket['from']
  src?: string
  /** `IP:PORT[/PROTO]`. */
  to: string
  /** outcome (`ip:port`, DROP, REJECT, no-dnat) → probability. */
  expect: Record<string, number>
  /** Whether the branches to each endpoint are masqueraded (one value for all of them). */
  masq: boolean
}

export function packetFor(c: Pick<FlowCase, 'from' | 'src' | 'to'>): TracePacket {
  const d = parseTraceDestination(c.to)
  assert.ok(d, `bad destination ${c.to} in the test table`)
  return {protocol: d.protocol as TraceProtocol, dst: d.dst, dport: d.dport, from: c.from, ...(c.src ? {src: c.src} : {})}
}

function explain(r: TraceResult): string {
  return r.branches.map((b) => `${b.probability.toFixed(4)} ${b.outcome} masq=${b.masquerade} ${b.verdict}\n  ${b.path.map((s) => `${s.table} ${s.rule}`).join('\n  ')}`).join('\n')
}

/** Asserts every case: exactly the expected outcomes, each within 1e-6, and the masquerade decision on every branch. */
export function runPacketFlowTests(fx: RenderedFixture, cases: readonly FlowCase[]): void {
  for (const c of cases) {
    const r = traceIptables(fx.dump, packetFor(c), fx.node)
    const why = `${c.name}: ${c.from} → ${c.to}\n${explain(r)}`
    assert.deepEqual(Object.keys(r.endpoints).sort(), Object.keys(c.expect).sort(), why)
    for (const [k, p] of Object.entries(c.expect)) assert.ok(Math.abs((r.endpoints[k] ?? 0) - p) < 1e-6, `${why}\n${k}: ${r.endpoints[k]} ≠ ${p}`)
    const sum = r.branches.reduce((s, b) => s + b.probability, 0)
    assert.ok(Math.abs(sum - 1) < 1e-9, `${why}\nprobabilities sum to ${sum}`)
    for (const b of r.branches) {
      if (b.outcome === 'DROP' || b.outcome === 'REJECT') continue
      assert.equal(b.masquerade, c.masq, `${why}\nmasquerade of the branch to ${b.outcome}`)
    }
  }
}
