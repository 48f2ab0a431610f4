// The "breaks:" line core/impact adds under a finding in the table, wide and markdown views, on the report of the
// DNS fixture bundle whose node-a has no route to node-b's block (test/fixtures/checks/dns/coredns-unreachable).
import assert from 'node:assert/strict'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {analyzeSnapshots} from '../../../src/app/analyze.js'
import {renderMarkdown} from '../../../src/render/markdown.js'
import {renderReport} from '../../../src/render/index.js'
import {readBundle} from '../../../src/transports/bundle/bundle.js'
import {REPO_ROOT} from '../../support/golden.js'

const META = {generatedAt: '2026-12-02T12:00:00.000Z', tool: {name: 'node-doctor', version: 'test'}, command: 'check node-a'}
const BREAKS = 'breaks: svc kube-system/kube-dns (1 of 2 endpoints), shop/web (1 of 2); 2 pods'

describe('breaks line', async () => {
  const b = await readBundle(join(REPO_ROOT, 'test/fixtures/checks/dns/coredns-unreachable'))
  const report = analyzeSnapshots(b.cluster, b.nodes, {metadata: META})

  it('table and wide print it under the route finding, nowhere else', () => {
    for (const format of ['table', 'wide'] as const) {
      const lines = renderReport(report, format, {color: false}).split('\n')
      const at = lines.findIndex((l) => l.includes(BREAKS))
      assert.ok(at > 0, format)
      assert.match(lines.slice(at - 2, at).join('\n'), /RT-001/, format)
      assert.equal(lines.filter((l) => l.includes('breaks:')).length, 1, format)
    }
  })

  it("wide on a terminal (one block per finding) has a Breaks field in the route finding's block", () => {
    const out = renderReport(report, 'wide', {color: false, terminal: true, width: 200})
    const blocks = out.split(/\n(?=\s+✖ error|\s+▲ warning|\s+● info)/)
    const rt = blocks.find((b) => /\bRT-001\b/.test(b.split('\n')[0] ?? '') || /✖ error\s+RT-001/.test(b))
    assert.ok(rt, out)
    assert.match(rt, /Breaks:\s+svc kube-system\/kube-dns \(1 of 2 endpoints\), shop\/web \(1 of 2\); 2 pods/)
    assert.equal(out.split('\n').filter((l) => l.includes('Breaks:')).length, 1)
  })

  it('markdown gives it its own line', () => {
    assert.match(renderMarkdown(report), /\*\*Breaks:\*\* svc kube-system\/kube-dns \(1 of 2 endpoints\), shop\/web \(1 of 2\); 2 pods/)
  })
})
