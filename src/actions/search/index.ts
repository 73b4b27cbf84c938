import { catalogFilter } from '../../agents/access'
import { formatAgent } from '../../agents/formats'
import { createEmbedder } from '../../agents/embedder'
import { searchCatalog } from '../../agents/search'
import { errorFields } from '../../runtime/log'
import { defineAction } from '../define'
import { SearchInput } from './schema'

/** Searches the agent catalog; each hit is a function descriptor ready to hand to a model. */
export const searchAction = defineAction({
  name: 'search',
  summary: 'Search agents',
  description:
    'Lists agents matching a text query under a visibility filter, best first. Each hit is an OpenAI-style function descriptor named invoke_agent_<id>; call it at POST /v1/action/invoke_agent_<id>. `format` gives the same hits as Anthropic or MCP tools.',
  input: SearchInput,
  hints: { readOnly: true, idempotent: true },
  mode: 'inline',
  countWithFirstRead: true,
  examples: [
    { query: 'youtube transcript', status: 'public', limit: 5, page: 0 },
    { query: 'company research', status: 'all', format: 'anthropic' },
  ],
  async run(input, ctx) {
    const filter = catalogFilter(ctx, input.status)
    if (!filter) return []
    const hits = await searchCatalog(
      ctx.db,
      {
        viewer: { accountId: ctx.account.id, teamIds: ctx.account.teamIds },
        query: input.query ?? '',
        filter,
        limit: input.limit,
        page: input.page,
        catalogVersion: ctx.account.catalogVersion,
        vocabularyPoint: ctx.account.vocabularyPoint,
        embedder: createEmbedder(ctx.env, ctx.fetch),
        vectorize: ctx.env.VECTORIZE,
        minScore: input.min_score,
        onEmbedError: (err) => ctx.log.warn('query embedding failed; searching lexically', errorFields(err)),
      },
      ctx.read,
    )
    return hits.map((h) => formatAgent(h, h.score, input.format, ctx.actions))
  },
})
