// Behaviour of the human views beyond the goldens: one-line healthy, ordering and grouping, colour, width, escapes.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {buildReport, type Finding} from '../../../src/core/model/report.js'
import {renderTable, renderWide, wrapLines, wrapWords} from '../../../src/render/table.js'
import {shortSubject} from '../../../src/render/options.js'
import {type FailOn, verdictOf} from '../../../src/render/table-style.js'
import {exitCodeForReport} from '../../../src/exit-codes.js'
import {beforeAfterReport} from '../../../src/app/repair/pod-restart-plan.js'
import {SAMPLE_CATALOG, SAMPLE_METADATA, healthyReport, partialReport, unhealthyReport} from '../../support/sample-reports.js'

const ANSI = /\u001b\[[0-9;]*m/g
const off = {color: false, catalog: SAMPLE_CATALOG}

function finding(partial: Partial<Finding> & Pick<Finding, 'id' | 'severity'>): Finding {
  return {node: 'n1', area: 'iptables', message: `${partial.id} message`, subject: {kind: 'chain', name: 'KUBE-SVC-X'}, evidence: [], remedy: 'r', ...partial}
}

describe('table view', () => {
  it('folds a finding identical on several nodes into one row naming them, and identical collection errors likewise', () => {
    const sshError = (node: string) => ({node, source: 'ssh', fatal: true, message: `ssh ${node}: ${'permission denied (publickey); '.repeat(12)}`})
    const hygiene = (node: string) =>
      finding({node, id: 'KUBELET-012', severity: 'warning', area: 'kubelet', subject: {kind: 'field', name: 'protectKernelDefaults'}, message: 'protectKernelDefaults is false'})
    const report = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}, {name: 'n2'}, {name: 'n3'}, {name: 'n4'}, {name: 'n5'}],
      findings: [hygiene('n1'), hygiene('n2'), hygiene('n3'), finding({node: 'n2', id: 'RT-001', severity: 'error', area: 'routes', message: 'no route to n3'})],
      collectionErrors: [sshError('n4'), sshError('n5')],
    })
    const out = renderTable(report, {...off, width: undefined})
    const lines = out.split('\n')
    const kubelet = lines.filter((l) => l.includes('KUBELET-012'))
    assert.equal(kubelet.length, 1, 'one row for the three nodes')
    assert.match(kubelet[0]!, /3 nodes: n1, n2, n3/)
    assert.match(out, /On several nodes/)
    // The node-specific error stays in its node's section, which counts the shared finding and points to it.
    assert.match(out, /^n2 .*1 error, 1 warning · 1 on several nodes \(above\)/m)
    assert.equal(lines.filter((l) => l.includes('RT-001')).length, 1)
    // n1 and n3 have nothing of their own: no empty section.
    assert.doesNotMatch(out, /^n1 /m)
    const ssh = lines.filter((l) => l.includes('permission denied'))
    assert.equal(ssh.length, 1, 'the long SSH error once')
    assert.match(ssh[0]!, /2 nodes: n4, n5/)
    assert.match(ssh[0]!, /ssh <node>:/, 'the node name is masked in the folded message')
    // -o wide keeps one row per node per finding, with its own evidence.
    assert.equal(renderWide(report, off).split('\n').filter((l) => l.includes('KUBELET-012')).length, 3)
  })

  it('says a healthy report in one line', () => {
    const out = renderTable(healthyReport(), off)
    assert.equal(out, '✔ HEALTHY  3 nodes: 3 healthy · no findings · checks: 24 passed, 3 skipped\n')
  })

  it('orders findings strictly by severity; within one, ungrouped first, then each group under its heading by name', () => {
    const report = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}],
      findings: [
        finding({id: 'A-1', severity: 'info'}),
        finding({id: 'A-2', severity: 'error', group: 'ns/mild:80'}),
        finding({id: 'A-3', severity: 'warning', group: 'ns/mild:80'}),
        finding({id: 'A-4', severity: 'error'}),
        finding({id: 'A-5', severity: 'warning', group: 'ns/zzz:53'}),
        finding({id: 'A-6', severity: 'error', group: 'ns/zzz:53'}),
        finding({id: 'A-7', severity: 'warning', group: 'ns/aaa:443'}),
      ],
    })
    const lines = renderTable(report, off).split('\n')
    const order = lines.map((l) => /(▸ \S+|A-\d)/.exec(l)?.[1]).filter((x) => x !== undefined)
    // No warning before an error, no info before a warning: a group with both severities gets its heading twice.
    assert.deepEqual(order, ['A-4', '▸ ns/mild:80', 'A-2', '▸ ns/zzz:53', 'A-6', '▸ ns/aaa:443', 'A-7', '▸ ns/mild:80', 'A-3', '▸ ns/zzz:53', 'A-5', 'A-1'])
    const severities = lines.map((l) => /(error|warning|info) +A-\d/.exec(l)?.[1]).filter((x) => x !== undefined)
    assert.deepEqual(severities, ['error', 'error', 'error', 'warning', 'warning', 'warning', 'info'])
    const row = lines.find((l) => l.includes('A-4'))!
    assert.match(row, /^ {2}✖ error +A-4 +iptables +chain\/KUBE-SVC-X +A-4 message$/)
    assert.match(lines.find((l) => l.includes('A-1'))!, /● info/)
    assert.match(lines.find((l) => l.includes('A-7'))!, /▲ warning/)
  })

  it('aligns the rows of every group in the same columns', () => {
    const lines = renderTable(unhealthyReport(), off).split('\n')
    const subjectColumn = (id: string) => lines.find((l) => l.includes(` ${id} `))!.search(/(chain|route|field)\//)
    assert.ok(subjectColumn('IPT-001') > 0)
    for (const id of ['IPT-002', 'IPT-003', 'RT-001', 'KUBELET-001']) assert.equal(subjectColumn(id), subjectColumn('IPT-001'), id)
  })

  it('has a "could not collect" section with fatal errors first and cluster-wide errors named', () => {
    const out = renderTable(partialReport(), off)
    const section = out.slice(out.indexOf('Could not collect'))
    const rows = section.split('\n').slice(2).filter((l) => l.trim() !== '' && !l.startsWith('-o wide'))
    assert.match(rows[0]!, /✖ +worker-1 +ssh +dial tcp .*\(nothing collected\)$/)
    assert.ok(rows.some((l) => /▲ +\(cluster\) +kube-proxy logs +pods "kube-proxy-x7k2p" is forbidden/.test(l)))
    assert.ok(rows.some((l) => /▲ +worker-2 +ipvsadm/.test(l)))
  })

  it('wide adds evidence (first lines, the rest counted), remedies and the per-check table with titles and reasons', () => {
    const out = renderWide(unhealthyReport(), off)
    assert.match(out, /SEVERITY +CHECK +AREA +SUBJECT +MESSAGE +EVIDENCE +REMEDY/)
    assert.match(out, /… 2 more/, 'IPT-002 has five evidence lines: three shown')
    assert.doesNotMatch(out, /EndpointSlice payments\/api-7dxkq/, 'the fifth line is not shown')
    assert.match(out, /Restart calico-node on the node so Felix reprograms its routes\./)
    assert.match(out, /− skipped +IPVS-001 +ipvs +Virtual server missing +not applicable: kube-proxy runs in iptables mode/)
    assert.match(out, /✔ passed +PROXY-001 +proxy-mode +kube-proxy mode differs from its configuration/)
    assert.doesNotMatch(renderTable(unhealthyReport(), off), /EVIDENCE|REMEDY|Checks/)
  })

  it('wide without a catalog shows results without a title column', () => {
    const out = renderWide(unhealthyReport(), {color: false})
    assert.match(out, /RESULT +CHECK +AREA +REASON/)
    assert.doesNotMatch(out, /TITLE/)
  })

  it('colours only when asked, and colour changes nothing but the escape codes', () => {
    for (const render of [renderTable, renderWide]) {
      for (const make of [healthyReport, unhealthyReport, partialReport]) {
        for (const width of [undefined, 90]) {
          const plain = render(make(), {...off, width})
          const coloured = render(make(), {...off, width, color: true})
          assert.doesNotMatch(plain, ANSI)
          assert.match(coloured, ANSI)
          assert.equal(coloured.replace(ANSI, ''), plain)
          assert.deepEqual(coloured.split('\n').filter((l) => /[ \t]$/.test(l)), [], 'no trailing whitespace with colour either')
        }
      }
    }
    assert.match(renderTable(unhealthyReport(), {...off, color: true}), /\u001b\[31m✖ error/)
  })

  it('never lets node output act on the terminal', () => {
    const report = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}],
      findings: [finding({id: 'A-1', severity: 'error', message: 'bad \u001b[2Jthing\tend', evidence: ['x\u0007y']})],
    })
    for (const out of [renderTable(report, off), renderWide(report, off)]) {
      assert.doesNotMatch(out, /[\u0000-\u0008\u000b-\u001f\u007f]/)
      assert.match(out, /bad \\x1b\[2Jthing end/)
    }
    assert.match(renderWide(report, off), /x\\x07y/)
  })

  it('reports an empty run plainly', () => {
    const out = renderTable(buildReport({metadata: SAMPLE_METADATA, nodes: []}), off)
    assert.equal(out, '✔ HEALTHY  0 nodes · no findings · checks: none run\n')
  })
})

