// NODE-005 (strict rp_filter on asymmetric paths) and NODE-007 (overlay MTU) on the route checks' Calico harness
// nodes (test/support/calico-netns.ts, healthy-ipip and healthy-vxlan of route-dns-cases.ts), with the kernel put in
// strict reverse-path mode and the sysctls collected by the plan's own command: a clean Calico node in strict mode
// must pass both (not skip them), and the planted tunl0 MTU gives exactly NODE-007.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {NODE_CHECKS} from '../../../src/core/checks/node/index.js'
import {runChecks} from '../../../src/core/checks/run.js'
import {COLLECTION_PLAN} from '../../../src/core/collection/plan.js'
import {nodeSnapshot} from '../../support/calico-dns-builders.js'
import {captureNode, setupCalicoNode} from '../../support/calico-netns.js'
import {createNetns, netnsUnavailable} from '../../support/netns.js'
import {ROUTE_CASES} from '../../support/route-dns-cases.js'

const skip = netnsUnavailable()
const SYSCTLS = COLLECTION_PLAN.find((p) => p.id === 'sysctls')!.argv
const CHECKS = NODE_CHECKS.filter((c) => c.spec.id === 'NODE-005' || c.spec.id === 'NODE-007')

function run(caseName: string, plant: (exec: (argv: string[]) => string) => void = () => undefined) {
  const c = ROUTE_CASES.find((x) => x.name === caseName)!
  const ns = createNetns('nd-rpm')
  const pods = createNetns('nd-rpmp')
  try {
    setupCalicoNode(ns, pods, c.setup!)
    ns.exec(['sysctl', '-q', '-w', 'net.ipv4.conf.all.rp_filter=1'])
    plant((argv) => ns.exec(argv))
    // sysctl exits 1 for the keys this namespace lacks (net.bridge.*, net.ipv4.vs.*) and still prints the others.
    const sysctls = ns.run(SYSCTLS).stdout
    const node = nodeSnapshot('node-a', {...captureNode(ns), sysctls})
    return {sysctls, out: runChecks(CHECKS, c.cluster(), [node])}
  } finally {
    pods.destroy()
    ns.destroy()
  }
}

describe('rp_filter and MTU checks on live Calico namespaces', {skip}, () => {
  for (const name of ['healthy-ipip', 'healthy-vxlan']) {
    it(`${name} in strict mode: NODE-005 and NODE-007 pass`, () => {
      const {sysctls, out} = run(name)
      assert.match(sysctls, /^\/proc\/sys\/net\/ipv4\/conf\/all\/rp_filter:1$/m, 'the plan command read every interface')
      assert.match(sysctls, /^\/proc\/sys\/net\/ipv4\/conf\/eth0\/rp_filter:\d$/m)
      assert.deepEqual(out.errors, [])
      assert.deepEqual(
        out.results.map((r) => [r.id, r.status]),
        [
          ['NODE-005', 'passed'],
          ['NODE-007', 'passed'],
        ],
        JSON.stringify(out.results),
      )
    })
  }

  it('healthy-ipip with tunl0 at 1500 on a 1500 eth0: exactly NODE-007 on tunl0', () => {
    const {out} = run('healthy-ipip', (exec) => exec(['ip', 'link', 'set', 'tunl0', 'mtu', '1500']))
    assert.deepEqual(
      out.findings.map((f) => [f.id, f.subject.name]),
      [['NODE-007', 'tunl0']],
    )
  })
})
