// PROXY-010 on layouts with other KUBE-* owners and their own iptables (#17): kube-router's network-policy chains
// (KUBE-ROUTER-*, KUBE-NWPLCY-*, KUBE-POD-FW-*, which k3s embeds) are not kube-proxy's, and on k3s the backend is the
// one of k3s's bundled iptables (the `k3s-iptables-version` item), which its embedded kube-proxy runs.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {isForeignKubeChain} from '../../../../../src/core/checks/proxy-mode/backends.js'
import {PROXY_MODE_CHECKS} from '../../../../../src/core/checks/proxy-mode/index.js'
import {runChecks} from '../../../../../src/core/checks/run.js'
import {proxyCluster, proxyNode} from '../../../../support/proxy-mode-builders.js'

const KUBE_PROXY = '*nat\n:PREROUTING ACCEPT [0:0]\n:KUBE-SERVICES - [0:0]\n:KUBE-SVC-TCOU7JCQXEZGVUNU - [0:0]\n-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES\nCOMMIT\n'
const KUBE_ROUTER = '*filter\n:INPUT ACCEPT [0:0]\n:KUBE-ROUTER-INPUT - [0:0]\n:KUBE-NWPLCY-DEFAULT - [0:0]\n:KUBE-POD-FW-3K7NLGKO6MRC4ZLQ - [0:0]\n-A INPUT -j KUBE-ROUTER-INPUT\nCOMMIT\n'

function proxy010(artifacts: Record<string, string>) {
  const out = runChecks(PROXY_MODE_CHECKS.filter((c) => c.spec.id === 'PROXY-010'), proxyCluster(), [proxyNode(artifacts)])
  assert.deepEqual(out.errors, [])
  return {result: out.results[0]!, findings: out.findings}
}

describe('PROXY-010 and chains that are not kube-proxy\'s', () => {
  it('knows kube-router\'s chain names', () => {
    assert.deepEqual(['KUBE-ROUTER-FORWARD', 'KUBE-NWPLCY-DEFAULT', 'KUBE-POD-FW-3K7NLGKO6MRC4ZLQ', 'KUBE-SERVICES', 'KUBE-SVC-X', 'KUBE-FIREWALL'].map(isForeignKubeChain), [true, true, true, false, false, false])
  })

  it('passes when the other backend holds only kube-router\'s chains', () => {
    assert.equal(proxy010({'iptables-nft-save': KUBE_PROXY, 'iptables-legacy-save': KUBE_ROUTER, 'iptables-version': 'iptables v1.8.9 (nf_tables)\n'}).result.status, 'passed')
  })

  it("on k3s, the host's backend is the one k3s's own iptables uses, and the remedy leaves kube-router's chains alone", () => {
    // The host's iptables says nf_tables; k3s's bundled one (what its kube-proxy runs) says legacy: nft is the stale copy.
    const r = proxy010({'iptables-nft-save': KUBE_PROXY, 'iptables-legacy-save': KUBE_PROXY + KUBE_ROUTER, 'iptables-version': 'iptables v1.8.9 (nf_tables)\n', 'k3s-iptables-version': 'iptables v1.8.11 (legacy)\n'})
    assert.equal(r.result.status, 'failed')
    const f = r.findings[0]!
    assert.match(f.message, /2 in iptables-legacy and 2 in iptables-nft; the host uses iptables-legacy, so the iptables-nft copy is stale/)
    assert.ok(f.evidence.includes("iptables --version: iptables v1.8.11 (legacy) (k3s's bundled iptables)"), f.evidence.join('\n'))
    assert.match(f.remedy ?? '', /ROUTER-\.\*\|NWPLCY-\.\*\|POD-FW-\.\*/)
  })
})
