// Markdown job summary: goldens over the sample reports, and escaping: node text can neither split a table
// cell (`|`) nor inject HTML, and fenced evidence cannot be closed by backticks inside it.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {applyBaseline} from '../../../src/core/baseline.js'
import {buildReport} from '../../../src/core/model/report.js'
import {md, renderMarkdown} from '../../../src/render/markdown.js'
import {expectGolden} from '../../support/golden.js'
import {SAMPLE_CATALOG, SAMPLE_METADATA, SAMPLE_REPORTS, type SampleName} from '../../support/sample-reports.js'

describe('markdown summary', () => {
  for (const name of Object.keys(SAMPLE_REPORTS) as SampleName[]) {
    it(`${name} golden`, () => {
      expectGolden(`render/${name}.md`, renderMarkdown(SAMPLE_REPORTS[name](), {catalog: SAMPLE_CATALOG}))
    })
  }

  it('shows suppressed findings and baseline warnings', () => {
    const {report} = applyBaseline(SAMPLE_REPORTS.unhealthy(), [{id: 'IPT-*', reason: 'tracked in NET-42 | until the upgrade'}], '2026-01-01')
    const out = renderMarkdown(report, {catalog: SAMPLE_CATALOG, warnings: ['baseline b.yaml:3: entry for X expired on 2025-01-01']})
    assert.match(out, /> ⚠️ baseline b\.yaml:3: entry for X expired on 2025-01-01/)
    assert.match(out, /<details><summary>\d+ suppressed by the baseline<\/summary>/)
    assert.match(out, /tracked in NET-42 &#124; until the upgrade \|$/m)
    expectGolden('render/unhealthy.baseline.md', out)
  })

  it('escapes pipes, HTML and Markdown in every piece of report text', () => {
    assert.equal(md('a|b <script>x</script> *y* `z` & [l](u)\nnext'), 'a&#124;b &lt;script&gt;x&lt;/script&gt; \\*y\\* \\`z\\` &amp; \\[l\\](u)<br>next')
    const report = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}],
      results: [{id: 'X-1', node: 'n1', area: 'iptables', status: 'failed'}],
      findings: [{
        id: 'X-1', node: 'n1', area: 'iptables', severity: 'error',
        message: 'rule <img src=x onerror=alert(1)> | broken',
        subject: {kind: 'rule', name: '-A KUBE-SVC | x'},
        evidence: ['```', 'plain <b>'],
        remedy: 'run `iptables -S | grep KUBE`',
      }],
      collectionErrors: [{node: 'n1', source: 'ssh', message: 'a|b'}],
    })
    const out = renderMarkdown(report)
    assert.doesNotMatch(out, /<img/, 'raw HTML only inside fenced code')
    assert.match(out, /rule &lt;img src=x onerror=alert\(1\)&gt; &#124; broken/)
    // Every table row has exactly as many cell separators as the header row.
    const rows = out.split('\n').filter((l) => l.startsWith('| '))
    const header = rows.find((l) => l.startsWith('| | Nodes'))!
    for (const r of rows.filter((l) => l.includes('ssh'))) assert.equal(r.split('|').length, header.split('|').length, r)
    // The evidence fence is longer than the backtick run inside it.
    assert.match(out, /\n````\n```\nplain <b>\n````\n/)
  })
})
