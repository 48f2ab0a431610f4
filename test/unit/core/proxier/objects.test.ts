// loadObjects: what `kubectl get -o json|yaml` prints, in its different shapes; bad objects are reported and left out.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {formatObjectProblem, loadObjects, objectProblems, ObjectsParseError} from '../../../../src/core/proxier/objects.js'
import {kubeProxyConfigText, kubeProxyVersionFromObjects} from '../../../../src/core/proxier/render-input.js'

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

  it('leaves a malformed object out and reports it (file, line, object, field), keeping the rest', () => {
    const bad = (name: string, text: string, re: RegExp, line?: number): void => {
      const out = loadObjects([{name, text}])
      const skipped = out.problems!.filter((p) => p.effect === 'skipped')
      assert.equal(skipped.length, 1, `${name}: ${JSON.stringify(out.problems)}`)
      const p = skipped[0]!
      assert.equal(p.source, name)
      assert.match(formatObjectProblem(p), re, name)
      if (line !== undefined) assert.equal(p.line, line, `${name} line`)
    }
    bad('a.yaml', 'kind: Service\nmetadata: {name: x, namespace: n}\nspec:\n  ports:\n  - port: eighty\n', /^a\.yaml:1: Service n\/x: spec\.ports\[0\]\.port: expected a port number, got "eighty" \(left out\)$/, 1)
    bad('c.json', JSON.stringify({kind: 'Service', metadata: {name: 'x'}}), /Service x: spec: missing/)
    bad('d.yaml', '---\nkind: Node\nmetadata: {name: ok}\n---\nkind: EndpointSlice\nmetadata: {name: s}\naddressType: IPv5\n', /^d\.yaml:5: EndpointSlice s: addressType: expected one of IPv4, IPv6, FQDN/, 5)
    bad('e.yaml', '- 1\n- 2\n', /expected a Kubernetes object, got a list/)
    bad('f.json', JSON.stringify({metadata: {name: 'x'}}), /object x: object has no kind/)
    bad('g.yaml', 'kind: Service\nmetadata: {namespace: n}\nspec: {}\n', /Service n\/\(the document\): metadata\.name: a Service needs a name/)
    bad('h.yaml', 'kind: EndpointSlice\nmetadata: {name: s}\naddressType: IPv4\nendpoints: [{addresses: [1.2.3.4], conditions: {ready: "yes"}}]\n', /endpoints\[0\]\.conditions\.ready: expected true or false/)
    bad('i.yaml', 'kind: Service\nmetadata: {name: x, namespace: n}\nspec: {ports: [{port: 70000}]}\n', /spec\.ports\[0\]\.port: expected an integer in \[0, 65535\], got 70000/)

    // The good objects around a bad one are all read.
    const list = JSON.stringify({kind: 'List', items: [svcJson, {kind: 'Service', metadata: {name: 'broken', namespace: 'n'}, spec: {ports: [{port: 'x'}]}}, 42, {...svcJson, metadata: {name: 'c', namespace: 'n'}}]})
    const out = loadObjects([{name: 'list.json', text: list}])
    assert.deepEqual(out.services.map((s) => s.metadata.name), ['a', 'c'])
    assert.deepEqual(out.problems!.map((p) => [p.object, p.effect]), [['Service n/broken', 'skipped'], ['the document, items[2]', 'skipped']])
  })

  it('keeps a Service port 0 (kube-proxy does not validate it) and reports it', () => {
    const out = loadObjects([{name: 'z.yaml', text: 'kind: Service\nmetadata: {name: z, namespace: n}\nspec: {clusterIP: 172.30.0.9, ports: [{name: a, port: 0}, {name: b, port: 80}]}\n'}])
    assert.equal(out.services.length, 1)
    assert.deepEqual(out.problems, [
      {
        source: 'z.yaml',
        object: 'Service n/z',
        kind: 'Service',
        namespace: 'n',
        name: 'z',
        line: 1,
        field: 'spec.ports[0].port',
        detail: 'port 0: the API server rejects it, kube-proxy does not validate it and programs the Service port on port 0',
        effect: 'kept',
      },
    ])
  })

  it('still fails on a file that is not JSON or YAML, naming it', () => {
    assert.throws(() => loadObjects([{name: 'b.yaml', text: 'a: [1, 2\n'}]), (err: unknown) => err instanceof ObjectsParseError && err.source === 'b.yaml' && /not valid JSON or YAML/.test(err.message))
  })

  it('objectProblems checks a snapshot\'s objects the same way', () => {
    const problems = objectProblems({services: [svcJson as never, {kind: 'Service', metadata: {name: 'p0', namespace: 'n'}, spec: {ports: [{port: 0}]}} as never], endpointSlices: [], nodes: [{kind: 'Node', metadata: {name: 'n1'}, status: {addresses: [{type: 1}]}} as never], configMaps: []})
    assert.deepEqual(problems.map(formatObjectProblem), [
      'Service n/p0: spec.ports[0].port: port 0: the API server rejects it, kube-proxy does not validate it and programs the Service port on port 0 (kept, as kube-proxy programs it)',
      'Node n1: status.addresses[0].type: expected a string, got 1 (left out)',
    ])
  })
})
