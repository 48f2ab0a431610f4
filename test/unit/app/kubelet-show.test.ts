// `kubelet show NODE` reads the node's inputs through the collection plan (#17): the kubelet config artifact names
// the file it read ("# node-doctor-file: PATH", JSON on EKS), and an input the layout does not have ("# node-doctor-
// absent: why", e.g. no kubelet unit on k3s) is left out with a note instead of failing as "cannot tell what it is".
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {showKubelet} from '../../../src/app/kubelet-show.js'

describe('showKubelet over live node artifacts', () => {
  it('names the config file by the path the node read, and notes inputs the layout does not have', () => {
    const r = showKubelet([
      {name: 'node-1:kubelet-config', text: '# node-doctor-file: /etc/kubernetes/kubelet/config.json\n{\n    "apiVersion": "kubelet.config.k8s.io/v1beta1",\n    "kind": "KubeletConfiguration",\n    "clusterDNS": ["10.100.0.10"]\n}\n'},
      {name: 'node-1:kubelet-unit', text: '# node-doctor-absent: the kubelet runs inside k3s (its unit is k3s.service or k3s-agent.service)\n'},
    ], {version: '1.33'})
    assert.deepEqual(r.inputs.map((i) => [i.file, i.kind]), [['/etc/kubernetes/kubelet/config.json', 'kubelet-config']])
    assert.ok(r.issues.some((i) => i.code === 'not-on-this-layout' && /node-1:kubelet-unit: the kubelet runs inside k3s/.test(i.message)), JSON.stringify(r.issues))
    const dns = r.settings.find((s) => s.path === 'clusterDNS')
    assert.ok(dns, JSON.stringify(r.settings.map((s) => s.path)))
    assert.match(JSON.stringify(dns), /"location":"\/etc\/kubernetes\/kubelet\/config\.json:4"/) // the line in the file, not in the artifact
  })
})
