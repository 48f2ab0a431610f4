// The --output switch: every format reachable, options passed through, colour only in the human views.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {OUTPUT_FORMATS, isOutputFormat, renderReport} from '../../../src/render/index.js'
import {renderMarkdown} from '../../../src/render/markdown.js'
import {renderTable} from '../../../src/render/table.js'
import {SAMPLE_CATALOG, unhealthyReport} from '../../support/sample-reports.js'

describe('renderReport', () => {
  it('knows exactly the output formats it lists', () => {
    for (const f of OUTPUT_FORMATS) assert.ok(isOutputFormat(f), f)
    for (const f of ['xml', 'TABLE', '', 'json ']) assert.ok(!isOutputFormat(f), f)
  })

  it('passes width and catalog through to the renderer', () => {
    const opts = {color: false, width: 90, catalog: SAMPLE_CATALOG}
    assert.equal(renderReport(unhealthyReport(), 'table', opts), renderTable(unhealthyReport(), opts))
    assert.match(renderReport(unhealthyReport(), 'junit', opts), /name="IPT-001 Service chain missing"/)
    assert.match(renderReport(unhealthyReport(), 'sarif', opts), /"shortDescription": \{\s+"text": "Service chain missing"/)
  })

  it('renders markdown with the warnings it is given, as preflight --markdown writes it', () => {
    const warnings = ['baseline b.yaml:3: entry for X expired on 2025-01-01']
    const out = renderReport(unhealthyReport(), 'markdown', {color: true, catalog: SAMPLE_CATALOG, warnings})
    assert.equal(out, renderMarkdown(unhealthyReport(), {catalog: SAMPLE_CATALOG, warnings}))
    assert.match(out, /entry for X expired/)
  })

  it('colours only table and wide, whatever the option says', () => {
    for (const f of OUTPUT_FORMATS) {
      const out = renderReport(unhealthyReport(), f, {color: true, catalog: SAMPLE_CATALOG})
      if (f === 'table' || f === 'wide') assert.match(out, /\u001b\[/, f)
      else assert.doesNotMatch(out, /\u001b\[/, f)
    }
  })
})
