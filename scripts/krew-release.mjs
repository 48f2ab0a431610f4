#!/usr/bin/env node
// Makes the release archive krew installs and writes its sha256 and version into plugins/node-doctor.yaml:
// the esbuild bundle (scripts/bundle.mjs: no node_modules, only Node.js >= 20 needed) in one top folder,
// kubectl-node-doctor/. Run after `npm run build`: node scripts/krew-release.mjs [OUT_DIR] [--manifest FILE]
// (FILE: the krew manifest to update, default plugins/node-doctor.yaml).
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {create} from 'tar'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
const at = args.indexOf('--manifest')
const manifestPath = at >= 0 ? resolve(args.splice(at, 2)[1]) : join(ROOT, 'plugins', 'node-doctor.yaml')
const OUT = resolve(args[0] ?? join(ROOT, 'release'))
const TOP = 'kubectl-node-doctor'

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
mkdirSync(OUT, {recursive: true})
rmSync(join(OUT, TOP), {recursive: true, force: true})
execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle.mjs'), join(OUT, TOP)], {stdio: 'inherit'})

const name = `kubectl-node-doctor-v${pkg.version}.tgz`
const archive = join(OUT, name)
// Reproducible: fixed mtime, sorted entries, no owner names.
await create({gzip: true, file: archive, cwd: OUT, portable: true, mtime: new Date('2000-01-01T00:00:00Z'), noMtime: false}, [TOP])
const sha = createHash('sha256').update(readFileSync(archive)).digest('hex')
const manifest = readFileSync(manifestPath, 'utf8')
  .replace(/version: v[^\n]+/, `version: v${pkg.version}`)
  .replace(/download\/v[^/]+\/kubectl-node-doctor-v[^\s]+\.tgz/, `download/v${pkg.version}/${name}`)
  .replace(/sha256: "[0-9a-f]{64}"/, `sha256: "${sha}"`)
writeFileSync(manifestPath, manifest)
console.log(`${archive} sha256 ${sha}`)
