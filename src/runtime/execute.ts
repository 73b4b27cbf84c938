import type { ActionLookup, ActionMode, AnyAction, Presented } from '../actions/define'
import { secretFields } from '../actions/secret-fields'
import type { Config } from '../config'
import { recordRunAgent } from '../db/agent-access'
import { claimKeyWithRun } from '../db/idempotency'
import {
  extendLease,
  failRun,
  finishedRunStatement,
  getRun,
  getStep,
  insertFinishedRun,
  insertQueuedRun,
  insertRunIfAbsent,
  putStep,
  setProgress,
  succeedRun,
  type NewRun,
  type RunEnd,
  type RunRow,
} from '../db/runs'
import { SECRET_SETTINGS, type Env } from '../env'
import { successJson } from '../http/envelope'
import { ApiError, shownMessage, type ErrorCode } from '../http/errors'
import { toApiError } from '../http/map-error'
import { parseOrThrow } from '../http/validate'
import { sha256Hex } from '../lib/crypto'
import { newId } from '../lib/ids'
import { setOwn } from '../lib/objects'
import { clearableTimeout } from '../lib/timers'
import { assertPublicDestination } from '../providers/web/dns'
import { createGuardedFetch } from '../providers/web/fetch'
import { blobKeys, isInline, type Stored } from './blobs'
import type { ActionContext, Admission, AgentScope, RunAccount } from './context'
import { isContinueLater } from './jobs'
import { errorFields, type Logger } from './log'
import { readRunMetadata, readRunOutput, readStepValue, storeJobInput, storeRunValue, storeStepValue } from './run-values'
import { REDACTED, scrubbingLogger, SecretSet } from './secrets'
import { coerceToSchema, hasReferences, referencedRoots, resolveReferences } from './templates'
import { readVariables, writeVariable } from './variables'

/** Platform pieces a call needs, whether it came over HTTP, MCP or the queue. */
export interface Runtime {
  env: Env
  config: Config
  log: Logger
  /** The registry, from the caller that starts the call (the runtime sits below it). */
  actions: ActionLookup
  waitUntil(promise: Promise<unknown>): void
}

/** Who calls and how they want the answer. */
export interface Caller {
  account: RunAccount
  requestId: string
  workflowId: string | null
  idempotencyKey: string | null
  /** Seconds to wait for a queued run before answering 202; 0 answers at once. */
  waitSeconds: number
  /** `Prefer: respond-async`: run any action through the queue and answer 202 at once. */
  respondAsync?: boolean
  /** The request's rate-limit count, when the HTTP layer left it to the call (see `countWithFirstRead`). */
  admission?: Admission
  /** The agent whose step makes this call (a step that starts a run of its own), if any. */
  agent?: AgentScope | null
}

export type CallOutcome =
  | { kind: 'done'; runId: string; presented: Presented; /** The success envelope as JSON text, when the run kept it at hand. */ body?: string }
  | { kind: 'failed'; runId: string; error: ApiError }
  | { kind: 'pending'; runId: string; state: string }

const LEASE_MS = 5 * 60_000
const SERVICE_AGENT = 'AgentActionAPI/0.1 (+https://github.com/agent-action-api)'

/** User-Agent for every outbound call, with a contact when one is configured. */
export function userAgent(config: Config): string {
  return config.contactEmail ? `${SERVICE_AGENT.slice(0, -1)}; ${config.contactEmail})` : SERVICE_AGENT
}

/** Names that hold credentials wherever they appear: a second net behind the schema's secret types. */
const SECRET_NAME = /pass(word|phrase)?$|secret|token|api[_-]?key|credential|authorization/i

function redactDeep(value: unknown, depth: number): { value: unknown; changed: boolean } {
  if (depth > 16 || value === null || typeof value !== 'object') return { value, changed: false }
  let changed = false
  if (Array.isArray(value)) {
    const out = value.map((v) => {
      const r = redactDeep(v, depth + 1)
      changed ||= r.changed
      return r.value
    })
    return { value: changed ? out : value, changed }
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_NAME.test(k) && typeof v === 'string' && v !== '' && v !== REDACTED) {
      setOwn(out, k, REDACTED)
      changed = true
    } else {
      const r = redactDeep(v, depth + 1)
      changed ||= r.changed
      setOwn(out, k, r.value)
    }
  }
  return { value: changed ? out : value, changed }
}

