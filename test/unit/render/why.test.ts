// `why` output: the verdict of `why svc/shop/web --from node-a` and `why dns --from node-a` over the DNS fixture
// bundles (test/fixtures/checks/dns), as goldens (UPDATE_GOLDEN=1 rewrites them), colour off.
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {parse} from 'yaml'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import {type WhyTarget, whyVerdict} from '../../../src/core/why/verdict.js'
import {renderWhy} from '../../../src/render/why.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {expectGolden, REPO_ROOT} from '../../support/golden.js'

const META = {generatedAt: '2026-12-02T12:00:00.000Z', tool: {name: 'node-doctor', version: 'test'}, command: 'why'}

async function verdict(bundle: string, target: WhyTarget) {
  const b = await readBundle(join(REPO_ROOT, 'test/fixtures/checks/dns', bundle))
  return whyVerdict(analyzeSnapshots(b.cluster, b.nodes, {metadata: META}), b.cluster, target, 'node-a')
}

describe('renderWhy', () => {
  it('a partly broken Service: headline, the endpoint lost, the cause with evidence, what is not judged, the next command', async () => {
    const v = await verdict('coredns-unreachable', {kind: 'service', service: 'shop/web'})
    expectGolden('render/why/svc-partly-broken.txt', renderWhy(v, 'table', {color: false}))
  })

  it('dns that works, with what was checked', async () => {
    const v = await verdict('healthy-routed', {kind: 'dns'})
    expectGolden('render/why/dns-works.txt', renderWhy(v, 'table', {color: false}))
  })

  it('json and yaml carry the verdict in a versioned envelope', async () => {
    const v = await verdict('coredns-unreachable', {kind: 'dns'})
    const json = JSON.parse(renderWhy(v, 'json', {color: false}))
    assert.equal(json.kind, 'WhyVerdict')
    assert.equal(json.verdict, 'partly-broken')
    assert.deepEqual(json.endpoints.lost, [{ip: '10.244.2.2', pod: 'kube-system/coredns-b', node: 'node-b', by: ['RT-001']}])
    assert.deepEqual(parse(renderWhy(v, 'yaml', {color: false})), json)
  })

  it('colours only when asked', async () => {
    const v = await verdict('coredns-unreachable', {kind: 'dns'})
    assert.doesNotMatch(renderWhy(v, 'table', {color: false}), /\x1b\[/)
    assert.match(renderWhy(v, 'table', {color: true}), /\x1b\[33mpartly broken/)
  })
})
