// NODE-022: kernel modules kube-proxy's mode needs that are neither loaded, built in nor installed (issue #19 item 7).
// A running mode has its modules by construction (an in-use module cannot be unloaded), and a rule the kernel holds
// proves the modules of its matches and target, so the useful cases are the mode kube-proxy is configured for and
// will use at its next start (a mode change not yet applied, PROXY-003), a scheduler not yet used, and, in iptables
// mode, the match and target modules of the rules kube-proxy will write (the proxier's expected rules for the node)
// that the node's ruleset does not use yet: an SCTP Service, the first ClientIP affinity. IPVS configured but not
// running is PROXY-001's finding (which names the modules missing from /proc/modules): this check stays quiet there.
// "Loadable" means listed in modules.dep for the running kernel (modprobe and the kernel's autoload can load it);
// absent means the kernel's module directory exists and lists it nowhere.
import type {ModuleAvailability} from '../../parse/kernel-modules.js'
import {parseModulesAvailable} from '../../parse/kernel-modules.js'
import type {CheckContext, CheckOutcome, CheckSpec, FindingDraft} from '../types.js'
import {factsOf} from '../types.js'
import {liveIptablesRuleset} from '../iptables/live.js'
import {restoreRuleLine} from '../../proxier/iptables/ruleset.js'

export const NODE_MODULES: CheckSpec = {
  id: 'NODE-022',
  area: 'proxy-mode',
  severity: 'error',
  title: "A kernel module kube-proxy's mode needs is neither loaded, built in nor installed for the running kernel",
  looksAt:
    'The `modules-available` artifact (for each module kube-proxy\'s modes use: /sys/module, then /lib/modules/$(uname -r)/modules.builtin, then modules.dep) against ' +
    "what kube-proxy's running mode and its configured mode (the one it uses at its next start) need: IPVS: ip_vs, the scheduler's ip_vs_SCHED (ipvs.scheduler, rr by default), " +
    'nf_conntrack; nftables: nf_tables, nf_conntrack, nf_nat; iptables: nf_conntrack, nf_nat and the module of each match and target extension in the rules kube-proxy writes ' +
    'for the node (its expected rules: -m comment xt_comment, -m conntrack xt_conntrack, -m statistic xt_statistic, -m mark/-j MARK xt_mark, -m addrtype xt_addrtype, ' +
    '-m recent xt_recent, -m tcp/udp xt_tcpudp, -m sctp xt_sctp, -j DNAT/SNAT xt_nat, -j MASQUERADE xt_MASQUERADE or ipt_MASQUERADE, -j REJECT ipt_REJECT), less every ' +
    "extension the node's `iptables-save` already uses (a rule the kernel holds proves its modules); without expected rules, kube-proxy's usual ones. " +
    'IPVS configured but not running is left to PROXY-001. Without /lib/modules for the running kernel nothing is judged.',
  why:
    'kube-proxy loads nothing itself: the kernel autoloads a module the first time a rule or virtual server needs it, which works only if the module is built in or installed ' +
    'for the running kernel. One that is absent (a kernel upgraded without its modules package, a minimal image, a module blacklisted and removed) makes kube-proxy fail ' +
    'to start in that mode the next time it restarts. In iptables mode, a rule needing an absent module (the first SCTP Service, the first ClientIP affinity) makes ' +
    "iptables-restore refuse kube-proxy's whole sync: no Service change reaches the node until the module is there.",
  remedy:
    'Install the running kernel\'s modules package (e.g. `linux-modules-extra-$(uname -r)` on Ubuntu, `kernel-modules-extra` on Fedora/RHEL), or reboot into a kernel whose modules ' +
    'are installed, then `modprobe MODULE` to check; list them in /etc/modules-load.d/ to load them at boot. If the mode was changed by mistake, set kube-proxy\'s mode back.',
  requires: ['modules-available'],
}

type Mode = 'iptables' | 'ipvs' | 'nftables'

/** What each mode needs, given the configured IPVS scheduler and whether any Service uses ClientIP affinity. */
export function modulesForMode(mode: Mode, opts: {scheduler: string; clientIPAffinity: boolean}): string[] {
  switch (mode) {
    case 'ipvs':
      return ['ip_vs', `ip_vs_${opts.scheduler}`, 'nf_conntrack']
    case 'nftables':
      return ['nf_tables', 'nf_conntrack', 'nf_nat']
    case 'iptables':
      return ['nf_conntrack', 'nf_nat', 'xt_conntrack', 'xt_statistic', 'xt_comment', 'xt_mark', 'xt_addrtype', ...(opts.clientIPAffinity ? ['xt_recent'] : [])]
  }
}

const asMode = (m: string | undefined): Mode | undefined => (m === 'iptables' || m === 'ipvs' || m === 'nftables' ? m : undefined)