/**
 * The input as run records keep it. First registers in `secrets` the values of the fields the
 * action's schema marks secret; then replaces those fields, and any nested field whose name says it
 * holds a credential, with "[redacted]", and scrubs every registered secret value from the rest
 * (a secret spliced into another field, or given inside JSON text). Returns the same object when
 * nothing was secret.
 */
export function recordedInput(action: AnyAction, input: Record<string, unknown>, secrets: SecretSet): Record<string, unknown> {
  const fields = secretFields(action)
  for (const field of fields) secrets.add(input[field])
  let out = input
  for (const field of fields) {
    if (field in out && out[field] !== undefined) {
      if (out === input) out = { ...input }
      out[field] = REDACTED
    }
  }
  const nested: Record<string, unknown> = {}
  let changed = false
  for (const [k, v] of Object.entries(out)) {
    const r = redactDeep(v, 0)
    setOwn(nested, k, r.value)
    changed ||= r.changed
  }
  return secrets.scrub(changed ? nested : out)
}

/**
 * Registers the secrets of a run's input before anything of it is stored: the values of the fields
 * its schema marks secret and those the action names (an agent's secret parameters).
 */
export async function collectSecrets(action: AnyAction, input: Record<string, unknown>, ctx: ActionContext): Promise<void> {
  for (const field of secretFields(action)) ctx.secrets.add(input[field])
  if (action.secretValues) for (const value of await action.secretValues(input, ctx)) ctx.secrets.add(value)
}

/** JSON with object keys sorted, so equal values hash equal whatever their key order. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

async function loadScope(rt: Runtime, caller: Caller, body: unknown): Promise<Record<string, unknown>> {
  if (!caller.workflowId) {
    throw new ApiError('UNRESOLVED_REFERENCE', 'The body holds {{...}} references but no Workflow-Id header names the variable scope to resolve them from')
  }
  const names = [...referencedRoots(body)]
  const scope = { db: rt.env.DB, cache: rt.env.CACHE, config: rt.config, accountId: caller.account.id, workflowId: caller.workflowId }
  const values: Record<string, unknown> = {}
  for (const [name, value] of await readVariables(scope, names, Date.now())) setOwn(values, name, value)
  return values
}

/**
 * Resolves references, applies the action's schema and returns the validated input. Every failing
 * field is listed; a reference to nothing names the field and the reference; an input that resolving
 * would take past MAX_RESOLVED_INPUT_BYTES is a 413 naming the field, found before it is built.
 */
export async function prepareInput(rt: Runtime, caller: Caller, action: AnyAction, body: Record<string, unknown>) {
  let resolved = body
  if (hasReferences(body)) {
    const scope = await loadScope(rt, caller, body)
    try {
      resolved = resolveReferences(body, scope, [], rt.config.maxResolvedInputBytes) as Record<string, unknown>
    } catch (err) {
      throw toApiError(err) ?? err
    }
  }
  return parseOrThrow(action.input, coerceToSchema(body, resolved, action.input)) as Record<string, unknown>
}

function storedError(run: RunRow): ApiError {
  const code = (run.error_code ?? 'INTERNAL') as ErrorCode
  return new ApiError(code, run.error ?? 'The run failed')
}

/** Turns a finished run row into an outcome; pending when it has not finished. */
export async function outcomeOf(env: Env, run: RunRow): Promise<CallOutcome> {
  if (run.state === 'succeeded') {
    const response = await readRunOutput(env.CACHE, run)
    const metadata = await readRunMetadata(env.CACHE, run)
    return { kind: 'done', runId: run.id, presented: metadata === undefined ? { response } : { response, metadata } }
  }
  if (run.state === 'failed') return { kind: 'failed', runId: run.id, error: storedError(run) }
  return { kind: 'pending', runId: run.id, state: run.state }
}

