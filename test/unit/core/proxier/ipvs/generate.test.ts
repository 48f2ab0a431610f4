// The IPVS proxier's real servers: exactly the endpoints kube-proxy's syncEndpoint chooses from CategorizeEndpoints
// (pkg/proxy/ipvs/proxier.go, pkg/proxy/topology.go), weight 1, and no entry for any endpoint it does not use.
// Objects: test/fixtures/proxier/ipvs/categorize/objects.yaml (node-a is the local node, node-b is remote).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {formatIpvsState, type IpvsState} from '../../../../../src/core/proxier/ipvs/generate.js'
import {expectGolden} from '../../../../support/golden.js'
import {renderIpvsCase} from './helpers.js'

function realServers(s: IpvsState, id: string): string[] {
  const vs = s.virtualServers.find((v) => v.id === id)
  assert.ok(vs, `virtual server ${id} is expected`)
  for (const rs of vs.realServers) assert.equal(rs.weight, 1, `${id} ${rs.address}: every real server kube-proxy adds has weight 1`)
  return vs.realServers.map((rs) => `${rs.address}:${rs.port}`)
}

describe('IPVS real servers (endpoint categorisation)', () => {
  const state = renderIpvsCase('categorize')
  const text = formatIpvsState(state)

  it('renders the golden ipvsadm -Sn, with no weight-0 real server', () => {
    expectGolden('proxier/ipvs/categorize/expected.txt', text)
    assert.doesNotMatch(text, / -w 0$/m)
  })

  it('Cluster policy: ready endpoints anywhere, never a not-ready or terminating one while a ready one exists', () => {
    assert.deepEqual(realServers(state, 'TCP 172.30.12.1:80'), ['10.0.1.1:8080', '10.0.2.1:8080'])
  })

  it('Local policy: the local ready endpoint only, on every NodePort address', () => {
    assert.deepEqual(state.nodePortAddresses, ['172.17.0.1', '192.168.0.2'])
    for (const a of state.nodePortAddresses) assert.deepEqual(realServers(state, `TCP ${a}:30121`), ['10.0.1.1:8080'])
  })

  it('Local policy without a ready local endpoint: the local serving+terminating one', () => {
    assert.deepEqual(realServers(state, 'TCP 192.168.0.2:30122'), ['10.0.1.3:8080'])
    assert.deepEqual(realServers(state, 'TCP 172.30.12.2:80'), ['10.0.2.4:8080'], 'the cluster IP keeps the ready remote one')
  })

  it('Local policy with no local endpoint at all: the cluster endpoints (kubernetes/kubernetes PR #97081)', () => {
    assert.deepEqual(realServers(state, 'TCP 192.168.0.2:30123'), ['10.0.2.5:8080'])
  })

  it('iTP Local with no usable local endpoint: a virtual server without real servers', () => {
    assert.deepEqual(realServers(state, 'TCP 172.30.12.4:80'), [])
  })

  it('no ready endpoint: serving+terminating ones only; nothing usable: no real server', () => {
    assert.deepEqual(realServers(state, 'TCP 172.30.12.5:80'), ['10.0.2.8:8080'])
    assert.deepEqual(realServers(state, 'TCP 172.30.12.6:80'), [])
  })
})
