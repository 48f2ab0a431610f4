#!/usr/bin/env node
// The last build step (`npm run build`): rewrites oclif.manifest.json with its commands in one fixed order, so a
// fresh clone's build leaves the tracked file unchanged. `oclif manifest` lists the commands in the order its glob
// finds the command files, which follows the directory order of the file system (not sorted: it differs between
// checkouts); everything else in the file comes from the command classes and is already deterministic.
//
// The order: by the command file's path under dist/commands, a folder's files before its subfolders, names in
// code-unit order (`kube-proxy-mode.js` before `kube-proxy.js`). It is the order the tracked file has always had, so
// adopting this step changed nothing in it. The JSON is written as oclif writes it (2-space indent, no final newline).
import {readFileSync, writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

/** Compares two command paths (arrays of path segments, the file last): files of a folder before its subfolders. */
function comparePaths(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const aFile = i === a.length - 1
    const bFile = i === b.length - 1
    if (aFile !== bFile) return aFile ? -1 : 1
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1
  }
  return a.length - b.length
}

/** The manifest text with its commands in the fixed order; the text as is when it already is. */
export function canonicalManifest(text) {
  const manifest = JSON.parse(text)
  const path = (id) => manifest.commands[id].relativePath ?? id.split(':')
  const ids = Object.keys(manifest.commands).sort((x, y) => comparePaths(path(x), path(y)) || (x < y ? -1 : x > y ? 1 : 0))
  manifest.commands = Object.fromEntries(ids.map((id) => [id, manifest.commands[id]]))
  return JSON.stringify(manifest, null, 2)
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'oclif.manifest.json')
  const text = readFileSync(file, 'utf8')
  const sorted = canonicalManifest(text)
  if (sorted !== text) writeFileSync(file, sorted)
}
