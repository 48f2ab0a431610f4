// The loader side of record-resolves.mjs (it runs on the loader thread): appends each resolution to the record file.
import {appendFileSync} from 'node:fs'

let out
export function initialize(data) {
  out = data.out
}
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context)
  appendFileSync(out, `${specifier}\t${r.url}\n`)
  return r
}
