/**
 * The query side of the offline encoder, distilled (static embeddings, in the manner of Model2Vec):
 * every vocabulary piece has the vector the full encoder gives that piece alone, and a query's vector
 * is the weighted mean of its pieces' vectors, normalized. It lives in the full encoder's space, so it
 * is compared with agent vectors the full encoder made. A query costs a tokenization and a few
 * hundred multiply-adds per piece instead of a transformer pass (tens of milliseconds, more under
 * load), and nothing of TensorFlow.js has to load on the search path.
 *
 * The table is built by scripts/build-encoder.mjs (int8 rows, one float scale per row that also holds
 * the piece's weight) and read through the ASSETS binding once per isolate.
 */
import { ENCODER_DIMENSIONS, Tokenizer, type AssetFetch } from './encoder'

/** Rows of the table: the encoder's piece embeddings (its vocabulary plus two out-of-vocabulary rows). */
export const PIECE_ROWS = 8002
/** Table bytes: the int8 rows, then one float32 scale per row. */
export const PIECE_TABLE_BYTES = PIECE_ROWS * ENCODER_DIMENSIONS + 4 * PIECE_ROWS
/**
 * Characters of a query that are tokenized: the encoder keeps its first 128 pieces, which never take
 * more characters than this, and tokenizing costs in proportion to the text.
 */
const MAX_CHARS = 4096

/** The distilled table: row `id` times `scales[id]` is the weighted vector of piece `id`. */
export interface PieceTable {
  rows: Int8Array
  scales: Float32Array
}

/** The table in its asset's layout; a buffer of another size is refused rather than misread. */
export function pieceTable(buffer: ArrayBuffer): PieceTable {
  if (buffer.byteLength !== PIECE_TABLE_BYTES) throw new Error(`query encoder table has ${buffer.byteLength} bytes, expected ${PIECE_TABLE_BYTES}: run node scripts/build-encoder.mjs`)
  return { rows: new Int8Array(buffer, 0, PIECE_ROWS * ENCODER_DIMENSIONS), scales: new Float32Array(buffer.slice(PIECE_ROWS * ENCODER_DIMENSIONS)) }
}

/** The query's unit vector, or the zero vector when the text has no pieces. */
export function encodeQuery(tokenizer: Tokenizer, table: PieceTable, text: string): Float32Array {
  const v = new Float32Array(ENCODER_DIMENSIONS)
  const sum = new Float64Array(ENCODER_DIMENSIONS)
  for (const id of tokenizer.encode(text.slice(0, MAX_CHARS))) {
    const scale = table.scales[id]
    if (!scale) continue
    const base = id * ENCODER_DIMENSIONS
    for (let d = 0; d < ENCODER_DIMENSIONS; d++) sum[d] += scale * table.rows[base + d]
  }
  let norm = 0
  for (let d = 0; d < ENCODER_DIMENSIONS; d++) norm += sum[d] * sum[d]
  norm = Math.sqrt(norm)
  if (norm > 0 && Number.isFinite(norm)) for (let d = 0; d < ENCODER_DIMENSIONS; d++) v[d] = sum[d] / norm
  return v
}

export interface QueryEncoder {
  /** The query's unit vector (zero when it has no pieces). */
  embedQuery(text: string): Promise<Float32Array>
}

interface Loaded {
  tokenizer: Tokenizer
  table: PieceTable
}

let loading: Promise<Loaded> | null = null

async function load(fetchAsset: AssetFetch): Promise<Loaded> {
  const [tableRes, vocabRes] = await Promise.all(['encoder/query-pieces.bin', 'encoder/vocab.json'].map((p) => fetchAsset(p)))
  for (const res of [tableRes, vocabRes]) {
    if (!res.ok) throw new Error(`query encoder asset missing (HTTP ${res.status}): run node scripts/build-encoder.mjs`)
  }
  const table = pieceTable(await tableRes.arrayBuffer())
  return { tokenizer: new Tokenizer((await vocabRes.json()) as [string, number][]), table }
}

/**
 * The distilled query encoder of this isolate, loaded on first use (one load however many requests ask
 * at once; a failed load is tried again by the next request).
 */
export function offlineQueryEncoder(fetchAsset: AssetFetch): QueryEncoder {
  return {
    async embedQuery(text) {
      if (!loading) loading = load(fetchAsset).catch((err) => ((loading = null), Promise.reject(err)))
      const { tokenizer, table } = await loading
      return encodeQuery(tokenizer, table, text)
    },
  }
}