/** Polls a run until it ends or `seconds` pass. */
export async function waitForRun(env: Env, runId: string, seconds: number): Promise<RunRow | null> {
  const deadline = Date.now() + seconds * 1000
  let delay = 50
  for (;;) {
    const run = await getRun(env.DB, runId)
    if (!run || run.state === 'succeeded' || run.state === 'failed' || Date.now() >= deadline) return run
    await new Promise((r) => setTimeout(r, Math.min(delay, Math.max(0, deadline - Date.now()))))
    delay = Math.min(500, delay * 2)
  }
}

async function decideMode(action: AnyAction, input: Record<string, unknown>, ctx: ActionContext): Promise<ActionMode> {
  return typeof action.mode === 'function' ? action.mode(input, ctx) : action.mode
}

/** Can this action be queued for some input? (Then it accepts `callback_url`.) */
export function mayQueue(action: AnyAction): boolean {
  return action.mode !== 'inline'
}

/**
 * The whole call pipeline: references, validation, idempotency, the run record, then the action
 * inline or through the queue.
 */
export async function callAction(rt: Runtime, caller: Caller, action: AnyAction, rawBody: Record<string, unknown>): Promise<CallOutcome> {
  const deadline = runDeadline(rt.config, false)
  try {
    return await startRun(rt, caller, deadline.signal, action, rawBody)
  } finally {
    deadline.clear()
  }
}

async function startRun(rt: Runtime, caller: Caller, signal: AbortSignal, action: AnyAction, rawBody: Record<string, unknown>): Promise<CallOutcome> {
  const gate = caller.admission
  // Counted before anything with an effect; an inline read-only call may count with its first read.
  if (!action.countWithFirstRead || caller.respondAsync || caller.idempotencyKey) await gate?.admit()
  const body = { ...rawBody }
  let callbackUrl: string | null = null
  if ((mayQueue(action) || caller.respondAsync) && 'callback_url' in body) {
    callbackUrl = await validateCallbackUrl(rt, body.callback_url)
    delete body.callback_url
  }
  const input = await prepareInput(rt, caller, action, body)
  const runId = newId('run')
  const now = Date.now()
  const ctx = createContext(rt, { ...caller, signal }, runId, false, Boolean(caller.idempotencyKey), gate)
  // The deployment's secret settings are in every run's set: only what this call adds makes its input secret.
  const sharedSecrets = ctx.secrets.size
  if (action.precheck) await action.precheck(input, ctx)
  const mode = caller.respondAsync ? 'queued' : await decideMode(action, input, ctx)
  if (mode !== 'inline') await gate?.admit()
  if (callbackUrl && mode === 'inline') {
    throw new ApiError('VALIDATION_FAILED', 'callback_url is only accepted when the action runs queued', [{ path: '/callback_url', message: 'This call runs inline and answers in the response' }])
  }
  await collectSecrets(action, input, ctx)
  const recorded = recordedInput(action, input, ctx.secrets)
  const hasSecrets = recorded !== input || ctx.secrets.size > sharedSecrets
  const stored = await storeRunValue(rt.env, rt.config, runId, 'input', recorded)
  let job: Stored | null = null
  try {
    if (mode === 'queued') job = await storeJobInput(rt.env, rt.config, runId, input, hasSecrets)
  } catch (err) {
    // A refused request leaves nothing behind, not even the blob of the input that did fit.
    if (stored.kind !== 'inline') await rt.env.CACHE.delete(blobKeys.run(runId, 'input'))
    throw err
  }
  const run: NewRun = {
    id: runId,
    account_id: caller.account.id,
    action: action.name,
    state: mode === 'inline' ? 'running' : 'queued',
    parent_run_id: null,
    workflow_id: caller.workflowId,
    output_variable_name: typeof input.output_variable_name === 'string' ? input.output_variable_name : null,
    input: stored.text,
    input_kind: stored.kind,
    job_input: job?.text ?? null,
    job_input_kind: job?.kind ?? 'inline',
    callback_url: callbackUrl,
    created_at: now,
    started_at: mode === 'inline' ? now : null,
  }

  if (caller.idempotencyKey) {
    // Secrets stay out of the stored hash: an unsalted hash of a password could be guessed offline.
    const bodyHash = await sha256Hex(stableStringify({ action: action.name, body: recordedInput(action, rawBody, ctx.secrets), workflow: caller.workflowId }))
    const expiresAt = now + rt.config.idempotencyTtlSeconds * 1000
    const maxInFlight = mode === 'queued' ? rt.config.maxQueuedRunsPerAccount : null
    const existing = await claimKeyWithRun(rt.env.DB, caller.idempotencyKey, bodyHash, run, expiresAt, maxInFlight)
    if (existing === 'full') throw queueFull(rt.config.maxQueuedRunsPerAccount)
    if (existing) {
      if (existing.body_hash !== bodyHash) {
        throw new ApiError('CONFLICT', 'This Idempotency-Key was already used with a different request body or action', [{ path: '/', message: `Idempotency-Key belongs to run ${existing.run_id}` }])
      }
      const prior = await waitForRun(rt.env, existing.run_id, caller.waitSeconds)
      if (!prior) throw new ApiError('CONFLICT', 'The run of this Idempotency-Key no longer exists')
      return outcomeOf(rt.env, prior)
    }
  } else if (mode === 'queued') {
    if (!(await insertQueuedRun(rt.env.DB, run, rt.config.maxQueuedRunsPerAccount))) throw queueFull(rt.config.maxQueuedRunsPerAccount)
  }
  // An inline run without an idempotency key is written once, when it ends.
  const pending = caller.idempotencyKey ? undefined : run

  if (mode === 'queued') {
    if (caller.agent) await recordRunAgent(rt.env.DB, runId, caller.agent.id)
    await rt.env.JOBS.send({ runId })
    if (caller.waitSeconds <= 0) return { kind: 'pending', runId, state: 'queued' }
    const done = await waitForRun(rt.env, runId, caller.waitSeconds)
    return done ? outcomeOf(rt.env, done) : { kind: 'pending', runId, state: 'queued' }
  }

  try {
    const { presented, body } = await executeRun(rt, ctx, action, input, { id: runId, workflow_id: caller.workflowId, output_variable_name: run.output_variable_name }, pending, gate)
    return { kind: 'done', runId, presented, body }
  } catch (err) {
    // A refused request has no run to record; any other failure is recorded once the request is counted.
    if (gate?.refused) throw err
    await gate?.admit()
    const api = await recordFailure(rt, runId, err, ctx, pending)
    return { kind: 'failed', runId, error: api }
  }
}

