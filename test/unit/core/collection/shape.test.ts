// Shape checks of the layout-aware kubelet artifacts (#17): the `kubelet-config` item prints a
// "# node-doctor-file: PATH" line (a YAML comment) before the file, which may be JSON (EKS) or YAML, or one
// "# node-doctor-absent: why" line on layouts without such a file; all are usable documents, and the depth bound
// still applies to the file after the header.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {artifactShapeProblem} from '../../../../src/core/collection/shape.js'

describe('kubelet-config artifact shape', () => {
  it('accepts the header before JSON and YAML, and the absent line', () => {
    assert.equal(artifactShapeProblem('kubelet-config', '# node-doctor-file: /etc/kubernetes/kubelet/config.json\n{\n    "kind": "KubeletConfiguration",\n    "clusterDNS": ["10.100.0.10"]\n}\n'), undefined)
    assert.equal(artifactShapeProblem('kubelet-config', '# node-doctor-file: /var/lib/kubelet/config.yaml\nkind: KubeletConfiguration\nclusterDNS:\n- 10.96.0.10\n'), undefined)
    assert.equal(artifactShapeProblem('kubelet-config', '# node-doctor-absent: the kubelet runs inside k3s, configured by /var/lib/rancher/k3s/agent/etc/kubelet.conf.d and kubelet-arg\n'), undefined)
  })
  it('still bounds the nesting of the file after the header', () => {
    const deep = `# node-doctor-file: /etc/kubernetes/kubelet/config.json\n${'['.repeat(500)}${']'.repeat(500)}\n`
    assert.match(artifactShapeProblem('kubelet-config', deep) ?? '', /nested more than/)
  })
})