describe('wrapLines', () => {
  it('wraps on spaces, keeps line breaks and breaks words longer than the width', () => {
    assert.deepEqual(wrapLines('aaa bbb ccc', 7), ['aaa bbb', 'ccc'])
    assert.deepEqual(wrapLines('one\ntwo three', 5), ['one', 'two', 'three'])
    assert.deepEqual(wrapLines('x KUBE-SVC-ABCDEFGH', 8), ['x KUBE-S', 'VC-ABCDE', 'FGH'])
    assert.deepEqual(wrapLines('', 5), [''])
    assert.deepEqual(wrapLines('no width', undefined), ['no width'])
  })

  it('never returns a line longer than the width and loses no characters', () => {
    const text = 'kubelet cgroupDriver is "cgroupfs" but containerd uses -A KUBE-SEP-OVEKJ3D4ZQ6NMR7X -s 10.244.2.17/32 ✖ ▲'
    for (let w = 1; w < 40; w++) {
      const lines = wrapLines(text, w)
      assert.ok(lines.every((l) => [...l].length <= w), `width ${w}`)
      assert.equal(lines.join('').replace(/ /g, ''), text.replace(/ /g, ''))
    }
  })
})

describe('headline and node states follow --fail-on (the exit code agrees)', () => {
  const report = (severities: Array<Finding['severity']>, collectionErrors: Array<{node: string; source: string; message: string}> = []) =>
    buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}, {name: 'n2'}],
      findings: severities.map((severity, i) => finding({id: `A-${i}`, severity, node: 'n1'})),
      collectionErrors,
    })
  const headline = (r: ReturnType<typeof report>, failOn?: FailOn) => renderTable(r, {...off, ...(failOn ? {failOn} : {})}).split('\n')[0]!

  const cases: Array<[string, Array<Finding['severity']>, FailOn | undefined, RegExp, number]> = [
    ['errors: red UNHEALTHY, exit 1', ['error', 'warning'], undefined, /^✖ UNHEALTHY {2}2 nodes: 1 healthy, 1 unhealthy · findings: 1 error, 1 warning$/, 1],
    ['warnings only: yellow WARNINGS, exit 0', ['warning'], 'error', /^▲ WARNINGS {2}2 nodes: 1 healthy, 1 with warnings · findings: 1 warning$/, 0],
    ['warnings with --fail-on warning: UNHEALTHY, exit 1', ['warning'], 'warning', /^✖ UNHEALTHY {2}2 nodes: 1 healthy, 1 unhealthy/, 1],
    ['info only: green HEALTHY, exit 0', ['info'], 'error', /^✔ HEALTHY {2}2 nodes: 2 healthy · findings: 1 info$/, 0],
    ['errors with --fail-on none: ERRORS, not failing, exit 0', ['error'], 'none', /^▲ ERRORS {2}2 nodes: 1 healthy, 1 with errors · findings: 1 error · not failing \(--fail-on none\)$/, 0],
  ]
  for (const [name, severities, failOn, expected, exit] of cases) {
    it(name, () => {
      const r = report(severities)
      assert.match(headline(r, failOn), expected)
      assert.equal(exitCodeForReport(r, failOn ?? 'error'), exit)
      assert.equal(verdictOf(r, failOn).exitCode, exit)
    })
  }

  it('a collection error with nothing failing: PARTIAL, exit 3', () => {
    const r = report(['warning'], [{node: 'n2', source: 'ssh', message: 'refused'}])
    assert.match(headline(r), /^▲ PARTIAL {2}/)
    assert.equal(exitCodeForReport(r, 'error'), 3)
  })

  it('colours the verdict: red UNHEALTHY, yellow WARNINGS, green HEALTHY', () => {
    const colored = (r: ReturnType<typeof report>) => renderTable(r, {...off, color: true}).split('\n')[0]!
    assert.match(colored(report(['error'])), /\u001b\[31m✖ UNHEALTHY/)
    assert.match(colored(report(['warning'])), /\u001b\[33m▲ WARNINGS/)
    assert.match(colored(report([])), /\u001b\[32m✔ HEALTHY/)
  })

  it('names a warnings-only node "warnings", not "unhealthy"', () => {
    assert.match(renderTable(report(['warning']), off), /^n1 {2}warnings · 1 warning$/m)
    assert.match(renderTable(report(['warning']), {...off, failOn: 'warning'}), /^n1 {2}unhealthy · 1 warning$/m)
  })
})

describe('a repair\'s before/after Report', () => {
  it('counts each node once: a 3-node cluster with two nodes repaired says 3 nodes, and what the repaired ones had', () => {
    const before = buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'a'}, {name: 'b'}, {name: 'c'}],
      findings: [finding({node: 'a', id: 'IPT-001', severity: 'error'}), finding({node: 'b', id: 'IPT-003', severity: 'error'}), finding({node: 'c', id: 'KUBELET-012', severity: 'warning'})],
    })
    const after = (node: string) => buildReport({metadata: SAMPLE_METADATA, nodes: [{name: node}]})
    const combined = beforeAfterReport(before, new Map([['a', after('a')], ['b', after('b')]]), SAMPLE_METADATA)
    assert.equal(combined.nodes.length, 5, 'the Report holds both states of a and b')
    const head = renderTable(combined, off).split('\n')[0]!
    assert.equal(head, '▲ WARNINGS  3 nodes: 2 healthy, 1 with warnings · findings: 1 warning · 2 repaired (before: 2 errors)')
  })
})