function queueFull(max: number): ApiError {
  return new ApiError(
    'QUOTA_EXCEEDED',
    `This account already has ${max} queued runs waiting or running (the MAX_QUEUED_RUNS_PER_ACCOUNT setting): wait for one to end (GET /v1/runs?state=queued or ?state=running) and retry`,
  )
}

async function validateCallbackUrl(rt: Runtime, value: unknown): Promise<string> {
  const detail = (message: string) => new ApiError('VALIDATION_FAILED', `callback_url ${message}`, [{ path: '/callback_url', message }])
  if (typeof value !== 'string' || value.length > 2048) throw detail('must be an https URL of at most 2048 characters')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw detail('is not a valid URL')
  }
  if (url.protocol !== 'https:') throw detail('must use https')
  try {
    await assertPublicDestination(url, { allowPrivate: rt.config.allowPrivateFetch, dns: rt.config.outboundDns }, 'callback_url')
  } catch (err) {
    throw toApiError(err) ?? err
  }
  if (!rt.env.WEBHOOK_SIGNING_SECRET) throw new ApiError('NOT_CONFIGURED', 'callback_url needs the WEBHOOK_SIGNING_SECRET setting to sign callbacks')
  return url.toString()
}

/**
 * Stores a failure on the run; returns the API error the caller sees, with the run's secrets scrubbed
 * (an upstream may echo what it was sent). Unexpected errors are logged with their stack.
 */