/**
 * The kernel module behind each iptables extension kube-proxy's rules use (`m:` a match, `j:` a target), alternatives
 * in order: the first one the kernel has satisfies it. Linux names; MASQUERADE moved from ipt_MASQUERADE to
 * xt_MASQUERADE in newer kernels; DNAT/SNAT are xt_nat's. NOTE: iptables-nft expresses some matches natively (so
 * their xt module may never load there): an extension already in the node's ruleset is never judged, which keeps
 * tcp/udp/comment quiet on every kube-proxy node.
 */
export const EXTENSION_MODULES: Readonly<Record<string, readonly string[]>> = {
  'm:comment': ['xt_comment'],
  'm:conntrack': ['xt_conntrack'],
  'm:statistic': ['xt_statistic'],
  'm:mark': ['xt_mark'],
  'j:MARK': ['xt_mark'],
  'm:addrtype': ['xt_addrtype'],
  'm:recent': ['xt_recent'],
  'm:tcp': ['xt_tcpudp'],
  'm:udp': ['xt_tcpudp'],
  'm:sctp': ['xt_sctp'],
  'j:DNAT': ['xt_nat'],
  'j:SNAT': ['xt_nat'],
  'j:MASQUERADE': ['xt_MASQUERADE', 'ipt_MASQUERADE'],
  'j:REJECT': ['ipt_REJECT'],
}

/** What a rule using the extension proves besides its own module: the conntrack and NAT cores it depends on. */
const EXTENSION_DEPENDS: Readonly<Record<string, readonly string[]>> = {
  'm:conntrack': ['nf_conntrack'],
  'j:DNAT': ['nf_nat', 'nf_conntrack'],
  'j:SNAT': ['nf_nat', 'nf_conntrack'],
  'j:MASQUERADE': ['nf_nat', 'nf_conntrack'],
}

/** The extensions (`m:NAME`, `j:NAME`) a rule's argv uses. */
export function argvExtensions(args: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i + 1 < args.length; i++) {
    if (args[i] === '-m' || args[i] === '--match') out.push(`m:${args[i + 1]}`)
    else if (args[i] === '-j' || args[i] === '--jump') out.push(`j:${args[i + 1]}`)
  }
  return out
}

/**
 * The extensions an iptables-save text uses anywhere (any table, any component's rules): a rule the kernel holds proves
 * its modules work. A text scan: a comment that quotes ` -m x` adds one, which only keeps the check quieter.
 */
export function dumpExtensions(text: string): Set<string> {
  const out = new Set<string>()
  for (const m of text.matchAll(/ (?:-m|--match) (\S+)/g)) out.add(`m:${m[1]}`)
  for (const m of text.matchAll(/ (?:-j|--jump) (\S+)/g)) out.add(`j:${m[1]}`)
  return out
}

/** One need: any of `modules` satisfies it; `uses` and `example` say which rule extension needs it. */
interface Need {
  modules: readonly string[]
  uses?: string[]
  example?: string
}

const label = (ext: string) => (ext.startsWith('m:') ? `-m ${ext.slice(2)}` : `-j ${ext.slice(2)}`)
const USABLE = new Set<ModuleAvailability | undefined>(['loaded-or-builtin', 'builtin', 'loadable'])

function state(need: Need, avail: ReadonlyMap<string, ModuleAvailability>): 'ok' | 'absent' | 'unknown' {
  const states = need.modules.map((m) => avail.get(m))
  if (states.some((s) => USABLE.has(s))) return 'ok'
  return states.every((s) => s === 'absent') ? 'absent' : 'unknown'
}

/**
 * iptables mode: conntrack and NAT, then the modules of the extensions kube-proxy's rules use. While it runs, the
 * extensions of the rules it will write (the proxier's expected rules for the node) that the node's ruleset does not
 * use yet: those already in it are proven. Without expected rules (or for a next start), kube-proxy's usual extensions
 * less the proven ones.
 */
