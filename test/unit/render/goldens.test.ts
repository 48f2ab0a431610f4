// Every output format × every sample report, colour off, compared with test/fixtures/render/.
// Width variants lock down wrapping; without a width (a pipe) nothing is wrapped.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {OUTPUT_FORMATS, type OutputFormat, renderReport} from '../../../src/render/index.js'
import {expectGolden} from '../../support/golden.js'
import {SAMPLE_CATALOG, SAMPLE_REPORTS, type SampleName} from '../../support/sample-reports.js'

const EXTENSION: Record<OutputFormat, string> = {
  table: 'table.txt',
  wide: 'wide.txt',
  json: 'json',
  yaml: 'yaml',
  junit: 'junit.xml',
  sarif: 'sarif.json',
  markdown: 'md',
}

const ANSI = /\u001b\[/

describe('render goldens', () => {
  for (const name of Object.keys(SAMPLE_REPORTS) as SampleName[]) {
    for (const format of OUTPUT_FORMATS) {
      it(`${name} as ${format}`, () => {
        const out = renderReport(SAMPLE_REPORTS[name](), format, {color: false, catalog: SAMPLE_CATALOG})
        assert.doesNotMatch(out, ANSI)
        assert.ok(out.endsWith('\n'), 'ends with a newline')
        assert.deepEqual(
          out.split('\n').filter((l) => /[ \t]$/.test(l)),
          [],
          'no trailing whitespace',
        )
        expectGolden(`render/${name}.${EXTENSION[format]}`, out)
      })
    }
  }

  const widths: Array<[SampleName, OutputFormat, number]> = [
    ['unhealthy', 'table', 100],
    ['unhealthy', 'wide', 160],
    ['partial', 'table', 80],
    ['partial', 'wide', 120],
  ]
  for (const [name, format, width] of widths) {
    it(`${name} as ${format} at ${width} columns stays within the width`, () => {
      const out = renderReport(SAMPLE_REPORTS[name](), format, {color: false, width, catalog: SAMPLE_CATALOG})
      const long = out.split('\n').filter((l) => [...l].length > width)
      assert.deepEqual(long, [])
      expectGolden(`render/${name}.${format}.w${width}.txt`, out)
    })
  }

  it('unhealthy as wide on a 100-column terminal: a block per finding, within the width', () => {
    const out = renderReport(SAMPLE_REPORTS.unhealthy(), 'wide', {color: false, width: 100, terminal: true, catalog: SAMPLE_CATALOG})
    // Every line fits except a single word or `command` longer than the width (none in the sample).
    assert.deepEqual(out.split('\n').filter((l) => [...l].length > 100), [])
    expectGolden('render/unhealthy.wide.terminal.w100.txt', out)
  })

  it('json and yaml are the Report itself', async () => {
    const {parse} = await import('yaml')
    const report = SAMPLE_REPORTS.unhealthy()
    assert.deepEqual(JSON.parse(renderReport(report, 'json', {color: false})), report)
    assert.deepEqual(parse(renderReport(report, 'yaml', {color: false})), report)
  })
})
