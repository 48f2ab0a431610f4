// The command line recorded in reports and audit records is rebuilt from parsed tokens, with secrets redacted.
import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {isSecretFlag, recordedCommandLine} from '../../../src/cli/command-line.js'

const TYPES = {token: 'option', only: 'option', quiet: 'boolean', 'no-color': 'boolean', output: 'option', 'client-key': 'option'} as const

describe('recordedCommandLine', () => {
  it('rebuilds the command with long flag names, quoting values and redacting --token', () => {
    const line = recordedCommandLine(
      'check',
      [
        {type: 'arg', input: 'worker-1'},
        {type: 'flag', flag: 'only', input: 'iptables,kubelet'},
        {type: 'flag', flag: 'token', input: 'eyJhbGciOi.secret'},
        {type: 'flag', flag: 'quiet', input: '-q'},
        {type: 'flag', flag: 'output', input: 'json'},
        {type: 'arg', input: "it's"},
      ],
      TYPES,
    )
    assert.equal(line, "check worker-1 --only iptables,kubelet --token <redacted> --quiet --output json 'it'\\''s'")
    assert.ok(!line.includes('eyJhbGciOi'))
  })

  it('turns a topic id into words', () => {
    assert.equal(recordedCommandLine('proxy:diff', [{type: 'arg', input: 'node-a'}], TYPES), 'proxy diff node-a')
  })

  it('marks credential flags secret by name as well as by list', () => {
    for (const n of ['token', 'client-key', 'bootstrap-token', 'ssh-password', 'secret']) assert.equal(isSecretFlag(n), true, n)
    for (const n of ['only', 'output', 'tokenize-x', 'kubeconfig']) assert.equal(isSecretFlag(n), false, n)
  })
})
