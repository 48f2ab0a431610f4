// loadObjects: what `kubectl get -o json|yaml` prints, in its different shapes, and the errors for bad input.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {loadObjects, ObjectsParseError} from '../../../src/core/proxier/objects.js'
import {kubeProxyConfigText, kubeProxyVersionFromObjects} from '../../../src/core/proxier/render-input.js'

const svcJson = {apiVersion: 'v1', kind: 'Service', metadata: {name: 'a', namespace: 'n'}, spec: {clusterIP: '172.30.0.1', ports: [{port: 80}]}}

describe('loadObjects', () => {
  it('reads a kubectl List (JSON), a typed list without item kinds, a single object and multi-document YAML', () => {
    const list = JSON.stringify({apiVersion: 'v1', kind: 'List', items: [svcJson, {apiVersion: 'v1', kind: 'Node', metadata: {name: 'n1'}}]})
    const typed = JSON.stringify({apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSliceList', items: [{metadata: {name: 's', namespace: 'n', labels: {'kubernetes.io/service-name': 'a'}}, addressType: 'IPv4', endpoints: []}]})
    const yamlDocs = `---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: kube-proxy, namespace: kube-system}\ndata: {config.conf: "mode: iptables\\n"}\n---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: kube-proxy, namespace: kube-system}\nspec: {template: {spec: {containers: [{name: kube-proxy, image: "registry.k8s.io/kube-proxy:v1.30.2"}]}}}\n---\napiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: kubernetes}\nspec: {cidrs: [172.30.0.0/16]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\n`
    const out = loadObjects([
      {name: 'list.json', text: list},
      {name: 'slices.json', text: typed},
      {name: 'objs.yaml', text: yamlDocs},
      {name: 'one.json', text: JSON.stringify({...svcJson, metadata: {name: 'b', namespace: 'n'}})},
    ])
    assert.deepEqual(out.services.map((s) => s.metadata.name), ['a', 'b'])
    assert.equal(out.nodes.length, 1)
    assert.equal(out.endpointSlices[0]!.kind, 'EndpointSlice')
    assert.equal(out.configMaps.length, 1)
    assert.equal(out.daemonSets.length, 1)
    assert.equal(out.serviceCIDRs.length, 1)
    assert.deepEqual(out.other.map((o) => o.kind), ['Pod'])
    assert.equal(kubeProxyConfigText(out), 'mode: iptables\n')
    assert.deepEqual(kubeProxyVersionFromObjects(out), {major: 1, minor: 30, patch: 2})
  })

  it('names the file, the object and the field, with the line for YAML', () => {
    const bad = (name: string, text: string, re: RegExp, line?: number): void => {
      assert.throws(
        () => loadObjects([{name, text}]),
        (err: unknown) => err instanceof ObjectsParseError && err.source === name && re.test(err.message) && (line === undefined || err.line === line),
        `${name}: ${re}`,
      )
    }
    bad('a.yaml', 'kind: Service\nmetadata: {name: x, namespace: n}\nspec:\n  ports:\n  - port: eighty\n', /Service n\/x: spec\.ports\[0\]\.port: expected a port number, got "eighty"/, 1)
    bad('b.yaml', 'a: [1, 2\n', /not valid JSON or YAML/)
    bad('c.json', JSON.stringify({kind: 'Service', metadata: {name: 'x'}}), /Service x: spec: missing/)
    bad('d.yaml', '---\nkind: Node\nmetadata: {name: ok}\n---\nkind: EndpointSlice\nmetadata: {name: s}\naddressType: IPv5\n', /^EndpointSlice s: addressType: expected one of IPv4, IPv6, FQDN/, 5)
    bad('e.yaml', '- 1\n- 2\n', /expected a Kubernetes object, got a list/)
    bad('f.json', JSON.stringify({metadata: {name: 'x'}}), /object has no kind/)
    bad('g.yaml', 'kind: Service\nmetadata: {namespace: n}\nspec: {}\n', /metadata\.name: a Service needs a name/)
    bad('h.yaml', 'kind: EndpointSlice\nmetadata: {name: s}\naddressType: IPv4\nendpoints: [{addresses: [1.2.3.4], conditions: {ready: "yes"}}]\n', /endpoints\[0\]\.conditions\.ready: expected true or false/)
  })
})
