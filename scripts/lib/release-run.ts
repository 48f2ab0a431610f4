// The release bundle's runner (scripts/bundle.mjs): oclif finds package.json, the manifest and commands/ one folder
// up from this file.
import {execute} from '@oclif/core'

await execute({dir: new URL('..', import.meta.url).href})
