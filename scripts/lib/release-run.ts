// The release bundle's runner (scripts/bundle.mjs), as bin/kubectl-node_doctor is the development one. The bare
// command, --help and --version are answered from package.json and the manifest without loading oclif when that
// prints what oclif would (src/fast-start.ts); everything else goes to oclif (release-oclif.ts), which finds
// package.json, the manifest and commands/ one folder up from this file.
import module from 'node:module'
import {fastStart} from '../../src/fast-start.js'

const root = new URL('..', import.meta.url)
if (!(await fastStart(root))) {
  // Node >= 22.1 caches compiled code between runs; Node 20 has no such API (nor a code cache for ES modules).
  ;(module as {enableCompileCache?: () => unknown}).enableCompileCache?.()
  const {runOclif} = await import('./release-oclif.js')
  await runOclif(root.href)
}