export async function recordFailure(rt: Runtime, runId: string, err: unknown, ctx?: ActionContext, pending?: NewRun): Promise<ApiError> {
  let api = toApiError(err)
  if (!api) {
    ;(ctx?.log ?? rt.log).error('action failed', { run_id: runId, ...errorFields(err) })
    const request = ctx?.requestId ? `request ${ctx.requestId}, ` : ''
    api = new ApiError('INTERNAL', `Internal error while running the action (${request}run ${runId})`)
  }
  if (ctx && ctx.secrets.size > 0) api = new ApiError(api.code, ctx.secrets.scrubText(api.message), ctx.secrets.scrub(api.details), api.headers)
  const error = { message: shownMessage(api.message), code: api.code, status: api.status }
  await writeEnd(rt.env.DB, ctx, runId, pending, { state: 'failed', output: null, metadata: null, usage: usageJson(ctx), error, finishedAt: Date.now() })
  return api
}

/**
 * What a run written once when it ends (no row until then) holds back: its steps' records and its
 * own writes (ctx.write), shared by its steps' contexts; `root` is the run whose record sends them.
 */
const heldWrites = new WeakMap<ActionContext, { list: D1PreparedStatement[]; root: boolean }>()

/**
 * Writes how a run ended: an update of its row or, for a run written once when it ends (`pending`),
 * its record, which a step's run adds to what its root run holds and the root run sends with all of
 * it in one batch. False when the row had already ended (a redelivered run).
 */
async function writeEnd(db: D1Database, ctx: ActionContext | undefined, runId: string, pending: NewRun | undefined, end: RunEnd): Promise<boolean> {
  if (!pending) return end.error ? failRun(db, runId, end.error, end.usage, end.finishedAt) : succeedRun(db, runId, end.output!, end.metadata, end.usage, end.finishedAt)
  const held = ctx ? heldWrites.get(ctx) : undefined
  if (held && !held.root) held.list.push(finishedRunStatement(db, pending, end))
  else await insertFinishedRun(db, pending, end, held?.list.splice(0))
  return true
}

const usageTotals = new WeakMap<ActionContext, Record<string, number>>()

function usageJson(ctx?: ActionContext): string | null {
  const usage = ctx ? usageTotals.get(ctx) : undefined
  return usage ? JSON.stringify(usage) : null
}

/**
 * Runs an action for a run whose record exists, then stores output and workflow variable.
 * Throws what the action throws (the run is then still open).
 */
export async function executeRun(
  rt: Runtime,
  ctx: ActionContext,
  action: AnyAction,
  input: Record<string, unknown>,
  run: Pick<RunRow, 'id' | 'workflow_id' | 'output_variable_name'>,
  pending?: NewRun,
  admission?: Admission,
): Promise<{ presented: Presented; body?: string }> {
  const output = await action.run(input, ctx)
  await admission?.admit()
  const shown: Presented = action.present ? action.present(output) : { response: output }
  // What is answered and stored never holds a secret of the run, even one an action echoed.
  const presented: Presented = { response: ctx.secrets.scrub(shown.response) }
  if (shown.metadata !== undefined) presented.metadata = ctx.secrets.scrub(shown.metadata)
  const outStored = await storeRunValue(rt.env, rt.config, run.id, 'output', presented.response ?? null)
  const metaStored = presented.metadata === undefined ? null : await storeRunValue(rt.env, rt.config, run.id, 'metadata', presented.metadata)
  const first = await writeEnd(rt.env.DB, ctx, run.id, pending, { state: 'succeeded', output: outStored, metadata: metaStored, usage: usageJson(ctx), error: null, finishedAt: Date.now() })
  if (first && run.workflow_id && run.output_variable_name) {
    const scope = { db: rt.env.DB, cache: rt.env.CACHE, config: rt.config, accountId: ctx.account.id, workflowId: run.workflow_id }
    await writeVariable(scope, run.output_variable_name, ctx.secrets.scrub(output), Date.now(), 'omit')
  }
  // The stored text is the response's JSON already: the envelope reuses it instead of serializing the output twice.
  const inline = presented.response !== undefined && isInline(outStored) && (metaStored === null || isInline(metaStored))
  return { presented, body: inline ? successJson(outStored.text, metaStored?.text ?? null) : undefined }
}

