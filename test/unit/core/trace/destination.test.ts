// Destinations by name and by address on the Calico plan of calico-plan.ts (kube-dns 10.96.0.10, ports dns 53/udp
// and dns-tcp 53/tcp) and a NodePort Service added here (node-a 192.168.0.11).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import type {EndpointSlice, Service} from '../../../../src/core/model/k8s.js'
import {parseDestinationSpec, resolveServiceDestination, serviceAtDestination, serviceEndpoints} from '../../../../src/core/trace/destination.js'
import {service} from '../../../support/calico-dns-builders.js'
import {calicoTraceObjects} from './calico-plan.js'

const objects = calicoTraceObjects()
const web = service('shop', 'web', '10.96.0.20', {app: 'web'}, {type: 'NodePort', ports: [{name: 'http', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080}]})
const services = [...objects.filter((o): o is Service => o.kind === 'Service'), web]
const slices = objects.filter((o): o is EndpointSlice => o.kind === 'EndpointSlice')

function resolve(text: string) {
  const spec = parseDestinationSpec(text)
  assert.ok(spec?.kind === 'service', text)
  return resolveServiceDestination(spec, services, 'ipv4')
}

describe('destinations', () => {
  it('parses svc/NS/NAME[:PORT][/PROTO] and IP:PORT[/PROTO]; refuses the rest', () => {
    assert.deepEqual(parseDestinationSpec('svc/kube-system/kube-dns:53/udp'), {kind: 'service', namespace: 'kube-system', name: 'kube-dns', port: '53', protocol: 'udp'})
    assert.deepEqual(parseDestinationSpec('svc/shop/web'), {kind: 'service', namespace: 'shop', name: 'web'})
    assert.deepEqual(parseDestinationSpec('10.96.0.10:53/udp'), {kind: 'address', dst: '10.96.0.10', dport: 53, protocol: 'udp'})
    assert.equal(parseDestinationSpec('svc/kube-dns'), undefined)
    assert.equal(parseDestinationSpec('svc/a/b:53/icmp'), undefined)
  })

  it('resolves the port by name, by number and protocol, or the only port; names the choices when ambiguous', () => {
    assert.deepEqual(resolve('svc/kube-system/kube-dns:dns-tcp'), {
      destination: {dst: '10.96.0.10', dport: 53, protocol: 'tcp'},
      target: {namespace: 'kube-system', name: 'kube-dns', portName: 'dns-tcp', port: 53, protocol: 'tcp', via: 'cluster IP'},
    })
    assert.equal((resolve('svc/kube-system/kube-dns:53/udp') as {target: {portName: string}}).target.portName, 'dns')
    assert.equal((resolve('svc/shop/web') as {destination: {dport: number}}).destination.dport, 80)
    assert.match((resolve('svc/kube-system/kube-dns:53') as {error: string}).error, /several ports matching 53 \(dns 53\/udp, dns-tcp 53\/tcp\): name one, e\.g\. svc\/kube-system\/kube-dns:dns\/udp/)
    assert.match((resolve('svc/kube-system/kube-dns') as {error: string}).error, /several ports/)
    assert.match((resolve('svc/shop/nope') as {error: string}).error, /Service shop\/nope not found/)
    assert.match((resolve('svc/shop/web:443') as {error: string}).error, /has no port 443 \(ports: http 80\/tcp\)/)
  })

  it('finds the Service behind a cluster IP and behind a NodePort on the node', () => {
    assert.deepEqual(serviceAtDestination(services, {dst: '10.96.0.10', dport: 53, protocol: 'udp'}, ['192.168.0.11'])?.portName, 'dns')
    const np = serviceAtDestination(services, {dst: '192.168.0.11', dport: 30080, protocol: 'tcp'}, ['192.168.0.11'])
    assert.deepEqual([np?.name, np?.via], ['web', 'NodePort'])
    assert.equal(serviceAtDestination(services, {dst: '192.168.0.12', dport: 30080, protocol: 'tcp'}, ['192.168.0.11']), undefined)
  })

  it('lists the port\'s endpoints with readiness, node and pod from the EndpointSlice', () => {
    const eps = serviceEndpoints(slices, {namespace: 'kube-system', name: 'kube-dns', portName: 'dns', port: 53, protocol: 'udp', via: 'cluster IP'}, 'ipv4')
    assert.deepEqual(eps.map((e) => [e.key, e.ready, e.node, e.pod]), [
      ['10.244.1.5:53', true, 'node-a', 'kube-system/coredns-a'],
      ['10.244.2.10:53', true, 'node-b', 'kube-system/coredns-b'],
      ['10.244.2.11:53', false, 'node-b', 'kube-system/coredns-c'],
    ])
  })
})
