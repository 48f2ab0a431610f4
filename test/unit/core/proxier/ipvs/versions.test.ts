// IPVS mode in v1.36 and v1.37: no change to virtual servers, ipsets or helper iptables rules was found
// (docs/research/kube-proxy-v1.36-v1.37.md §8: release notes of v1.36.0, v1.37.0-alpha.1, v1.38.0-alpha.1; the
// KubeProxyIPVS gate of v1.37 is on by default and changes no rule). Every IPVS fixture renders the same state at
// v1.35, v1.36 and v1.37, apart from the version named in the headers.
import assert from 'node:assert/strict'
import {readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, it} from 'node:test'
import {formatIpvsState} from '../../../../../src/core/proxier/ipvs/generate.js'
import {renderIpvsCase} from './helpers.js'

const dirs = readdirSync('test/fixtures/proxier/ipvs').filter((d) => statSync(join('test/fixtures/proxier/ipvs', d)).isDirectory())

describe('IPVS mode: v1.36 and v1.37 render as v1.35', () => {
  it('has fixtures to compare', () => assert.ok(dirs.length >= 5, dirs.join(', ')))
  for (const dir of dirs) {
    for (const family of ['ipv4', 'ipv6'] as const) {
      it(`${dir} (${family})`, () => {
        const text = (version: string) => formatIpvsState(renderIpvsCase(dir, {version, family})).replaceAll(`kube-proxy ${version}`, 'kube-proxy VERSION')
        const v135 = text('v1.35')
        assert.ok(v135.includes('kube-proxy VERSION'), 'the header names the version')
        assert.equal(text('v1.36'), v135)
        assert.equal(text('v1.37'), v135)
      })
    }
  }
})