describe('short subjects', () => {
  it('shortens a long container path from the left at a /, keeping the key whole', () => {
    const s = shortSubject({kind: 'field', name: 'clientCAFile', in: '/etc/kubernetes/kubelet/config.d/10-custom.conf'})
    assert.equal(s, 'field/clientCAFile in …/config.d/10-custom.conf')
    assert.ok([...s].length <= 48)
  })

  it('drops the container when even its last part does not fit, and never cuts the key in the middle', () => {
    const s = shortSubject({kind: 'field', name: 'authentication.webhook.cacheTTLSeconds', in: '/var/lib/a-very-long-file-name-here.yaml'})
    assert.equal(s, 'field/authentication.webhook.cacheTTLSeconds')
  })

  it('a key that is a path is shortened from its left; any other long key keeps its start', () => {
    assert.equal(shortSubject({kind: 'file', name: '/etc/systemd/system/kubelet.service.d/10-kubeadm.conf'}), 'file/…/system/kubelet.service.d/10-kubeadm.conf')
    const rule = shortSubject({kind: 'rule', name: '-A KUBE-SERVICES -d 10.96.0.10/32 -p udp -m comment --comment x -j KUBE-SVC-TCOU7JCQXEZGVUNU'})
    assert.ok(rule.startsWith('rule/-A KUBE-SERVICES -d 10.96.0.10/32 ') && rule.endsWith('…') && [...rule].length === 48, rule)
  })
})