/**
 * A signal aborted `seconds` from now, its reason the 504 the caller sees: an outbound call in flight
 * rejects with it rather than with a bare AbortError. The run's starter clears it when the run
 * ends: workerd allows an isolate 10,000 active timers, and a deadline of minutes left running for
 * every call would use them up at a few dozen calls a second.
 */
function deadlineSignal(seconds: number, setting: string): { signal: AbortSignal; clear: () => void } {
  return clearableTimeout(seconds * 1000, () => new ApiError('UPSTREAM_TIMEOUT', `The run passed its deadline of ${seconds} s (the ${setting} setting) and stopped its calls in flight`))
}

/** The deadline of a new run: in a request, or per attempt in the Queue consumer. */
export function runDeadline(config: Config, queued: boolean): { signal: AbortSignal; clear: () => void } {
  return queued ? deadlineSignal(config.queuedRunTimeoutSeconds, 'QUEUED_RUN_TIMEOUT_SECONDS') : deadlineSignal(config.inlineRunTimeoutSeconds, 'INLINE_RUN_TIMEOUT_SECONDS')
}

/** What a step id may hold to name a child run as it is (the agents' STEP_ID: letters, digits, underscores). */
const STEP_ID_TEXT = /^[A-Za-z0-9_]{1,64}$/

/**
 * The run id of a workflow step: the run's id and the step's id as saved, one record per step. Step
 * ids are unique in a workflow; dropping their underscores or cutting them made "a_b" and "ab" (or two
 * ids alike in their first 24 letters) one run id, so an inline invocation failed on the duplicate
 * key (a 500) and a persisted one wrote the second step over the first step's record.
 * @example childRunId('run_4fK2', 'find_people') // 'run_4fK2_find_people'
 */
export function childRunId(runId: string, stepName: string): string {
  // Saved workflows only hold such ids (checked when an agent is saved); anything else is no step to record.
  if (!STEP_ID_TEXT.test(stepName)) throw new ApiError('VALIDATION_FAILED', `Workflow step id ${JSON.stringify(stepName.slice(0, 64))} is not a step id`)
  return `${runId}_${stepName}`
}

/**
 * A run's secrets to start with: the values of the deployment's secret settings, so none of them
 * appears in an answer or record whichever peer or page quotes it (the guarded client adds each
 * credential a request carries as it is sent).
 */
function deploymentSecrets(env: Env): SecretSet {
  const secrets = new SecretSet()
  // As set and as sent: the clients trim what they send.
  for (const name of SECRET_SETTINGS) {
    secrets.add(env[name])
    secrets.add(env[name]?.trim())
  }
  return secrets
}

