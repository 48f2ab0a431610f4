// The Calico route checks over live `ip` output: every route scenario of test/support/route-dns-cases.ts is set up
// in a fresh network namespace, captured, and must fire exactly its ids (BGP scenarios with live BIRD sessions). The healthy and missing-route scenarios
// are also read as `ip -j -d route show table all` and `route -n`, which users paste too.
import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {describe, it} from 'node:test'
import {ROUTES_CHECKS} from '../../../src/core/checks/routes/index.js'
import {runChecks} from '../../../src/core/checks/run.js'
import {birdUnavailable, captureBird} from '../../support/bird-netns.js'
import {nodeSnapshot} from '../../support/calico-dns-builders.js'
import {captureNode, setupCalicoNode} from '../../support/calico-netns.js'
import {createNetns, netnsUnavailable} from '../../support/netns.js'
import {ROUTE_CASES} from '../../support/route-dns-cases.js'

const skip = netnsUnavailable()
const noBird = birdUnavailable()

function firedOnNodeA(cluster: ReturnType<(typeof ROUTE_CASES)[number]['cluster']>, artifacts: Record<string, string>): string[] {
  const out = runChecks(ROUTES_CHECKS, cluster, [nodeSnapshot('node-a', artifacts)])
  assert.deepEqual(out.errors, [])
  return [...new Set(out.findings.map((f) => f.id))].sort()
}

describe('Calico route checks on live ip output', {skip}, () => {
  for (const c of ROUTE_CASES) {
    it(`${c.name} fires ${c.fires.join(', ') || 'nothing'}`, {skip: c.bgp && noBird}, async () => {
      const ns = createNetns('nd-rti')
      const pods = createNetns('nd-rtip')
      try {
        setupCalicoNode(ns, pods, c.setup!)
        const captured = {...captureNode(ns), ...(c.bgp ? await captureBird(c.bgp) : {})}
        assert.deepEqual(firedOnNodeA(c.cluster(), {...captured}), [...c.fires].sort())
        if (c.name === 'healthy-ipip' || c.name === 'missing-route') {
          const json = ns.exec(['ip', '-j', '-d', 'route', 'show', 'table', 'all'])
          assert.deepEqual(firedOnNodeA(c.cluster(), {...captured, 'ip-route': json}), [...c.fires].sort(), 'ip -j -d route')
          if (spawnSync('sh', ['-c', 'command -v route']).status === 0) {
            const routeN = ns.exec(['route', '-n'])
            assert.deepEqual(firedOnNodeA(c.cluster(), {...captured, 'ip-route': routeN}), [...c.fires].sort(), 'route -n')
          }
        }
      } finally {
        pods.destroy()
        ns.destroy()
      }
    })
  }
})
