import type { DatabaseConnection, Dialect, Driver, QueryCompiler, TransactionSettings } from 'kysely'
import { currentRequestTransaction, ScopedConnection } from './request-transaction.js'

/**
 * Wraps a dialect's driver so that every Kysely built on it follows the request transaction
 * (src/db/request-transaction.ts): inside one, connections are the transaction's and
 * transactions are its savepoints; outside, the wrapped driver's pool serves as before. Working
 * at the driver keeps every Kysely API as it is (`transaction()`, `connection()`, `sql` ...
 * `.execute(db)`, `withPlugin`), and costs one AsyncLocalStorage lookup per query.
 */
export function requestAwareDialect(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: () => new RequestAwareDriver(dialect.createDriver()),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
  }
}

class RequestAwareDriver implements Driver {
  constructor(private readonly pooled: Driver) {}

  init(): Promise<void> {
    return this.pooled.init()
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const request = currentRequestTransaction()
    return request?.isOpen ? request.lend() : this.pooled.acquireConnection()
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return connection instanceof ScopedConnection ? connection.begin(settings) : this.pooled.beginTransaction(connection, settings)
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return connection instanceof ScopedConnection ? connection.commit() : this.pooled.commitTransaction(connection)
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return connection instanceof ScopedConnection ? connection.rollback() : this.pooled.rollbackTransaction(connection)
  }

  // Named savepoints (ControlledTransaction.savepoint) only send statements on the connection,
  // which a ScopedConnection passes on to the request transaction.
  savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.pooled.savepoint) throw new Error('this driver has no savepoints')
    return this.pooled.savepoint(connection, name, compileQuery)
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.pooled.rollbackToSavepoint) throw new Error('this driver has no savepoints')
    return this.pooled.rollbackToSavepoint(connection, name, compileQuery)
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.pooled.releaseSavepoint) throw new Error('this driver has no savepoints')
    return this.pooled.releaseSavepoint(connection, name, compileQuery)
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // The transaction's connection goes back to the pool when the transaction ends, not before.
    if (connection instanceof ScopedConnection) return
    await this.pooled.releaseConnection(connection)
  }

  destroy(): Promise<void> {
    return this.pooled.destroy()
  }
}
