/** A queue message: ids only, never inputs (inputs stay in D1, sealed when they hold secrets). */
export type JobMessage = { runId: string } | EmbedMessage

/** Embed the agents that lack a current search vector (sent on every agent write). */
export interface EmbedMessage {
  embed: true
}

/**
 * Thrown by a queued action that saved its progress and wants to go on in a fresh Queue message
 * (the crawler fetches its frontier in batches this way). The run stays `running`.
 */
export class ContinueLater extends Error {
  constructor(readonly delaySeconds = 0) {
    super('continue in a later queue message')
    this.name = 'ContinueLater'
  }
}

export function isContinueLater(err: unknown): err is ContinueLater {
  return err instanceof Error && err.name === 'ContinueLater'
}
