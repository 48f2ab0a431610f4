// JUnit: well-formed XML (checked by a small parser below, no XML dependency), consistent totals, escaping.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {buildReport} from '../../../src/core/model/report.js'
import {renderJunit} from '../../../src/render/junit.js'
import {SAMPLE_CATALOG, SAMPLE_METADATA, healthyReport, partialReport, unhealthyReport} from '../../support/sample-reports.js'

interface XmlElement {
  name: string
  attrs: Record<string, string>
  children: XmlElement[]
  text: string
}

const FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const NAME = '[A-Za-z_:][-A-Za-z0-9_:.]*'
const ENTITY = /&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g

function decode(s: string, where: string): string {
  if (/&(?!(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)/.test(s)) throw new Error(`bare & in ${where}`)
  return s.replace(ENTITY, (_, e: string) => {
    const named: Record<string, string> = {amp: '&', lt: '<', gt: '>', quot: '"', apos: "'"}
    if (named[e]) return named[e]
    return String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10))
  })
}

/** A strict-enough XML 1.0 reader for what the renderer emits: elements, attributes, text; throws when malformed. */
function parseXml(doc: string): XmlElement {
  if (FORBIDDEN.test(doc)) throw new Error('character not allowed in XML 1.0')
  let rest = doc.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '')
  if (rest === doc) throw new Error('missing XML declaration')
  const stack: XmlElement[] = []
  let root: XmlElement | undefined
  const tag = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}\\s*=\\s*"[^"<]*")*)\\s*(/?)>`)
  while (rest.length > 0) {
    const lt = rest.indexOf('<')
    const chunk = lt === -1 ? rest : rest.slice(0, lt)
    if (chunk.includes('>')) throw new Error('bare > in text')
    if (stack.length === 0 && chunk.trim() !== '') throw new Error(`text outside the root: ${chunk}`)
    if (stack.length > 0) stack.at(-1)!.text += decode(chunk, 'text')
    if (lt === -1) break
    rest = rest.slice(lt)
    const m = tag.exec(rest)
    if (!m) throw new Error(`malformed tag at: ${rest.slice(0, 40)}`)
    rest = rest.slice(m[0].length)
    const [, close, name, rawAttrs, selfClose] = m
    if (close) {
      if (rawAttrs || selfClose) throw new Error('malformed end tag')
      const open = stack.pop()
      if (open?.name !== name) throw new Error(`</${name}> closes <${open?.name}>`)
      continue
    }
    const attrs: Record<string, string> = {}
    for (const a of rawAttrs!.matchAll(new RegExp(`(${NAME})\\s*=\\s*"([^"<]*)"`, 'g'))) {
      if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]}`)
      attrs[a[1]!] = decode(a[2]!, `attribute ${a[1]}`)
    }
    const el: XmlElement = {name: name!, attrs, children: [], text: ''}
    if (stack.length > 0) stack.at(-1)!.children.push(el)
    else if (root) throw new Error('second root element')
    else root = el
    if (!selfClose) stack.push(el)
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.at(-1)!.name}>`)
  if (!root) throw new Error('no root element')
  return root
}

function all(el: XmlElement, name: string): XmlElement[] {
  return [...(el.name === name ? [el] : []), ...el.children.flatMap((c) => all(c, name))]
}