describe('-o wide on a terminal', () => {
  const remedy = 'Restart it: `kubectl node-doctor fix kube-proxy-mode --to nftables --max-unavailable 1 --yes` then check again.'
  const report = () =>
    buildReport({
      metadata: SAMPLE_METADATA,
      nodes: [{name: 'n1'}],
      findings: [finding({id: 'PROXY-005', severity: 'warning', remedy, evidence: ['line one', 'line two']})],
    })

  it('prints a block per finding (field: value) and never breaks a backquoted command', () => {
    const out = renderWide(report(), {...off, width: 60, terminal: true})
    assert.match(out, /^ {2}▲ warning {2}PROXY-005 {2}iptables$/m)
    assert.match(out, /^ {4}Subject: {3}chain\/KUBE-SVC-X$/m)
    assert.match(out, /^ {4}Evidence: {2}line one\n {15}line two$/m)
    const command = '`kubectl node-doctor fix kube-proxy-mode --to nftables --max-unavailable 1 --yes`'
    assert.ok(out.split('\n').some((l) => l.trim() === command), 'the command on a line of its own, whole')
    assert.doesNotMatch(out, /EVIDENCE|REMEDY/)
  })

  it('piped (not a terminal) it stays one record per line', () => {
    const lines = renderWide(report(), off).split('\n').filter((l) => l.includes('PROXY-005'))
    assert.equal(lines.length, 1)
    assert.ok(lines[0]!.includes(remedy))
  })

  it('wrapWords keeps words and backquoted spans whole', () => {
    assert.deepEqual(wrapWords('a bb `c d e` f', 4), ['a bb', '`c d e`', 'f'])
    assert.deepEqual(wrapWords('averyveryverylongword x', 5), ['averyveryverylongword', 'x'])
  })
})
