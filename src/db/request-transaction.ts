import { AsyncLocalStorage } from 'node:async_hooks'
import { CompiledQuery, type ControlledTransaction, type DatabaseConnection, type QueryResult, type TransactionSettings } from 'kysely'
import type { Database, Db } from './schema.js'

/**
 * One database transaction around a whole request, so that what the request writes and what it
 * records about itself (its Idempotency-Key's answer) commit together or not at all.
 *
 * Services keep the `Db` they were built with: while work runs inside `run`, every query that `Db`
 * (or any Kysely made from it) sends lands on this transaction's connection, and each
 * `db.transaction()` becomes a SAVEPOINT of it (see RequestAwareDriver). Outside `run`, and once
 * the transaction has ended (timers and promises the request left behind), the same `Db` uses the
 * pool as before.
 */
const scope = new AsyncLocalStorage<RequestTransaction>()

export function currentRequestTransaction(): RequestTransaction | undefined {
  return scope.getStore()
}

/**
 * Runs `effect` once what the caller wrote is committed: at once outside a request transaction
 * (the caller's own transaction has already committed), after the request's COMMIT inside one,
 * and never if the request rolls back. For effects outside the database that must not get ahead
 * of it, such as forgetting a revoked API key's cached credential: forgotten before the commit,
 * another request could cache the still-active key again.
 */
export function afterCommit(effect: () => void): void {
  const transaction = scope.getStore()
  if (transaction?.isOpen) transaction.onCommitted(effect)
  else effect()
}

/**
 * On Node 20 an enabled AsyncLocalStorage hooks every promise the process creates (a bare
 * `await` costs about twice as much), so the scope is switched off whenever no request
 * transaction is open: reads and unkeyed requests do not pay for it. Work left over from an
 * ended request then simply finds no transaction and uses the pool, as it would anyway.
 */
let openTransactions = 0

type State = 'open' | 'committed' | 'rolled_back'

export class RequestTransaction {
  #state: State = 'open'
  readonly #savepoints: string[] = []
  #savepointsOpened = 0
  #fault: Error | undefined
  readonly #committedEffects: (() => void)[] = []

  private constructor(
    /** The transaction itself, for the queries its owner makes outside `run`. */
    readonly executor: ControlledTransaction<Database>,
    readonly connection: DatabaseConnection,
  ) {
    openTransactions++
  }

  static async begin(db: Db): Promise<RequestTransaction> {
    const executor = await db.startTransaction().execute()
    try {
      // The connection the transaction holds; a single-connection provider hands it out as is.
      const connection = await executor.getExecutor().provideConnection(async (held) => held)
      return new RequestTransaction(executor, connection)
    } catch (error) {
      await executor.rollback().execute()
      throw error
    }
  }

  get isOpen(): boolean {
    return this.#state === 'open'
  }

  /**
   * Why what the request did must not be committed, if it must not: a statement failed outside
   * any savepoint (PostgreSQL then refuses the rest of the transaction), savepoints were ended out
   * of order, or a `db.transaction()` was still running when the request answered.
   */
  get fault(): Error | undefined {
    if (this.#fault) return this.#fault
    if (this.#savepoints.length > 0) return new Error('a transaction of the request was still running when it answered')
    return undefined
  }

  run<T>(work: () => T): T {
    return scope.run(this, work)
  }

  async commit(): Promise<void> {
    this.#end('committed')
    try {
      await this.executor.commit().execute()
    } catch (error) {
      // Kysely keeps the connection when COMMIT fails; ROLLBACK gives it back to the pool.
      await this.executor.rollback().execute().catch(() => {})
      throw error
    }
    // The change is committed: an effect that throws must not turn its answer into a failure
    // (the client would retry a write that happened). Effects are expected not to throw.
    for (const effect of this.#committedEffects.splice(0)) {
      try {
        effect()
      } catch (error) {
        process.emitWarning(`an effect after a request's commit failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }

  /** See `afterCommit`. */
  onCommitted(effect: () => void): void {
    this.#committedEffects.push(effect)
  }

  async rollback(): Promise<void> {
    this.#end('rolled_back')
    await this.executor.rollback().execute()
  }

  /** A connection for one Kysely call made inside `run`; RequestAwareDriver asks for it. */
  lend(): ScopedConnection {
    return new ScopedConnection(this)
  }

  #end(state: State): void {
    if (this.#state !== 'open') throw new Error(`the request transaction was already ${this.#state}`)
    this.#state = state
    if (--openTransactions === 0) scope.disable()
  }

  async execute<R>(query: CompiledQuery, inSavepoint: boolean): Promise<QueryResult<R>> {
    if (!this.isOpen) throw new Error(`the request transaction was already ${this.#state}`)
    try {
      return await this.connection.executeQuery<R>(query)
    } catch (error) {
      if (!inSavepoint && this.#savepoints.length === 0) {
        this.#fault ??= new Error('a statement failed outside a transaction of the request', { cause: error })
      }
      throw error
    }
  }

  async openSavepoint(): Promise<string> {
    const name = `request_savepoint_${++this.#savepointsOpened}`
    await this.execute(CompiledQuery.raw(`savepoint ${name}`), true)
    this.#savepoints.push(name)
    return name
  }

  async releaseSavepoint(name: string): Promise<void> {
    this.#expectInnermost(name)
    await this.execute(CompiledQuery.raw(`release savepoint ${name}`), true)
    this.#savepoints.pop()
  }

  async rollbackToSavepoint(name: string): Promise<void> {
    this.#expectInnermost(name)
    try {
      await this.execute(CompiledQuery.raw(`rollback to savepoint ${name}`), true)
      await this.execute(CompiledQuery.raw(`release savepoint ${name}`), true)
    } finally {
      this.#savepoints.pop()
    }
  }

  /**
   * Savepoints nest; two `db.transaction()` running side by side in one request would end each
   * other's. That is refused loudly (the request answers 500 and nothing is committed) rather
   * than committing half of one.
   */
  #expectInnermost(name: string): void {
    if (this.#savepoints.at(-1) === name) return
    this.#fault ??= new Error('two transactions ran side by side in one request')
    throw this.#fault
  }
}

/**
 * What a Kysely call made inside `run` gets instead of a pooled connection: the request
 * transaction's connection, with `begin`/`commit`/`rollback` turned into a savepoint.
 */
export class ScopedConnection implements DatabaseConnection {
  #savepoint: string | undefined

  constructor(readonly owner: RequestTransaction) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.owner.execute<R>(query, this.#savepoint !== undefined)
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    if (!this.owner.isOpen) throw new Error('the request transaction has ended')
    return this.owner.connection.streamQuery<R>(query, chunkSize)
  }

  async begin(settings: TransactionSettings): Promise<void> {
    // A savepoint cannot change what the enclosing transaction sees; refusing beats pretending.
    if (settings.isolationLevel || settings.accessMode) {
      throw new Error('isolation level and access mode cannot be set inside a request transaction')
    }
    this.#savepoint = await this.owner.openSavepoint()
  }

  async commit(): Promise<void> {
    // Kept until released: when RELEASE fails, Kysely rolls back, and that needs the name.
    await this.owner.releaseSavepoint(this.#begun())
    this.#savepoint = undefined
  }

  async rollback(): Promise<void> {
    const name = this.#begun()
    this.#savepoint = undefined
    await this.owner.rollbackToSavepoint(name)
  }

  #begun(): string {
    if (this.#savepoint === undefined) throw new Error('no transaction was begun on this connection')
    return this.#savepoint
  }
}
