// Builds examples/bundle: two nodes with real iptables-save dumps; node-a has two planted faults (a deleted
// ClusterIP rule, a stale endpoint chain), node-b is clean. Needs root. Run: node --import tsx scripts/make-example-bundle.ts [OUT]
import {deleteRule, fixtureObjects, realDump, writeNodeBundle} from './lib/iptables-fixtures.js'

const out = process.argv[2] ?? 'examples/bundle'
const objects = fixtureObjects(['loadbalancer', 'session-affinity'])
const nodeA = realDump(objects, 'node-a', (ns) => {
  deleteRule(ns, 'nat', 'KUBE-SERVICES', 'default/lb:http cluster IP')
  ns.run(['iptables', '-t', 'nat', '-N', 'KUBE-SEP-OLDENDPOINT0000A'])
  ns.run(['iptables', '-t', 'nat', '-A', 'KUBE-SEP-OLDENDPOINT0000A', '-p', 'tcp', '-m', 'comment', '--comment', 'default/lb:http', '-m', 'tcp', '-j', 'DNAT', '--to-destination', '10.0.2.99:80'])
})
await writeNodeBundle(out, objects, {'node-a': nodeA, 'node-b': realDump(objects, 'node-b')})
console.log(`wrote ${out}`)