describe('junit', () => {
  it('the checker itself rejects malformed documents', () => {
    const decl = '<?xml version="1.0" encoding="UTF-8"?>\n'
    for (const bad of ['<a><b></a></b>', '<a x="1" x="2"/>', '<a>&nbsp;</a>', '<a>x & y</a>', '<a/><b/>', '<a>\u0001</a>', '<a']) {
      assert.throws(() => parseXml(decl + bad), bad)
    }
    assert.equal(parseXml(decl + '<a x="&lt;&#10;"><b>t&amp;</b></a>').children[0]!.text, 't&')
  })

  for (const [name, make] of [['healthy', healthyReport], ['unhealthy', unhealthyReport], ['partial', partialReport]] as const) {
    it(`${name}: one suite per node, one case per check per node, totals that add up`, () => {
      const report = make()
      const root = parseXml(renderJunit(report, {catalog: SAMPLE_CATALOG}))
      assert.equal(root.name, 'testsuites')
      const suites = all(root, 'testsuite')
      const nodeless = report.collectionErrors.some((e) => e.node === undefined) ? ['(cluster)'] : []
      assert.deepEqual(suites.map((s) => s.attrs.name), [...report.nodes.map((n) => n.name), ...nodeless])
      const sum = {tests: 0, failures: 0, errors: 0, skipped: 0}
      for (const s of suites) {
        const cases = all(s, 'testcase')
        const counts = {
          tests: cases.length,
          failures: cases.filter((c) => all(c, 'failure').length > 0).length,
          errors: cases.filter((c) => all(c, 'error').length > 0).length,
          skipped: cases.filter((c) => all(c, 'skipped').length > 0).length,
        }
        for (const k of Object.keys(sum) as Array<keyof typeof sum>) {
          assert.equal(Number(s.attrs[k]), counts[k], `${s.attrs.name} ${k}`)
          sum[k] += counts[k]
        }
      }
      for (const k of Object.keys(sum) as Array<keyof typeof sum>) assert.equal(Number(root.attrs[k]), sum[k], `testsuites ${k}`)
      const checkCases = all(root, 'testcase').filter((c) => c.attrs.name !== 'collection')
      assert.equal(checkCases.length, report.results.length)
      assert.equal(sum.failures, report.summary.checks.failed)
      assert.equal(sum.skipped, report.summary.checks.skipped)
    })
  }

  it('names cases `<id> <title>` with classname node-doctor.<area>, and failures carry the findings', () => {
    const root = parseXml(renderJunit(unhealthyReport(), {catalog: SAMPLE_CATALOG}))
    const worker1 = all(root, 'testsuite').find((s) => s.attrs.name === 'worker-1')!
    const ipt2 = all(worker1, 'testcase').find((c) => c.attrs.name === 'IPT-002 Endpoint chain for a removed endpoint')!
    assert.equal(ipt2.attrs.classname, 'node-doctor.iptables')
    const failure = all(ipt2, 'failure')[0]!
    assert.equal(failure.attrs.type, 'warning')
    assert.match(failure.attrs.message!, /^KUBE-SEP chain still sends payments\/api:grpc traffic/)
    assert.match(failure.text, /chain\/KUBE-SEP-OVEKJ3D4ZQ6NMR7X in nat/)
    assert.match(failure.text, /group: payments\/api:grpc/)
    assert.match(failure.text, /-A KUBE-SVC-TCOU7JCQXEZGVUNU -m comment --comment "payments\/api:grpc -> 10.244.2.17:8443"/)
    const ipvs = all(worker1, 'testcase').find((c) => c.attrs.name?.startsWith('IPVS-001'))!
    assert.equal(all(ipvs, 'skipped')[0]!.attrs.message, 'not applicable: kube-proxy runs in iptables mode')
    assert.equal(worker1.attrs.time, '1.873')
  })

  it('turns collection errors into a `collection` case with an <error>, per node and for the cluster', () => {
    const root = parseXml(renderJunit(partialReport(), {catalog: SAMPLE_CATALOG}))
    const errorOf = (suite: string) => all(all(root, 'testsuite').find((s) => s.attrs.name === suite)!, 'error')[0]!
    assert.equal(errorOf('worker-1').attrs.type, 'fatal')
    assert.match(errorOf('worker-1').text, /\[fatal\] ssh: dial tcp 192\.168\.0\.11:22/)
    assert.equal(errorOf('worker-2').attrs.type, 'partial')
    assert.match(errorOf('(cluster)').attrs.message!, /^kube-proxy logs: pods "kube-proxy-x7k2p" is forbidden/)
  })

  it('uses the bare id without a catalog, and gives findings without a result their own failed case', () => {
    const report = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}],
      findings: [{id: 'X-9', node: 'n1', area: 'dns', severity: 'error', message: 'm', subject: {kind: 'k', name: 'n'}, evidence: [], remedy: 'r'}],
    })
    const root = parseXml(renderJunit(report, {}))
    const cases = all(root, 'testcase')
    assert.deepEqual(cases.map((c) => [c.attrs.classname, c.attrs.name]), [['node-doctor.dns', 'X-9']])
    assert.equal(all(cases[0]!, 'failure').length, 1)
    assert.equal(root.attrs.failures, '1')
  })

  it('escapes markup and quotes, keeps whitespace in attributes, and replaces characters XML 1.0 forbids', () => {
    const nasty = 'a<b>&"c\' \u0000\u001b[31m\u000b\ufffe\ud800 tab\there\nline2\r'
    const report = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}],
      results: [{id: 'X-1', node: 'n1', area: 'dns', status: 'failed'}, {id: 'X-2', node: 'n1', area: 'dns', status: 'skipped', reason: nasty}],
      findings: [{id: 'X-1', node: 'n1', area: 'dns', severity: 'error', message: nasty, subject: {kind: 'k', name: ']]>'}, evidence: [nasty], remedy: 'r'}],
      collectionErrors: [{node: 'n1', source: '<src>', message: nasty}],
    })
    const xml = renderJunit(report, {})
    const root = parseXml(xml)
    const visible = 'a<b>&"c\' \\x00\\x1b[31m\\x0b\\ufffe\\ud800 tab\there\nline2\r'
    assert.equal(all(root, 'skipped')[0]!.attrs.message, visible)
    assert.equal(all(root, 'failure')[0]!.attrs.message, visible)
    assert.ok(all(root, 'failure')[0]!.text.includes(`    ${visible}`), 'evidence survives in the body')
    assert.ok(all(root, 'failure')[0]!.text.includes('k/]]>'))
    assert.equal(all(root, 'error')[0]!.attrs.type, 'partial')
    assert.ok(all(root, 'error')[0]!.text.startsWith('[partial] <src>: a<b>'))
    assert.doesNotMatch(xml, /\]\]>/)
  })
})
