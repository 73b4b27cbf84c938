/**
 * Headless Chromium for the Node-side tests, from the `@sparticuz/chromium` dev dependency (the browser
 * ships inside its npm tarball), so `npm install && npm test` needs no system browser.
 *
 * The package extracts itself to `<tmp>/chromium` and returns whatever file is there, even one another
 * process is still writing or one of another version. Here each version is extracted once per machine
 * into its own folder: a child process unpacks into a private staging folder, which is then renamed
 * into place in one step, so concurrent test runs either find a complete browser or make their own
 * and the first rename wins.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { chromium, type Browser, type LaunchOptions } from 'playwright-core'

const require = createRequire(import.meta.url)

/** The package's folder and version: it exports no ./package.json, so walk up from its entry point. */
function locatePackage(): { dir: string; version: string } {
  for (let dir = dirname(require.resolve('@sparticuz/chromium')); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (!existsSync(file)) continue
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
    if (pkg.name === '@sparticuz/chromium' && pkg.version) return { dir, version: pkg.version }
  }
  throw new Error('@sparticuz/chromium is not installed (it is a dev dependency: run npm install)')
}
const { dir: packageDir, version } = locatePackage()

/** Flags for a headless, offline Chromium: the package's serverless set plus no background networking. */
export const CHROMIUM_ARGS: readonly string[] = [
  '--ash-no-nudges',
  '--disable-domain-reliability',
  '--disable-print-preview',
  '--no-default-browser-check',
  '--no-pings',
  '--font-render-hinting=none',
  '--disable-features=AudioServiceOutOfProcess',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-setuid-sandbox',
  '--no-sandbox',
  '--no-zygote',
  '--disable-background-networking',
  '--disable-gpu-sandbox',
]

function extractInto(staging: string): string {
  // The package unpacks into os.tmpdir(), which a child process can point at the staging folder.
  const script = `import('@sparticuz/chromium').then(async (m) => process.stdout.write(await m.default.executablePath()))`
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: dirname(dirname(packageDir)),
    env: { ...process.env, TMPDIR: staging, TMP: staging, TEMP: staging },
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`extracting @sparticuz/chromium failed:\n${r.stdout}\n${r.stderr}`)
  return r.stdout.trim()
}

/**
 * The path of the Chromium executable, extracted on first use into
 * `<tmp>/agent-action-api-chromium-<version>/`. Safe to call from concurrent processes.
 */
export function chromiumExecutablePath(): string {
  const home = join(tmpdir(), `agent-action-api-chromium-${version}`)
  const executable = join(home, 'chromium')
  if (existsSync(executable)) return executable
  const staging = mkdtempSync(join(tmpdir(), `agent-action-api-chromium-${version}-staging-`))
  try {
    const extracted = extractInto(staging)
    if (extracted !== join(staging, 'chromium')) throw new Error(`@sparticuz/chromium extracted to ${extracted}, not into ${staging}`)
    writeFileSync(
      join(staging, 'fonts.conf'),
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${join(home, 'fonts')}</dir><cachedir>${join(home, 'fonts-cache')}</cachedir></fontconfig>\n`,
    )
    renameSync(staging, home)
  } catch (err) {
    rmSync(staging, { recursive: true, force: true })
    // Another process renamed its complete copy into place first.
    if (!existsSync(executable)) throw err
  }
  return executable
}

/** Environment for a Chromium process started by other tools (chrome-launcher, Lighthouse): the package's fonts. */
export function chromiumEnv(): Record<string, string> {
  return { FONTCONFIG_FILE: join(dirname(chromiumExecutablePath()), 'fonts.conf') }
}

/**
 * Launches headless Chromium with playwright-core (offline flags, the package's fonts). Extra options
 * are merged in; `args` are added to CHROMIUM_ARGS. Close the browser in `afterAll`.
 */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({
    ...options,
    executablePath: chromiumExecutablePath(),
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    env: { ...process.env, ...chromiumEnv(), ...options.env },
  })
}
