#!/usr/bin/env node
// Bundles the CLI with esbuild into a self-contained folder for the release archive krew installs: no node_modules,
// nothing to install, only Node.js >= 20 on PATH.
//
//   release/kubectl-node-doctor/
//     kubectl-node_doctor    the entry point kubectl runs (two lines: imports lib/run.js)
//     lib/run.js             the runner: answers --help/--version from the manifest (src/fast-start.ts), else
//                            loads oclif (scripts/lib/release-oclif.ts, a chunk of its own)
//     lib/help.js            the help class (exit codes under every --help)
//     commands/**.js         one file per command: only the command being run is loaded
//     lib/chunk-*.js         code shared between them (oclif, the renderers, the core), split by esbuild
//     package.json           name, version and the oclif settings
//     oclif.manifest.json    command ids, flags and help, so --help loads no command code
//     LICENSE, README.md, schemas/
//
// Why a folder and not one file: oclif loads a command from its own file, so `--help`, `checks` or `explain` never
// evaluate ssh2, @kubernetes/client-node or ink; one file would evaluate all of them at every start (measured: 0.64 s
// for --version). Run after `npm run build` (the manifest comes from the build): node scripts/bundle.mjs [OUT_DIR]
import {build} from 'esbuild'
import {chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = resolve(process.argv[2] ?? join(ROOT, 'release', 'kubectl-node-doctor'))
const BIN = 'kubectl-node_doctor'

function sources(dir) {
  const out = []
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e)
    if (statSync(p).isDirectory()) out.push(...sources(p))
    else if (/\.tsx?$/.test(e) && !e.endsWith('.d.ts')) out.push(p)
  }
  return out
}

/** An esbuild plugin answering imports of `name` with `contents`. */
function stubModule(name, contents) {
  return {
    name: `stub-${name}`,
    setup(b) {
      b.onResolve({filter: new RegExp(`^${name}$`)}, () => ({path: name, namespace: `stub-${name}`}))
      b.onLoad({filter: /.*/, namespace: `stub-${name}`}, () => ({contents, loader: 'js'}))
    },
  }
}

rmSync(OUT, {recursive: true, force: true})
mkdirSync(OUT, {recursive: true})

const commands = sources(join(ROOT, 'src', 'commands'))
const entryPoints = [
  ...commands.map((f) => ({in: f, out: relative(join(ROOT, 'src'), f).replace(/\.tsx?$/, '')})),
  {in: join(ROOT, 'src', 'help.ts'), out: 'lib/help'},
  // oclif hooks (package.json oclif.hooks): each in its own file, as the build has them under dist/hooks.
  ...Object.entries(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).oclif.hooks ?? {}).map(([, path]) => ({
    in: join(ROOT, path.replace(/^\.\/dist\//, 'src/') + '.ts'),
    out: path.replace(/^\.\/dist\//, 'lib/'),
  })),
  {in: join(ROOT, 'scripts', 'lib', 'release-run.ts'), out: 'lib/run'},
]

const result = await build({
  entryPoints,
  outdir: OUT,
  bundle: true,
  splitting: true,
  chunkNames: 'lib/chunk-[hash]',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true, // smaller files parse faster at every start
  keepNames: true, // oclif and the error taxonomy read class names
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  // Optional at run time, required inside try/catch: ssh2's native crypto binding and cpu-features (it falls back to
  // pure JS).
  external: ['cpu-features', '*.node'],
  plugins: [
    // ink loads its devtools only with DEV=true; oclif reads tsconfig.json with typescript only for development
    // plugins. Neither is in the bundle: importing them says so (oclif catches it and goes on).
    stubModule('react-devtools-core', `export default {connectToDevTools() { throw new Error('react-devtools-core is not part of the node-doctor release') }}`),
    stubModule('typescript', `throw new Error('typescript is not part of the node-doctor release')`),
  ],
  // CommonJS dependencies bundled into ESM need require, __filename and __dirname (ssh2 looks for its optional
  // native binding relative to __dirname).
  banner: {
    js: [
      `import {createRequire as __ndCreateRequire} from 'node:module';import {fileURLToPath as __ndFileURLToPath} from 'node:url';import {dirname as __ndDirname} from 'node:path';`,
      `const require = __ndCreateRequire(import.meta.url);const __filename = __ndFileURLToPath(import.meta.url);const __dirname = __ndDirname(__filename);`,
    ].join('\n'),
  },
})

writeFileSync(join(OUT, BIN), `#!/usr/bin/env node\n// kubectl plugin entry point: kubectl finds kubectl-node_doctor on PATH and runs it as \`kubectl node-doctor\`.\nimport './lib/run.js'\n`)
chmodSync(join(OUT, BIN), 0o755)

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
writeFileSync(
  join(OUT, 'package.json'),
  JSON.stringify(
    {
      name: pkg.name,
      version: pkg.version,
      description: pkg.description,
      license: pkg.license,
      type: 'module',
      engines: pkg.engines,
      bin: {[BIN]: `./${BIN}`},
      oclif: {
        ...pkg.oclif,
        commands: './commands',
        helpClass: './lib/help',
        ...(pkg.oclif.hooks ? {hooks: Object.fromEntries(Object.entries(pkg.oclif.hooks).map(([event, path]) => [event, path.replace(/^\.\/dist\//, './lib/')]))} : {}),
      },
    },
    null,
    2,
  ) + '\n',
)

// The build's manifest names each command's file under dist/commands; here they are under commands/.
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
for (const c of Object.values(manifest.commands)) {
  if (c.relativePath?.[0] !== 'dist') throw new Error(`oclif.manifest.json: ${c.id} is not under dist/ (run npm run build first)`)
  c.relativePath = c.relativePath.slice(1)
}
writeFileSync(join(OUT, 'oclif.manifest.json'), JSON.stringify(manifest, null, 2) + '\n')
for (const f of ['LICENSE', 'README.md']) cpSync(join(ROOT, f), join(OUT, f))
cpSync(join(ROOT, 'schemas'), join(OUT, 'schemas'), {recursive: true})

const outputs = Object.entries(result.metafile.outputs)
const total = outputs.reduce((n, [, o]) => n + o.bytes, 0)
const run = outputs.find(([f]) => f.endsWith('lib/run.js'))
console.log(
  `${relative(process.cwd(), OUT)}: ${commands.length} commands, ${outputs.length} files, ${(total / 1024 / 1024).toFixed(1)} MiB in all ` +
    `(${Object.keys(result.metafile.inputs).length} modules bundled; lib/run.js ${((run?.[1].bytes ?? 0) / 1024).toFixed(0)} KiB plus its chunks)`,
)
