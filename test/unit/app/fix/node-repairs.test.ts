// fix kubelet's gate on what else its restart applies: --yes alone refuses pending differences, naming each; no
// terminal refuses naming both flags; on a terminal each difference is decided (apply / keep / abort).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {decideEach, kubeletFixJson, pendingRefusal} from '../../../../src/app/fix/node-repairs.js'
import type {PendingChoice, PendingDifference} from '../../../../src/app/repair/kubelet-pending.js'
import type {KubeletFixPlan} from '../../../../src/app/repair/kubelet.js'
import {UsageError} from '../../../../src/errors.js'

const CONFIG = '/var/lib/kubelet/config.yaml'
const maxPods: PendingDifference = {field: 'maxPods', ptr: '/maxPods', from: 110, to: 250, origin: `${CONFIG}:17`, keep: {file: CONFIG}}
const clusterDNS: PendingDifference = {
  field: 'clusterDNS',
  ptr: '/clusterDNS',
  from: ['10.96.0.10'],
  to: ['10.96.0.53'],
  origin: 'flag --cluster-dns=10.96.0.53 at /var/lib/kubelet/kubeadm-flags.env:1',
  keep: {unavailable: 'the files\' value comes from the kubelet flag --cluster-dns=10.96.0.53'},
}
const plan = {node: 'worker-1', pending: [maxPods]}

function fullPlan(pending: PendingDifference[]): KubeletFixPlan {
  return {node: 'worker-1', configFile: CONFIG, configFileSource: 'test', why: [], changes: [], unchanged: [], notes: [], pending, kept: []}
}

describe('pendingRefusal', () => {
  it('--yes without --apply-pending refuses, naming each pending difference and the way on', () => {
    const e = pendingRefusal(plan, {yes: true, canAsk: true})
    assert.ok(e instanceof UsageError)
    assert.match(e.message, /would also apply 1 pending difference between its files and the running kubelet: maxPods: 110 -> 250; nothing was changed/)
    assert.match(e.hint ?? '', /--apply-pending/)
  })

  it('no terminal and no --yes --apply-pending: refuses, naming the differences and both flags', () => {
    const e = pendingRefusal({node: 'worker-1', pending: [maxPods, clusterDNS]}, {})
    assert.ok(e instanceof UsageError)
    assert.match(e.message, /would also apply 2 pending differences .*: maxPods: 110 -> 250; clusterDNS: \[10\.96\.0\.10\] -> \[10\.96\.0\.53\], and there is no terminal to ask about each; nothing was changed$/)
    assert.match(e.hint ?? '', /--yes --apply-pending/)
  })

  it('lets --yes --apply-pending, a terminal, --apply-pending (the final question still asked), a dry run and no pending differences through', () => {
    assert.equal(pendingRefusal(plan, {yes: true, applyPending: true}), undefined)
    assert.equal(pendingRefusal(plan, {canAsk: true}), undefined)
    assert.equal(pendingRefusal(plan, {applyPending: true}), undefined)
    assert.equal(pendingRefusal(plan, {yes: true, dryRun: true}), undefined)
    assert.equal(pendingRefusal(plan, {dryRun: true}), undefined)
    assert.equal(pendingRefusal({node: 'worker-1', pending: []}, {yes: true}), undefined)
  })
})

describe('decideEach', () => {
  const scripted = (answers: PendingChoice[]) => {
    const asked: string[] = []
    return {
      asked,
      choose: async (d: PendingDifference, i: number, n: number) => {
        asked.push(`${i + 1}/${n} ${d.field}`)
        return answers.shift() ?? 'abort'
      },
    }
  }
  const noReplan = async (): Promise<KubeletFixPlan> => assert.fail('no re-plan expected')

  it('--apply-pending: every difference is applied, nothing is asked', async () => {
    const s = scripted([])
    const out = await decideEach(fullPlan([maxPods, clusterDNS]), {applyPending: true}, s.choose, noReplan)
    assert.deepEqual(out.pending.map((p) => p.choice), ['apply', 'apply'])
    assert.deepEqual(s.asked, [])
  })

  it('a dry run asks nothing and leaves the choices open', async () => {
    const s = scripted([])
    const out = await decideEach(fullPlan([maxPods]), {dryRun: true}, s.choose, noReplan)
    assert.deepEqual(out.pending.map((p) => p.choice), [undefined])
    assert.deepEqual(s.asked, [])
  })

  it('asks each in turn; keep re-plans with the running value written back, apply stays pending', async () => {
    const s = scripted(['keep', 'apply'])
    let keepAsked: unknown
    const out = await decideEach(fullPlan([maxPods, clusterDNS]), {}, s.choose, async (keep) => {
      keepAsked = keep.map((k) => [k.file, k.ptr, k.value])
      return {...fullPlan([clusterDNS]), changes: [{path: CONFIG, role: 'config', before: {path: CONFIG, text: '', mode: '0640', uid: 0, gid: 0}, after: '', diff: '', settings: [{field: 'maxPods', from: 250, to: 110, kept: true}]}]}
    })
    assert.deepEqual(s.asked, ['1/2 maxPods', '2/2 clusterDNS'])
    assert.deepEqual(keepAsked, [[CONFIG, '/maxPods', 110]])
    assert.deepEqual(out.pending.map((p) => [p.field, p.choice]), [['clusterDNS', 'apply']])
    assert.deepEqual(out.kept.map((p) => [p.field, p.choice]), [['maxPods', 'keep']])
    const json = kubeletFixJson('worker-1', {status: 'not-applied', kubeletPlan: out}, {dryRun: true})
    assert.deepEqual(json.pending.map((p) => [p.field, p.running, p.files, p.choice, p.writtenTo ?? p.keepUnavailable?.slice(0, 20)]), [
      ['clusterDNS', ['10.96.0.10'], ['10.96.0.53'], 'apply', "the files' value com"],
      ['maxPods', 110, 250, 'keep', CONFIG],
    ])
    assert.deepEqual(json.changes, [{path: CONFIG, settings: [{field: 'maxPods', from: 250, to: 110, kept: true}]}])
  })

  it('abort stops asking and marks the plan aborted; nothing is re-planned', async () => {
    const s = scripted(['abort', 'apply'])
    const out = await decideEach(fullPlan([maxPods, clusterDNS]), {}, s.choose, noReplan)
    assert.deepEqual(s.asked, ['1/2 maxPods'])
    assert.equal(out.abortedAt?.field, 'maxPods')
    assert.equal(kubeletFixJson('worker-1', {status: 'not-applied', kubeletPlan: out}, {}).status, 'aborted')
  })

  it('a re-plan that finds other differences than the ones answered (the node changed meanwhile) changes nothing', async () => {
    const s = scripted(['keep', 'apply'])
    const other: PendingDifference = {...clusterDNS, to: ['10.96.0.99']}
    await assert.rejects(
      decideEach(fullPlan([maxPods, clusterDNS]), {}, s.choose, async () => fullPlan([other])),
      (err: unknown) => err instanceof UsageError && /changed while asking \(clusterDNS\); nothing was changed/.test(err.message),
    )
  })
})
