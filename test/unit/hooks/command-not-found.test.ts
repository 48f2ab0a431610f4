// Did-you-mean for mistyped commands: the distance, the suggestions, and what the hook prints (kubectl's wording).
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {Config} from '@oclif/core'
import hook, {editDistance, suggestCommands} from '../../../src/hooks/command-not-found.js'
import {REPO_ROOT} from '../../support/golden.js'

describe('command_not_found hook', () => {
  it('editDistance: Levenshtein with adjacent transpositions', () => {
    assert.equal(editDistance('version', 'version'), 0)
    assert.equal(editDistance('versoin', 'version'), 1, 'a transposition is one edit')
    assert.equal(editDistance('chek', 'check'), 1)
    assert.equal(editDistance('', 'abc'), 3)
    assert.equal(editDistance('kitten', 'sitting'), 3)
  })

  const ids = ['check', 'checks', 'version', 'fix:kubelet', 'fix:kube-proxy', 'fix:kube-proxy-mode', 'proxy:diff', 'explain']

  it('suggests the closest commands and keeps the words after them', () => {
    assert.deepEqual(suggestCommands(['versoin'], ids), ['version'])
    assert.deepEqual(suggestCommands(['chek', 'worker-1'], ids), ['check worker-1', 'checks worker-1'])
    assert.deepEqual(suggestCommands(['fix', 'kubelt', 'worker-1'], ids), ['fix kubelet worker-1'])
    assert.deepEqual(suggestCommands(['proxy', 'dif'], ids), ['proxy diff'])
    assert.deepEqual(suggestCommands(['expl'], ids), ['explain'], 'a prefix of a command')
    assert.deepEqual(suggestCommands(['frobnicate'], ids), [])
    // A topic typed right is no suggestion: the subcommand is the mistake.
    assert.deepEqual(suggestCommands(['kubelet', 'shwo'], ['kubelet', 'kubelet:show', 'check']), ['kubelet show'])
  })

  it('prints the error, the suggestion and the help pointer on stderr, and sets exit code 2', async () => {
    const config = await Config.load({root: REPO_ROOT})
    const err: string[] = []
    const orig = process.stderr.write.bind(process.stderr)
    const saved = process.exitCode
    process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write
    try {
      await hook.call({config} as never, {id: 'chek:worker-1', argv: [], config, context: {} as never})
      assert.equal(process.exitCode, 2)
    } finally {
      process.stderr.write = orig
      process.exitCode = saved
    }
    assert.equal(
      err.join(''),
      [
        'error: unknown command "chek worker-1" for "kubectl node-doctor"',
        '',
        'Did you mean one of these?',
        '  kubectl node-doctor check worker-1',
        '  kubectl node-doctor checks worker-1',
        '',
        "Run 'kubectl node-doctor --help' for the commands.",
        '',
      ].join('\n'),
    )
  })

  it('is registered with oclif, so Config.runCommand reaches it for an unknown id', async () => {
    const config = await Config.load({root: REPO_ROOT})
    const saved = process.exitCode
    const orig = process.stderr.write.bind(process.stderr)
    const err: string[] = []
    process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write
    try {
      await config.runCommand('versoin', [])
      assert.equal(process.exitCode, 2)
    } finally {
      process.stderr.write = orig
      process.exitCode = saved
    }
    assert.match(err.join(''), /Did you mean this\?\n {2}kubectl node-doctor version\n/)
  })

  it('suggests a topic for a mistyped topic', async () => {
    const config = await Config.load({root: REPO_ROOT})
    const err: string[] = []
    const orig = process.stderr.write.bind(process.stderr)
    const saved = process.exitCode
    process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write
    try {
      await hook.call({config} as never, {id: 'proxi', argv: [], config, context: {} as never})
    } finally {
      process.stderr.write = orig
      process.exitCode = saved
    }
    assert.match(err.join(''), /Did you mean this\?\n {2}kubectl node-doctor proxy\n/)
  })

  it('a flag where the command should be: "unknown flag", exit 2', async () => {
    const config = await Config.load({root: REPO_ROOT})
    const err: string[] = []
    const orig = process.stderr.write.bind(process.stderr)
    const saved = process.exitCode
    process.stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof process.stderr.write
    try {
      await hook.call({config} as never, {id: '--frobnicate', argv: [], config, context: {} as never})
      assert.equal(process.exitCode, 2)
    } finally {
      process.stderr.write = orig
      process.exitCode = saved
    }
    assert.match(err.join(''), /^error: unknown flag "--frobnicate" for "kubectl node-doctor"\n/)
  })
})
