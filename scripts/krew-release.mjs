#!/usr/bin/env node
// Makes the release archive krew installs (`npm pack` of the built package: bin/, dist/, schemas/, manifest) and
// writes its sha256 and version into plugins/node-doctor.yaml. Run after `npm run build`: node scripts/krew-release.mjs
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFileSync, renameSync, writeFileSync} from 'node:fs'

const pkg = JSON.parse(readFileSync('package.json', 'utf8'))
const tgz = execFileSync('npm', ['pack', '--silent'], {encoding: 'utf8'}).trim().split('\n').pop()
const name = `kubectl-node-doctor-v${pkg.version}.tgz`
renameSync(tgz, name)
const sha = createHash('sha256').update(readFileSync(name)).digest('hex')
const manifest = readFileSync('plugins/node-doctor.yaml', 'utf8')
  .replace(/version: v[^\n]+/, `version: v${pkg.version}`)
  .replace(/download\/v[^/]+\/kubectl-node-doctor-v[^\s]+\.tgz/, `download/v${pkg.version}/${name}`)
  .replace(/sha256: "[0-9a-f]{64}"/, `sha256: "${sha}"`)
writeFileSync('plugins/node-doctor.yaml', manifest)
console.log(`${name} sha256 ${sha}`)
