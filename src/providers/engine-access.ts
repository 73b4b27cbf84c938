/** Credentials and endpoint of a configured answer engine (Perplexity, OpenAI or Anthropic web search). */
export interface EngineAccess {
  apiKey: string
  baseUrl: string
  model: string
  /** Where the key came from ("PERPLEXITY_API_KEY", "account key" ...). */
  keySource: string
}