/** Builds the context an action runs with. A workflow's steps share their run's `secrets` and `signal`. */
export function createContext(
  rt: Runtime,
  caller: Pick<Caller, 'account' | 'requestId' | 'workflowId' | 'agent'> & { secrets?: SecretSet; signal: AbortSignal; held?: D1PreparedStatement[] },
  runId: string,
  queued: boolean,
  /**
   * False for an inline run that is written only when it ends: nothing to memoize steps against, and
   * no retry to need it; its steps' runs and its writes (ctx.write) are held and written with it.
   */
  persisted = true,
  admission?: Admission,
): ActionContext {
  const db = rt.env.DB
  const secrets = caller.secrets ?? deploymentSecrets(rt.env)
  const log = scrubbingLogger(rt.log.child({ run_id: runId }), secrets)
  const signal = caller.signal
  const held = persisted ? null : { list: caller.held ?? [], root: caller.held === undefined }
  const ctx: ActionContext = {
    env: rt.env,
    config: rt.config,
    account: caller.account,
    runId,
    requestId: caller.requestId,
    workflowId: caller.workflowId,
    agent: caller.agent ?? null,
    queued,
    actions: rt.actions,
    db,
    read: (statements) => (admission ? admission.read(statements) : db.batch(statements)),
    async write(statements) {
      if (held) held.list.push(...statements)
      else if (statements.length > 0) await db.batch(statements)
    },
    cache: rt.env.CACHE,
    // The credentials its requests carry (server and account keys) join the run's secrets: an upstream may echo them.
    fetch: createGuardedFetch({ userAgent: userAgent(rt.config), allowPrivate: rt.config.allowPrivateFetch, dns: rt.config.outboundDns, log, signal, secrets }),
    log,
    secrets,
    signal,
    async progress(update) {
      // An inline run without an idempotency key has no row until it ends, and nobody to poll it.
      if (!persisted) return
      await setProgress(db, runId, JSON.stringify(secrets.scrub({ ...update, updated_at: new Date().toISOString() })), queued ? Date.now() + LEASE_MS : null)
    },
    async step(name, fn) {
      if (!persisted) return fn()
      const stored = await getStep(db, runId, name)
      if (stored !== null) return (await readStepValue(rt.env, runId, name, stored)) as Awaited<ReturnType<typeof fn>>
      const value = await fn()
      // A result holding a secret of the run is sealed rather than scrubbed: a retried run needs it as it was.
      await putStep(db, runId, name, await storeStepValue(rt.env, rt.config, runId, name, value, secrets.scrub(value) !== value), Date.now())
      if (queued) await extendLease(db, runId, Date.now() + LEASE_MS)
      return value
    },
    async invoke(actionName, input, stepName, agent, template) {
      const child = rt.actions(actionName)
      if (!child) throw new ApiError('VALIDATION_FAILED', `Workflow step "${stepName}" names an unknown action "${actionName}"`)
      return ctx.step(`invoke:${stepName}`, async () => {
        let parsed: Record<string, unknown>
        try {
          parsed = parseOrThrow(child.input, coerceToSchema(template ?? {}, input, child.input)) as Record<string, unknown>
        } catch (err) {
          const api = toApiError(err)
          if (api) throw new ApiError(api.code, `Workflow step "${stepName}" (${actionName}): ${api.message}`, api.details)
          throw err
        }
        const childId = childRunId(runId, stepName)
        // A step of another account's agent is listed with its action, state and error, not its input or
        // output: those hold the workflow's literals and inner results, which running an agent does not share.
        const hidden = agent.foreign
        // recordedInput also registers the step's secret fields with the run's scrubber, hidden or not.
        const shownInput = recordedInput(child, parsed, secrets)
        const recorded = await storeRunValue(rt.env, rt.config, childId, 'input', hidden ? null : shownInput)
        const childRun: NewRun = {
          id: childId,
          account_id: caller.account.id,
          action: child.name,
          state: 'running',
          parent_run_id: runId,
          workflow_id: null,
          output_variable_name: null,
          input: recorded.text,
          input_kind: recorded.kind,
          job_input: null,
          job_input_kind: 'inline',
          callback_url: null,
          created_at: Date.now(),
          started_at: Date.now(),
        }
        // A step of a run written once when it ends is too: its record goes with the run's.
        const pendingChild = persisted ? undefined : childRun
        if (persisted) await insertRunIfAbsent(db, childRun)
        // A step sees the agent run's own variables, never the invoker's Workflow-Id scope.
        const childCtx = createContext(rt, { ...caller, workflowId: agent.workflowId, agent, secrets, signal: ctx.signal, held: held?.list }, childId, queued, persisted)
        try {
          const out = await child.run(parsed, childCtx)
          const output = await storeRunValue(rt.env, rt.config, childId, 'output', hidden ? null : secrets.scrub(out))
          await writeEnd(db, childCtx, childId, pendingChild, { state: 'succeeded', output, metadata: null, usage: usageJson(childCtx), error: null, finishedAt: Date.now() })
          const used = usageTotals.get(childCtx)
          if (used) for (const [k, v] of Object.entries(used)) ctx.addUsage({ [k]: v })
          return out
        } catch (err) {
          if (!isContinueLater(err)) await recordFailure(rt, childId, err, childCtx, pendingChild)
          throw err
        }
      })
    },
    addUsage(usage) {
      const totals = usageTotals.get(ctx) ?? {}
      for (const [k, v] of Object.entries(usage)) if (Number.isFinite(v)) totals[k] = (totals[k] ?? 0) + v
      usageTotals.set(ctx, totals)
    },
    waitUntil: (p) => rt.waitUntil(p),
  }
  if (held) heldWrites.set(ctx, held)
  return ctx
}
