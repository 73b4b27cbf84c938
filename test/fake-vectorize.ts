/**
 * An in-memory Vectorize index that keeps the binding's documented contract (workers-types' abstract
 * class `Vectorize`, and the limits page): cosine metric, fixed dimensions, namespaces, upsert
 * replacing a vector in full, insert keeping existing ids, at most 1,000 vectors per write from a
 * Worker, topK at most 100 (20 when values or metadata are returned), ids and namespaces at most
 * 64 bytes. It answers what a real index would once its mutations are processed.
 */
const bytes = (s: string) => new TextEncoder().encode(s).length

export class FakeVectorize implements Vectorize {
  readonly spaces = new Map<string, Map<string, { values: number[]; metadata?: Record<string, VectorizeVectorMetadata> }>>()
  readonly calls: { op: string; size: number }[] = []
  /** Set to make every call reject, as a binding does when the index is unreachable. */
  failWith: Error | null = null
  private mutation = 0

  constructor(readonly dimensions: number) {}

  private check(op: string, size = 0): void {
    this.calls.push({ op, size })
    if (this.failWith) throw this.failWith
  }

  private space(namespace: string | undefined) {
    const ns = namespace ?? ''
    if (bytes(ns) > 64) throw new Error(`VECTOR_NAMESPACE_TOO_LONG: namespace is ${bytes(ns)} bytes, at most 64`)
    let s = this.spaces.get(ns)
    if (!s) this.spaces.set(ns, (s = new Map()))
    return s
  }

  private write(vectors: VectorizeVector[], replace: boolean): VectorizeAsyncMutation {
    if (vectors.length > 1000) throw new Error(`VECTOR_UPSERT_TOO_LARGE: ${vectors.length} vectors, at most 1000 per call from a Worker`)
    for (const v of vectors) {
      if (typeof v.id !== 'string' || v.id.length === 0 || bytes(v.id) > 64) throw new Error(`VECTOR_INVALID_ID: ${v.id}`)
      const values = Array.from(v.values as ArrayLike<number>)
      if (values.length !== this.dimensions) throw new Error(`VECTOR_DIMENSION_MISMATCH: got ${values.length}, index has ${this.dimensions}`)
      if (!values.every(Number.isFinite)) throw new Error('VECTOR_INVALID_VALUES')
    }
    for (const v of vectors) {
      const s = this.space(v.namespace)
      if (!replace && s.has(v.id)) continue
      s.set(v.id, { values: Array.from(v.values as ArrayLike<number>), metadata: v.metadata })
    }
    return { mutationId: `m-${++this.mutation}` }
  }

  async describe(): Promise<VectorizeIndexInfo> {
    this.check('describe')
    let count = 0
    for (const s of this.spaces.values()) count += s.size
    return { vectorCount: count, dimensions: this.dimensions, processedUpToDatetime: 0, processedUpToMutation: this.mutation }
  }

  async query(vector: VectorFloatArray | number[], options: VectorizeQueryOptions = {}): Promise<VectorizeMatches> {
    this.check('query')
    const topK = options.topK ?? 5
    const heavy = options.returnValues === true || options.returnMetadata === true || options.returnMetadata === 'all'
    if (!Number.isInteger(topK) || topK < 1 || topK > (heavy ? 20 : 100)) throw new Error(`VECTOR_QUERY_TOPK: topK ${topK} out of range`)
    const q = Array.from(vector as ArrayLike<number>)
    if (q.length !== this.dimensions) throw new Error(`VECTOR_DIMENSION_MISMATCH: query has ${q.length}`)
    const cos = (v: number[]) => {
      let dot = 0
      let a = 0
      let b = 0
      for (let i = 0; i < v.length; i++) {
        dot += q[i] * v[i]
        a += q[i] * q[i]
        b += v[i] * v[i]
      }
      return a > 0 && b > 0 ? dot / Math.sqrt(a * b) : 0
    }
    const matches = [...this.space(options.namespace)]
      .map(([id, v]) => ({
        id,
        score: cos(v.values),
        ...(options.returnValues ? { values: v.values } : {}),
        ...(options.returnMetadata && options.returnMetadata !== 'none' ? { metadata: v.metadata } : {}),
      }))
      .sort((x, y) => y.score - x.score)
      .slice(0, topK)
    return { matches, count: matches.length }
  }

  async queryById(vectorId: string, options?: VectorizeQueryOptions): Promise<VectorizeMatches> {
    const v = this.space(options?.namespace).get(vectorId)
    if (!v) return { matches: [], count: 0 }
    return this.query(v.values, options)
  }

  async insert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    this.check('insert', vectors.length)
    return this.write(vectors, false)
  }

  async upsert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    this.check('upsert', vectors.length)
    return this.write(vectors, true)
  }

  async deleteByIds(ids: string[]): Promise<VectorizeAsyncMutation> {
    this.check('deleteByIds', ids.length)
    for (const s of this.spaces.values()) for (const id of ids) s.delete(id)
    return { mutationId: `m-${++this.mutation}` }
  }

  async getByIds(ids: string[]): Promise<VectorizeVector[]> {
    this.check('getByIds', ids.length)
    const out: VectorizeVector[] = []
    for (const [namespace, s] of this.spaces) for (const id of ids) if (s.has(id)) out.push({ id, namespace, values: s.get(id)!.values })
    return out
  }
}
