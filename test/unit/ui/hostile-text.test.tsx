/** @jsxRuntime automatic */
// Data reaching the dashboard from the cluster and the nodes is made plain where it is drawn (src/ui/text.tsx): a
// Service name, a finding message or evidence holding escape sequences puts none of them into a frame.
import assert from 'node:assert/strict'
import {render} from 'ink-testing-library'
import {describe, it} from 'node:test'
import {FleetTable} from '../../../src/ui/fleet-table.js'
import {mergeReport} from '../../../src/ui/fleet-state.js'
import {fleetRows, nodeDetail, nodeItems} from '../../../src/ui/model.js'
import {NodeView} from '../../../src/ui/node-view.js'
import {plainText} from '../../../src/ui/text.js'
import {analysesOf, exampleBundle, METADATA} from './fixtures.js'

const HOSTILE = '\x1b[2J\x1b[H\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\x1b[31mred\x1b[0m\u009b6n\u202eevil'

function rawFrame(tree: Parameters<typeof render>[0]): string {
  const app = render(tree)
  const out = app.lastFrame() ?? ''
  app.unmount()
  return out
}

describe('dashboard: hostile text', () => {
  it('plainText keeps the words and drops every control sequence, C1 control and bidi override', () => {
    assert.equal(plainText(HOSTILE), 'clickredevil')
    assert.equal(plainText('tab\tand\nnewline'), 'tab\tand\nnewline')
  })

  it('no escape byte from a finding message, its evidence or a node name reaches a frame', async () => {
    const bundle = await exampleBundle()
    const analyses = analysesOf(bundle)
    const a = analyses.get('node-a')!
    const hostile = {...a, findings: a.findings.map((f) => ({...f, message: `${HOSTILE} ${f.message}`, evidence: [...f.evidence, HOSTILE]}))}
    const all = new Map(analyses).set('node-a', hostile)
    const report = mergeReport(METADATA, bundle.cluster, ['node-a', 'node-b'], all)
    const detail = nodeDetail(report, 'node-a', [])
    const frame = rawFrame(<NodeView detail={detail} items={nodeItems(detail)} cursor={0} height={30} width={120} color={false} />)
    assert.ok(frame.includes('click'), 'the words of the hostile text are still shown')
    assert.doesNotMatch(frame, /[\x1b\u0080-\u009f\u202a-\u202e]/)

    const rows = fleetRows(report, [{name: 'node-a', state: 'done'}, {name: 'node-b', state: 'done'}], new Map([['node-a', HOSTILE]]))
    const table = rawFrame(<FleetTable rows={rows} cursor={0} height={6} width={120} color={false} />)
    assert.doesNotMatch(table, /[\x1b\u0080-\u009f\u202a-\u202e]/)
  })
})