function iptablesNeeds(ctx: CheckContext, when: 'runs' | 'next start', opts: {scheduler: string; clientIPAffinity: boolean}): {needs: Need[]; basis: string} {
  const facts = factsOf(ctx)
  const present = dumpExtensions(facts.text('iptables-save') ?? '')
  const proven = new Set([...present].flatMap((e) => [...(EXTENSION_MODULES[e] ?? []), ...(EXTENSION_DEPENDS[e] ?? [])]))
  const base: Need[] = ['nf_conntrack', 'nf_nat'].filter((m) => !proven.has(m)).map((m) => ({modules: [m]}))
  const expected = when === 'runs' ? liveIptablesRuleset(ctx) : undefined
  if (expected?.ok) {
    const byModules = new Map<string, Need>()
    for (const t of expected.ruleset.tables) {
      for (const r of t.rules) {
        for (const e of argvExtensions(r.args)) {
          const modules = EXTENSION_MODULES[e]
          if (!modules || present.has(e) || modules.some((m) => proven.has(m))) continue
          const key = modules.join(' ')
          const need = byModules.get(key)
          if (!need) byModules.set(key, {modules, uses: [label(e)], example: restoreRuleLine(r)})
          else if (!need.uses!.includes(label(e))) need.uses!.push(label(e))
        }
      }
    }
    return {needs: [...base, ...byModules.values()], basis: `the rules kube-proxy writes for this node (${expected.ruleset.version}) that the node's ruleset does not use yet`}
  }
  const usual = modulesForMode('iptables', opts).filter((m) => m !== 'nf_conntrack' && m !== 'nf_nat' && !proven.has(m))
  return {needs: [...base, ...usual.map((m) => ({modules: [m]}))], basis: `kube-proxy's usual extensions${expected && !expected.ok ? ` (its expected rules: ${expected.reason})` : ''}, less those the node's ruleset already uses`}
}

export function checkModules(ctx: CheckContext): CheckOutcome {
  const facts = factsOf(ctx)
  const text = facts.text('modules-available')
  if (text === undefined) return {status: 'skipped', reason: 'missing input: modules-available'}
  let avail: Map<string, ModuleAvailability>
  try {
    avail = parseModulesAvailable(text)
  } catch (err) {
    return {status: 'skipped', reason: `the modules-available output could not be parsed: ${(err as Error).message}`}
  }
  const p = facts.proxy
  const running = asMode(p.running?.mode)
  const configured = asMode(p.configured?.mode)
  if (!running && !configured) return {status: 'skipped', reason: p.configuredUnknown ?? "kube-proxy's mode is unknown"}
  const ipvsCfg = (p.configured?.config.values['ipvs'] ?? {}) as Record<string, unknown>
  const scheduler = typeof ipvsCfg['scheduler'] === 'string' && ipvsCfg['scheduler'] !== '' ? ipvsCfg['scheduler'] : 'rr'
  const clientIPAffinity = ctx.cluster.services.some((s) => s.spec.sessionAffinity === 'ClientIP')
  const judged: Array<{mode: Mode; when: 'runs' | 'next start'}> = []
  if (running) judged.push({mode: running, when: 'runs'})
  if (configured && configured !== running) {
    // PROXY-001 reports IPVS configured but not in use, with the modules it lacks.
    if (!(configured === 'ipvs' && running !== undefined)) judged.push({mode: configured, when: 'next start'})
  }
  const findings: FindingDraft[] = []
  const unknown = new Set<string>()
  for (const j of judged) {
    const {needs, basis}: {needs: Need[]; basis?: string} =
      j.mode === 'iptables' ? iptablesNeeds(ctx, j.when, {scheduler, clientIPAffinity}) : {needs: modulesForMode(j.mode, {scheduler, clientIPAffinity}).map((m) => ({modules: [m]}))}
    const absent = needs.filter((n) => state(n, avail) === 'absent')
    for (const n of needs) if (state(n, avail) === 'unknown') unknown.add(n.modules.join(' or '))
    if (absent.length === 0) continue
    const names = absent.map((n) => n.modules.join(' or '))
    const uses = absent.flatMap((n) => n.uses ?? [])
    const what = j.when === 'runs' ? `kube-proxy runs ${j.mode} mode` : `kube-proxy is configured for ${j.mode} mode (${p.configured?.source ?? 'its configuration'}), which it uses at its next start,`
    const consequence =
      j.when === 'next start'
        ? 'it will fail to start in that mode'
        : uses.length > 0
          ? `its rules for this node use ${uses.join(', ')}, which the node's rules do not use yet: iptables-restore refuses the whole sync that writes them, so no Service change reaches the node`
          : 'every sync that needs them fails'
    findings.push({
      message: `${what} but ${names.join(', ')} ${absent.length === 1 ? 'is' : 'are'} neither loaded, built in nor installed for the running kernel: ${consequence}`,
      subject: {kind: 'module', name: absent[0]?.modules[0] ?? ''},
      evidence: [
        ...needs.map((n) => `${n.modules.join(' or ')}: ${n.modules.map((m) => avail.get(m) ?? 'not reported').join(' / ')}${n.uses ? ` (for ${n.uses.join(', ')}, e.g. ${n.example})` : ''}`),
        ...(basis ? [`judged: ${basis}`] : []),
        ...(j.mode === 'ipvs' ? [`ipvs.scheduler: ${scheduler}`] : []),
      ],
    })
  }
  if (findings.length > 0) return {status: 'failed', findings}
  if (unknown.size > 0) return {status: 'skipped', reason: `cannot tell: ${[...unknown].join(', ')} not found loaded, and the running kernel's /lib/modules (modules.builtin, modules.dep) was not readable`}
  return {status: 'passed'}
}
